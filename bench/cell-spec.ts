// One cell of the benchmark matrix: a workload at one message size, batch size and concurrency.

export const workloadKinds = ['produce', 'consume', 'produce-consume'] as const;
export type WorkloadKind = (typeof workloadKinds)[number];

export interface CellSpec {
  readonly workload: WorkloadKind;
  readonly messageBytes: number;
  /** Messages per request: 1 (SendMessage) or 10 (SendMessageBatch, 10 per receive). */
  readonly batchSize: number;
  /** Operations in flight across all client processes. */
  readonly concurrency: number;
}

export function formatBytes(bytes: number): string {
  if (bytes >= 1024 && bytes % 1024 === 0) return `${bytes / 1024}KiB`;
  return `${bytes}B`;
}

/** A workload at one size and batch size, across concurrencies: one chart. */
export function workloadKey(cell: CellSpec): string {
  return `${cell.workload}-${formatBytes(cell.messageBytes)}-b${cell.batchSize}`;
}

/** Identifies a cell in results and ratio tables. */
export function cellKey(cell: CellSpec): string {
  return `${workloadKey(cell)}-c${cell.concurrency}`;
}

export interface MatrixShape {
  readonly workloads: readonly WorkloadKind[];
  readonly messageBytes: readonly number[];
  readonly batchSizes: readonly number[];
  readonly concurrencies: readonly number[];
  /** Leaves cells of the cross product out (the quick matrix keeps batch 1 for produce only). */
  readonly isIncluded?: (cell: CellSpec) => boolean;
}

/** The full matrix: every workload at 100 B, 1 KiB and 64 KiB, batches of 1 and 10, three concurrencies. */
export const fullMatrix: MatrixShape = {
  workloads: workloadKinds,
  messageBytes: [100, 1024, 65_536],
  batchSizes: [1, 10],
  concurrencies: [1, 16, 64],
};

/**
 * `--quick`: 1 KiB messages at concurrency 32: produce with batches of 1 and 10, consume and
 * produce-consume with batches of 10. Four cells, about half a minute per system.
 */
export const quickMatrix: MatrixShape = {
  workloads: workloadKinds,
  messageBytes: [1024],
  batchSizes: [1, 10],
  concurrencies: [32],
  isIncluded: (cell) => cell.workload === 'produce' || cell.batchSize === 10,
};

export function expandMatrix(shape: MatrixShape): CellSpec[] {
  const cells: CellSpec[] = [];
  for (const workload of shape.workloads) {
    for (const messageBytes of shape.messageBytes) {
      for (const batchSize of shape.batchSizes) {
        for (const concurrency of shape.concurrencies) {
          const cell = { workload, messageBytes, batchSize, concurrency };
          if (shape.isIncluded?.(cell) ?? true) cells.push(cell);
        }
      }
    }
  }
  return cells;
}
