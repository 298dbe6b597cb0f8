// The three SQS workloads of `npm run bench:sqs`, each one cell kind of the shared load generator:
// SendMessage is `produce` with batches of 1, SendMessageBatch is `produce` with batches of 10,
// ReceiveMessage + DeleteMessageBatch is `consume` with batches of 10 from a pre-filled queue.
import type { CellSpec } from '../cell-spec.js';

export const sqsWorkloadNames = ['send', 'send-batch', 'receive-delete'] as const;
export type SqsWorkloadName = (typeof sqsWorkloadNames)[number];

interface SqsWorkload {
  readonly name: SqsWorkloadName;
  /** What one measured operation is, in the API's words. */
  readonly operation: string;
  /** HTTP requests per measured operation (a receive-and-delete round is two). */
  readonly requestsPerOperation: number;
  readonly kind: CellSpec['workload'];
  readonly batchSize: number;
}

export const sqsWorkloads: readonly SqsWorkload[] = [
  { name: 'send', operation: 'SendMessage', requestsPerOperation: 1, kind: 'produce', batchSize: 1 },
  { name: 'send-batch', operation: 'SendMessageBatch (10)', requestsPerOperation: 1, kind: 'produce', batchSize: 10 },
  {
    name: 'receive-delete',
    operation: 'ReceiveMessage (10) + DeleteMessageBatch',
    requestsPerOperation: 2,
    kind: 'consume',
    batchSize: 10,
  },
];

export function sqsWorkload(name: SqsWorkloadName): SqsWorkload {
  const workload = sqsWorkloads.find((w) => w.name === name);
  if (workload === undefined) throw new TypeError(`unknown SQS workload ${name}`);
  return workload;
}

/** The workload a cell measures (the inverse of cellOf). */
export function workloadOfCell(cell: CellSpec): SqsWorkload | undefined {
  return sqsWorkloads.find((w) => w.kind === cell.workload && w.batchSize === cell.batchSize);
}

export function cellOf(name: SqsWorkloadName, messageBytes: number, concurrency: number): CellSpec {
  const workload = sqsWorkload(name);
  return { workload: workload.kind, messageBytes, batchSize: workload.batchSize, concurrency };
}
