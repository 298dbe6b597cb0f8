/**
 * A QueueService over the model executor with a manual clock and scheduler, and helpers that
 * keep tests short.
 */
import { SeededPrng } from '../../../src/base/prng.js';
import type { ReceivedMessage, SendEntry } from '../../../src/queue/queue-api.js';
import { QueueService } from '../../../src/queue/queue-service.js';
import { ManualScheduler } from './manual-scheduler.js';
import type { HookedTxnExecutor } from './hooked-txn-executor.js';
import { ModelTxnExecutor } from './model-txn-executor.js';
import { StoreTxnExecutor } from './store-txn-executor.js';

export interface Harness {
  readonly executor: HookedTxnExecutor;
  readonly scheduler: ManualScheduler;
  readonly service: QueueService;
  readonly warnings: Array<{ fields: Record<string, unknown>; message: string }>;
}

/**
 * `executor`: 'store' (default) runs on the real MVCC store and apply step; 'model' on the
 * in-memory model, which the property tests also use to cross-check the store.
 */
export function makeHarness(
  options: { seed?: number; inFlightMessagesMax?: number; executor?: 'store' | 'model' } = {},
): Harness {
  const executor = options.executor === 'model' ? new ModelTxnExecutor() : new StoreTxnExecutor();
  const scheduler = new ManualScheduler(executor.clock);
  const warnings: Harness['warnings'] = [];
  const service = new QueueService({
    executor,
    accountId: '000000000000',
    region: 'us-east-1',
    scheduler,
    prng: new SeededPrng(options.seed ?? 1),
    logger: { warn: (fields, message) => warnings.push({ fields, message }), info: () => {} },
    ...(options.inFlightMessagesMax !== undefined ? { inFlightMessagesMax: options.inFlightMessagesMax } : {}),
  });
  return { executor, scheduler, service, warnings };
}

export function entry(id: string, body: string, extra: Partial<SendEntry> = {}): SendEntry {
  return { entryId: id, body, messageAttributes: {}, systemAttributes: {}, ...extra };
}

/** Sends one message and returns its id; fails the test if the entry failed. */
export async function sendOne(
  service: QueueService,
  queue: string,
  body: string,
  extra: Partial<SendEntry> = {},
): Promise<string> {
  const [result] = await service.sendMessages(queue, [entry('e', body, extra)], { senderId: 'tester' });
  if (result === undefined || 'error' in result)
    throw new Error(`send failed: ${result === undefined ? 'no result' : result.error.message}`);
  return result.messageId;
}

export async function receiveAll(
  service: QueueService,
  queue: string,
  options: { visibilityTimeoutSeconds?: number } = {},
): Promise<ReceivedMessage[]> {
  const all: ReceivedMessage[] = [];
  for (;;) {
    const batch = await service.receiveMessages(queue, { maxMessages: 10, waitTimeSeconds: 0, ...options });
    if (batch.length === 0) return all;
    all.push(...batch);
  }
}
