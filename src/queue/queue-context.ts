/**
 * What every queue operation shares: the executor, the txn runner, the id source, the decoded
 * meta cache, and the reads that open every transaction on a queue (meta + generation, docs/TRAPS.md, trap 2).
 */
import { assert } from '../base/assert.js';
import type { Prng } from '../base/prng.js';
import type { ReadView, TxnExecutor } from '../storage/txn.js';
import { QueueDoesNotExistError } from './errors.js';
import { GenerationKeys, queueKeys } from './layout/key-layout.js';
import { MessageStore } from './message-store.js';
import { QueueActivity } from './queue-activity.js';
import type { QueueLogger, QueueScheduler } from './queue-api.js';
import { decodeGeneration, MetaCache, type QueueMeta } from './layout/queue-meta.js';
import { TxnRunner } from './txn-runner.js';
import { TxnRetryCounts } from './txn-retry-counts.js';

export interface LoadedQueue {
  readonly meta: QueueMeta;
  readonly keys: GenerationKeys;
  /** Reads and writes the rows of this generation's messages (data, state and index rows). */
  readonly messages: MessageStore;
  /** meta and gen: every message-path transaction reads both so a purge or delete aborts it. */
  readonly readKeys: readonly Uint8Array[];
  /** The gen row: the highest generation this name has used (>= meta.generation). */
  readonly lastGeneration: number;
}

const silentLogger: QueueLogger = { warn: () => {}, info: () => {} };

export class QueueContext {
  readonly runner: TxnRunner;
  readonly metaCache = new MetaCache();
  readonly logger: QueueLogger;
  readonly newId: () => string;
  /** Redrives skipped because the dead-letter queue was missing or mismatched (trap 17). */
  redriveSkippedCount = 0;
  /** Per-queue counts for /metrics (queue-activity.ts). */
  readonly activity = new QueueActivity();
  /** Attempts built again, by operation and reason, for /metrics (txn-retry-counts.ts). */
  readonly txnRetries = new TxnRetryCounts();
  /** What attempts noted against their view, kept until the attempt settles (or is dropped with its view). */
  private readonly pendingByView = new WeakMap<ReadView, Array<() => void>>();

  constructor(
    readonly executor: TxnExecutor,
    readonly accountId: string,
    readonly region: string,
    readonly scheduler: QueueScheduler,
    idSource: { newId?: () => string; prng?: Prng },
    logger: QueueLogger | undefined,
  ) {
    this.newId = idSource.newId ?? idFromPrng(idSource.prng);
    this.runner = new TxnRunner({
      executor,
      newId: this.newId,
      onSettled: (view) => this.settle(view),
      onRetry: (operation, reason) => this.txnRetries.note(operation, reason),
    });
    this.logger = logger ?? silentLogger;
  }

  /**
   * Runs `note` if and when the transaction attempt that read `view` settles (committed, or
   * answered without writes); never for an attempt that lost to a conflict and was rebuilt.
   */
  whenSettled(view: ReadView, note: () => void): void {
    const pending = this.pendingByView.get(view);
    if (pending === undefined) this.pendingByView.set(view, [note]);
    else pending.push(note);
  }

  private settle(view: ReadView): void {
    const pending = this.pendingByView.get(view);
    if (pending === undefined) return;
    this.pendingByView.delete(view);
    for (const note of pending) note();
  }

  queueArn(name: string): string {
    return `arn:aws:sqs:${this.region}:${this.accountId}:${name}`;
  }

  /** Reads meta and gen; throws QueueDoesNotExist when the queue has no meta row. */
  async loadQueue(view: ReadView, name: string): Promise<LoadedQueue> {
    const loaded = await this.maybeLoadQueue(view, name);
    if (loaded === undefined) throw new QueueDoesNotExistError(name);
    return loaded;
  }

  async maybeLoadQueue(view: ReadView, name: string): Promise<LoadedQueue | undefined> {
    const metaKey = queueKeys.meta(name);
    const generationKey = queueKeys.generation(name);
    const [metaBytes, generationBytes] = await Promise.all([view.get(metaKey), view.get(generationKey)]);
    if (metaBytes === undefined) return undefined;
    const meta = this.metaCache.decode(name, metaBytes);
    const lastGeneration = decodeGeneration(generationBytes);
    // The gen row always holds the highest generation used; a live meta can never be ahead of it.
    assert(lastGeneration >= meta.generation, () => `generation row of ${name} is behind its meta`);
    const keys = new GenerationKeys(name, meta.generation);
    return { meta, keys, messages: new MessageStore(keys), readKeys: [metaKey, generationKey], lastGeneration };
  }
}

/** A UUID-shaped id (version 4 layout) from 128 bits of the injected generator. */
function idFromPrng(prng: Prng | undefined): () => string {
  assert(prng !== undefined, 'QueueService needs newId or prng: src/queue has no randomness of its own');
  return () => {
    const words = [prng.nextU32(), prng.nextU32(), prng.nextU32(), prng.nextU32()];
    const hex = words.map((w) => w.toString(16).padStart(8, '0')).join('');
    const variant = ((Number.parseInt(hex[16] ?? '0', 16) & 0x3) | 0x8).toString(16);
    return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-${variant}${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
  };
}
