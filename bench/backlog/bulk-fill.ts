/**
 * Fills a standard queue fast, for benches only: the rows a SendMessage would write (built by the
 * queue layer's MessageStore, so they are exactly a send's), `messagesPerTxn` messages per
 * transaction, committed through a node's POST /debug/txn (the node must run with
 * --debug-endpoints). Replicated and applied like any transaction; what it skips is the SQS
 * gateway's per-request work and the ten-entry batch limit.
 */
import { Buffer } from 'node:buffer';
import { randomFillSync, randomUUID } from 'node:crypto';
import { SystemClock } from '../../src/base/clock.js';
import { TimeOrderedIds } from '../../src/base/time-ordered-ids.js';
import { setTimeout as delay } from 'node:timers/promises';
import { decodeKey } from '../../src/storage/key-codec.js';
import type { TxnWrite } from '../../src/storage/txn.js';
import { GenerationKeys } from '../../src/queue/layout/key-layout.js';
import { messageRecord } from '../../src/queue/message-record.js';
import { MessageStore } from '../../src/queue/message-store.js';

export interface BulkFillOptions {
  readonly adminEndpoint: string;
  /** Sent as x-raftq-cluster-secret: the debug calls need it. */
  readonly clusterSecret: string;
  readonly queueName: string;
  readonly total: number;
  readonly body: string;
  /** Transactions in flight at once. */
  readonly inFlight: number;
  /** The admin API reads bodies of at most 1 MiB: a few hundred small messages fit. */
  readonly messagesPerTxn?: number;
}

async function adminJson<T>(options: BulkFillOptions, method: string, path: string, body?: unknown): Promise<T> {
  const response = await fetch(`${options.adminEndpoint}${path}`, {
    method,
    headers: { 'content-type': 'application/json', 'x-raftq-cluster-secret': options.clusterSecret },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    signal: AbortSignal.timeout(120_000),
  });
  if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${await response.text()}`);
  return (await response.json()) as T;
}

/** The queue's live generation, from its meta row (JSON). */
async function generationOf(options: BulkFillOptions): Promise<number> {
  const { queueName } = options;
  const prefix = encodeURIComponent(JSON.stringify(['q', queueName, 'meta']));
  const { keys } = await adminJson<{ keys: Array<{ value: string }> }>(
    options,
    'GET',
    `/debug/keys?prefix=${prefix}&linearizable=1`,
  );
  const meta = JSON.parse(keys[0]?.value ?? 'null') as { generation?: number; partitionCount?: number } | null;
  if (meta?.generation === undefined) throw new Error(`queue ${queueName} has no meta row`);
  if ((meta.partitionCount ?? 1) !== 1) throw new Error('bulk fill writes partition 0 only');
  return meta.generation;
}

function wireWrite(write: TxnWrite): object {
  if (write.kind === 'delete') return { key: decodeKey(write.key), delete: true };
  return {
    key: decodeKey(write.key),
    valueBase64: Buffer.from(write.value).toString('base64'),
    ...(write.isNewKey === true ? { isNewKey: true } : {}),
  };
}

/** Returns the seconds it took; progress on stderr. */
export async function bulkFill(options: BulkFillOptions): Promise<number> {
  const perTxn = options.messagesPerTxn ?? 400;
  const store = new MessageStore(new GenerationKeys(options.queueName, await generationOf(options)));
  // Ids as a node mints them for a send (serve-command.ts), so the rows lie as sent ones would.
  const messageIds = new TimeOrderedIds(new SystemClock(), randomFillSync);
  const startedMs = performance.now();
  let next = 0;
  let order = 0n;
  let filled = 0;
  let retries = 0;
  const progress = setInterval(() => {
    const rate = filled / Math.max((performance.now() - startedMs) / 1000, 0.001);
    process.stderr.write(
      `\r  filled ${filled.toLocaleString('en')} / ${options.total.toLocaleString('en')} (${Math.round(rate)} msgs/s, ETA ${Math.round((options.total - filled) / Math.max(rate, 1))} s, retries ${retries})   `,
    );
  }, 1_000);
  try {
    await Promise.all(
      Array.from({ length: options.inFlight }, async () => {
        for (;;) {
          const count = Math.min(perTxn, options.total - next);
          if (count <= 0) return;
          next += count;
          const nowMs = Date.now();
          const writes = Array.from({ length: count }, () => {
            const record = messageRecord({
              messageId: messageIds.next(),
              body: options.body,
              messageAttributes: {},
              systemAttributes: {},
              senderId: 'bench',
              sentAtMs: nowMs,
              retentionStartMs: nowMs,
              partition: 0,
              visibleAtMs: nowMs,
              order: order++,
              receiveCount: 0,
            });
            // Fresh ids: no version of these keys exists, so the apply step need not look (TxnWrite.isNewKey).
            return store.insertWrites(record, { isNewMessageId: true });
          }).flat();
          const wire = writes.map(wireWrite);
          let txnId = randomUUID();
          for (;;) {
            try {
              // The same txn id after an error: a commit whose answer was lost is not applied twice.
              const { outcome } = await adminJson<{ outcome: { kind: string } }>(options, 'POST', '/debug/txn', {
                txnId,
                writes: wire,
              });
              if (outcome.kind === 'committed') break;
              // Refused, so not applied (a busy node stamped it too late): a new attempt under a new id.
              if (outcome.kind !== 'clock-skew') throw new Error(`bulk fill: ${JSON.stringify(outcome)}`);
              txnId = randomUUID();
            } catch (error) {
              if (String(error).includes('bulk fill:')) throw error;
            }
            retries++;
            await delay(200);
          }
          filled += count;
        }
      }),
    );
  } finally {
    clearInterval(progress);
    process.stderr.write('\n');
  }
  return (performance.now() - startedMs) / 1000;
}
