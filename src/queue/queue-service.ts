/**
 * SQS semantics as transactions over a TxnExecutor. Every public method is one SQS action (or
 * its batch form). The service is deterministic: time is the executor's cluster clock, ids come
 * from the injected id source, timers from the injected scheduler.
 */
import type { Prng } from '../base/prng.js';
import type { TxnExecutor } from '../storage/txn.js';
import { QueueDoesNotExistError, TxnRetriesExhaustedError } from './errors.js';
import { MessageClaimer } from './claim-messages.js';
import { changeMessageVisibility, deleteMessages } from './handle-operations.js';
import { LongPollWaiters } from './long-poll-waiters.js';
import {
  addPermission,
  getQueueAttributes,
  listQueueTags,
  removePermission,
  setQueueAttributes,
  tagQueue,
  untagQueue,
} from './queue-attribute-ops.js';
import { QueueContext } from './queue-context.js';
import {
  createQueue,
  deleteQueue,
  getQueueName,
  listDeadLetterSourceQueues,
  listQueues,
  purgeQueue,
} from './queue-lifecycle.js';
import { MoveTasks } from './move-tasks.js';
import {
  moveMessageToDeadLetterQueue,
  type DeadLetterMoveInput,
  type DeadLetterMoveResult,
} from './move-message-to-dead-letter-queue.js';
import { QueueReaper, type ReaperSweepOptions, type ReaperSweepReport } from './reaper.js';
import { MessageSender } from './send-messages.js';
import { QueueIndexes, type IndexBuildReport } from './index/queue-indexes.js';
import { peekMessages, type PeekedMessage } from './peek-messages.js';
import type { QueueActivityCounts } from './queue-activity.js';
import type { TxnRetryCount } from './txn-retry-counts.js';
import { summarizeQueue, summarizeQueues, type QueueSummary } from './queue-overview.js';
import type { ReceiveScanSlot } from './receive-scan-slot.js';
import type {
  ChangeVisibilityEntry,
  DeleteEntry,
  EntryFailure,
  EntrySuccess,
  ListQueuesOptions,
  MoveTaskInfo,
  PermissionGrant,
  QueueLogger,
  QueueNamePage,
  QueueScheduler,
  ReceivedMessage,
  ReceiveOptions,
  SendContext,
  SendEntry,
  SendResult,
  StartMoveTaskOptions,
} from './queue-api.js';

export type * from './queue-api.js';
export type { ReaperSweepOptions, ReaperSweepReport } from './reaper.js';
export type { PeekedMessage, PeekedState } from './peek-messages.js';
export type { QueueActivityCounts } from './queue-activity.js';
export type { QueueSummary } from './queue-overview.js';
export { reapedRowsByFamily } from './reaper-report.js';
export { receiveScanSlotOf, type ReceiveScanSlot } from './receive-scan-slot.js';

export type { IndexBuildReport } from './index/queue-indexes.js';

/** Queue index builds a node ran to their end (raftq_queue_index_builds_total and its companions). */
export interface IndexBuildTotals {
  readonly builds: number;
  readonly rowsScanned: number;
  readonly seconds: number;
}

/** A build that takes this long is logged: the backlog of a queue that size is worth knowing about. */
const indexBuildLoggedMsMin = 1_000;

export interface QueueServiceOptions {
  readonly executor: TxnExecutor;
  readonly accountId: string;
  readonly region: string;
  readonly scheduler: QueueScheduler;
  /** Unique ids for messages, receipt tokens and txns. Either this or `prng` must be given. */
  readonly newId?: () => string;
  /** Used to mint ids when `newId` is not given. */
  readonly prng?: Prng;
  readonly logger?: QueueLogger;
  /** Overrides sqsLimits.inFlightMessages*Max (tests use a small value). */
  readonly inFlightMessagesMax?: number;
  /**
   * This node's slot among the nodes that serve receives (receive-scan-slot.ts: the runtime passes
   * `receiveScanSlotOf(nodeId, voters)`), asked on every receive; absent: one node, slot 0.
   */
  readonly receiveScanSlot?: () => ReceiveScanSlot;
}

export class QueueService {
  private readonly ctx: QueueContext;
  private readonly sender: MessageSender;
  private readonly claimer: MessageClaimer;
  private readonly waiters: LongPollWaiters;
  private readonly reaper: QueueReaper;
  private readonly indexes: QueueIndexes;
  private readonly moveTasks: MoveTasks;
  private isClosed = false;
  private indexBuildTotalsValue: IndexBuildTotals = { builds: 0, rowsScanned: 0, seconds: 0 };

  constructor(readonly options: QueueServiceOptions) {
    this.ctx = new QueueContext(
      options.executor,
      options.accountId,
      options.region,
      options.scheduler,
      options,
      options.logger,
    );
    this.sender = new MessageSender(this.ctx);
    // A receive served by an index still being built may park a long poll without knowing when
    // an in-flight message comes back; the finished build tells that queue's waiters to look again.
    this.indexes = new QueueIndexes(options.executor, {
      onBuiltAfterServedEarly: (queueName) => this.waiters.notifyQueue(queueName),
      onBuilt: (report) => this.noteIndexBuilt(report),
    });
    this.claimer = new MessageClaimer(this.ctx, options.inFlightMessagesMax, this.indexes, options.receiveScanSlot);
    this.waiters = new LongPollWaiters(options.executor, options.scheduler);
    this.reaper = new QueueReaper(this.ctx);
    this.moveTasks = new MoveTasks(this.ctx);
  }

  createQueue(input: {
    name: string;
    attributes: Record<string, string>;
    tags: Record<string, string>;
  }): Promise<{ name: string }> {
    return createQueue(this.ctx, input);
  }

  /** GetQueueUrl: throws QueueDoesNotExistError. */
  getQueueName(name: string): Promise<{ name: string }> {
    return getQueueName(this.ctx, name);
  }

  deleteQueue(name: string): Promise<void> {
    return deleteQueue(this.ctx, name);
  }

  listQueues(options: ListQueuesOptions): Promise<QueueNamePage> {
    return listQueues(this.ctx, options);
  }

  /** `attributeNames` may contain 'All'. */
  getQueueAttributes(name: string, attributeNames: string[]): Promise<Record<string, string>> {
    return getQueueAttributes(this.ctx, name, attributeNames);
  }

  setQueueAttributes(name: string, attributes: Record<string, string>): Promise<void> {
    return setQueueAttributes(this.ctx, name, attributes);
  }

  purgeQueue(name: string): Promise<void> {
    return purgeQueue(this.ctx, name);
  }

  sendMessages(name: string, entries: SendEntry[], context: SendContext): Promise<Array<SendResult | EntryFailure>> {
    return this.sender.send(name, entries, context);
  }

  /**
   * Short poll: one claim attempt. Long poll: one attempt now, then one more after each applied
   * write that could make a message deliverable, or at the earliest future visibleAtMs, until a
   * message is claimed, the wait ends or `signal` aborts (then the answer is empty).
   */
  async receiveMessages(name: string, options: ReceiveOptions): Promise<ReceivedMessage[]> {
    const messages = await this.receiveUntilDone(name, options);
    // AWS's NumberOfEmptyReceives: a ReceiveMessage call that answered no message.
    if (messages.length === 0) this.ctx.activity.noteEmptyReceive(name);
    return messages;
  }

  private async receiveUntilDone(name: string, options: ReceiveOptions): Promise<ReceivedMessage[]> {
    const startMs = this.ctx.executor.nowMs();
    const waiter = options.waitTimeSeconds === 0 ? undefined : this.waiters.add(name);
    try {
      for (;;) {
        waiter?.reset();
        const attempt = await this.claimer.claimOnce(name, options).catch((err: unknown) => {
          // Every attempt lost to receives on other nodes claiming the same head of the queue:
          // nothing was taken, and an empty answer (which a consumer repeats) is truthful, while
          // a 503 would make clients back off from a queue that is simply busy.
          if (err instanceof TxnRetriesExhaustedError && err.lastOutcome === 'conflict') return undefined;
          throw err;
        });
        if (attempt === undefined) return [];
        if (attempt.messages.length > 0) return attempt.messages;
        const waitSeconds = options.waitTimeSeconds ?? attempt.queueWaitTimeSeconds;
        const deadlineMs = startMs + waitSeconds * 1000;
        if (waiter === undefined || waitSeconds === 0 || this.isClosed || isAborted(options.signal)) return [];
        if (this.ctx.executor.nowMs() >= deadlineMs) return [];
        const untilMs = Math.min(deadlineMs, attempt.nextVisibleAtMs ?? deadlineMs);
        await waiter.waitUntil(untilMs, this.ctx.executor, this.options.scheduler, options.signal);
        if (this.isClosed || isAborted(options.signal)) return [];
      }
    } finally {
      if (waiter !== undefined) this.waiters.remove(name, waiter);
    }
  }

  deleteMessages(name: string, entries: DeleteEntry[]): Promise<Array<EntrySuccess | EntryFailure>> {
    return deleteMessages(this.ctx, name, entries);
  }

  changeMessageVisibility(name: string, entries: ChangeVisibilityEntry[]): Promise<Array<EntrySuccess | EntryFailure>> {
    return changeMessageVisibility(this.ctx, name, entries);
  }

  tagQueue(name: string, tags: Record<string, string>): Promise<void> {
    return tagQueue(this.ctx, name, tags);
  }

  untagQueue(name: string, tagKeys: string[]): Promise<void> {
    return untagQueue(this.ctx, name, tagKeys);
  }

  listQueueTags(name: string): Promise<Record<string, string>> {
    return listQueueTags(this.ctx, name);
  }

  /** Stored as a statement of the queue's Policy attribute. */
  addPermission(name: string, grant: PermissionGrant): Promise<void> {
    return addPermission(this.ctx, name, grant);
  }

  removePermission(name: string, label: string): Promise<void> {
    return removePermission(this.ctx, name, label);
  }

  listDeadLetterSourceQueues(
    name: string,
    options: { maxResults?: number; nextToken?: string },
  ): Promise<QueueNamePage> {
    return listDeadLetterSourceQueues(this.ctx, name, options);
  }

  startMessageMoveTask(options: StartMoveTaskOptions): Promise<{ taskHandle: string }> {
    return this.moveTasks.start(options);
  }

  /** Most recent first; maxResults 1..10 (default 1, as in AWS). */
  listMessageMoveTasks(options: { sourceArn: string; maxResults?: number }): Promise<MoveTaskInfo[]> {
    return this.moveTasks.list(options);
  }

  cancelMessageMoveTask(taskHandle: string): Promise<{ approximateNumberOfMessagesMoved: number }> {
    return this.moveTasks.cancel(taskHandle);
  }

  /**
   * raftq extension: dead-letters one in-flight message now, with the cause its consumer gave, in
   * one transaction (docs/COMPATIBILITY.md, "raftq extensions").
   */
  moveMessageToDeadLetterQueue(name: string, input: DeadLetterMoveInput): Promise<DeadLetterMoveResult> {
    return moveMessageToDeadLetterQueue(this.ctx, name, input);
  }

  /**
   * Advances every running move task by one bounded, rate-limited batch. The runtime calls it on
   * the leader's background tick (with sweepReaper); tasks resume after a leader change.
   */
  stepMoveTasks(): Promise<number> {
    return this.moveTasks.step();
  }

  /**
   * One bounded reaper sweep (purged and deleted generations, retention, expired dedup and
   * receive-attempt rows, dangling index rows, finished move tasks; docs/architecture/reaper.md).
   * The runtime calls it on a short tick on the leader only, with a signal that aborts when this
   * node stops leading.
   */
  sweepReaper(options: ReaperSweepOptions = {}): Promise<ReaperSweepReport> {
    return this.reaper.sweepOnce(options);
  }

  /** The ARN AWS would give this queue (arn:aws:sqs:REGION:ACCOUNT:NAME). */
  queueArn(name: string): string {
    return this.ctx.queueArn(name);
  }

  /**
   * Operator view: every live queue's type, counts, oldest message age and dead-letter target,
   * from one view. Linearizable by default; /metrics reads the local replica instead (no leader
   * round trip per scrape, and a follower still answers).
   */
  async queueSummaries(options: { linearizable: boolean } = { linearizable: true }): Promise<QueueSummary[]> {
    const view = await this.ctx.executor.readView(options);
    try {
      return await summarizeQueues(this.ctx, view, this.ctx.executor.nowMs());
    } finally {
      view.release();
    }
  }

  /** One queue's summary on a linearizable view; throws QueueDoesNotExistError. */
  queueSummary(name: string): Promise<QueueSummary> {
    return this.ctx.runner.read(async (view, nowMs) => {
      const summary = await summarizeQueue(this.ctx, view, name, nowMs);
      if (summary === undefined) throw new QueueDoesNotExistError(name);
      return summary;
    });
  }

  /** Up to `limit` messages as they are, on one linearizable view, writing nothing (peek-messages.ts). */
  peekMessages(name: string, limit: number): Promise<PeekedMessage[]> {
    return this.ctx.runner.read(async (view, nowMs) =>
      peekMessages(view, await this.ctx.loadQueue(view, name), nowMs, limit),
    );
  }

  /** Per-queue counts of dead-letter moves, skipped moves and empty receives on this node (queue-activity.ts). */
  activityByQueue(): Map<string, QueueActivityCounts> {
    return this.ctx.activity.snapshot();
  }

  /** Transaction attempts of queue operations built again on this node, by operation and reason (txn-retry-counts.ts). */
  txnRetries(): TxnRetryCount[] {
    return this.ctx.txnRetries.snapshot();
  }

  /** Observability: dead-letter moves skipped because the target was missing or mismatched. */
  get redriveSkippedCount(): number {
    return this.ctx.redriveSkippedCount;
  }

  /** Long polls parked on this node right now. */
  get waitingReceiveCount(): number {
    return this.waiters.waitingCount;
  }

  /**
   * This replica's state was replaced (a snapshot install): its rows changed without an applied
   * write this service heard, so the queue indexes built from the old state are dropped
   * (queue-indexes.ts). Call it before the first view of the new state is taken.
   */
  stateReplaced(): void {
    this.indexes.reset();
  }

  /** Queue index builds in progress on this node (benches wait for them before they measure). */
  get indexBuildsRunning(): number {
    return this.indexes.buildsRunning;
  }

  /** Queue index builds this node ran to their end, the rows they scanned and the time they took. */
  get indexBuildTotals(): IndexBuildTotals {
    return this.indexBuildTotalsValue;
  }

  /**
   * Counts a finished index build, and logs one that took long enough for an operator to notice (a
   * new leader of a large backlog: receives were served from the head meanwhile, but in-flight
   * deadlines and the rest of the queue were still coming in).
   */
  private noteIndexBuilt(report: IndexBuildReport): void {
    const totals = this.indexBuildTotalsValue;
    this.indexBuildTotalsValue = {
      builds: totals.builds + 1,
      rowsScanned: totals.rowsScanned + report.rowsScanned,
      seconds: totals.seconds + report.durationMs / 1000,
    };
    if (report.durationMs >= indexBuildLoggedMsMin)
      this.ctx.logger.info(
        {
          queue: report.queueName,
          generation: report.generation,
          partition: report.partition,
          rowsScanned: report.rowsScanned,
          durationMs: Math.round(report.durationMs),
          wasServedEarly: report.wasServedEarly,
        },
        'queue index built',
      );
  }

  /** Ends every long poll (with an empty answer) and stops timers: node shutdown. */
  close(): void {
    this.isClosed = true;
    this.waiters.close();
    this.indexes.close();
  }
}

function isAborted(signal: AbortSignal | undefined): boolean {
  return signal?.aborted === true;
}
