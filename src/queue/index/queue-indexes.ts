/**
 * This node's in-memory queue indexes (docs/architecture/queue.md, "The queue index"), one per partition of a queue generation
 * that receives have asked for, kept current from the writes this replica applies.
 *
 * An index is built on first use by scanning the partition's vis, state and group rows, each page
 * from a view of its own (scanInPages says why). Writes applied while it is being built are held
 * and replayed over it afterwards: a write either is in the view of the page that read its row or
 * was heard after registration, and replaying a put or a delete that a page already had changes
 * nothing.
 *
 * A standard queue's index is served while it is built (a new leader of a queue of a million
 * messages would otherwise answer nothing for seconds): the vis rows are scanned in delivery
 * order, so once the first page is in, the head of the queue is there. From then on writes are
 * also fed to it as they are applied (and still held for the final replay, which puts right what
 * the scan's older view added after a newer write). Until the state rows are scanned an entry
 * cannot know whether its message was received, so every entry the scan adds says "maybe
 * received" (the receive reads the state row) until the build ends; an entry the scan adds after
 * a newer delete is a phantom that the receive's read drops. The receive validates what it reads
 * either way: a partly built index costs skips, never a wrong delivery. FIFO indexes are served
 * only when complete (a group's head must be known).
 *
 * Rows this replica gets without hearing of them (a snapshot install) are the one thing an index
 * can miss: `reset` drops every index, and an index that has nothing
 * ready is rebuilt once it is older than raftqLimits.queueIndexReloadAfterMs, so such a message
 * waits at most that long.
 *
 * A reset is not only about missed messages: a receive trusts the index's "never received" to
 * skip reading a message's state row, and an index that missed a claim (made on the leader while
 * this replica was cut off, and arriving here inside a snapshot) would have the message claimed
 * twice. So the node resets the indexes as it adopts an installed state (before any view of it
 * is taken), and a build that began before a reset is never used: it read the replaced state.
 *
 * Indexes of a superseded generation (purge, delete) are dropped when a receive first sees the
 * new one.
 */
import { raftqLimits } from '../../base/limits.js';
import { keySuccessor } from '../../storage/key-codec.js';
import type { KeyRange, KeyValue, TxnExecutor, TxnWrite } from '../../storage/txn.js';
import type { LoadedQueue } from '../queue-context.js';
import { isQueueKey, MessageRowKeyParser, parseMessageRowKeyUnder, type MessageRowKey } from '../layout/key-layout.js';
import { isNeverReceivedVisibilityValue, retentionStartMsOfVisibilityValue } from '../layout/vis-row.js';
import { FifoPartitionIndex } from './fifo-partition-index.js';
import { visibleAtMsOfReceiveState } from '../layout/receive-state.js';
import type { GroupRowEvent, StateRowEvent, VisRowEvent } from './index-events.js';
import { StandardPartitionIndex } from './standard-partition-index.js';

export type PartitionIndex = StandardPartitionIndex | FifoPartitionIndex;

/** What one finished index build read and took (QueueIndexes' onBuilt; logged and counted by the node). */
export interface IndexBuildReport {
  readonly queueName: string;
  readonly generation: number;
  readonly partition: number;
  /** Rows the build scanned: the partition's vis rows, then its state rows (and group rows, FIFO). */
  readonly rowsScanned: number;
  /** From the build's start to its end, on the executor's clock. */
  readonly durationMs: number;
  /** The index was served to receives before the build ended (a standard queue, after its head). */
  readonly wasServedEarly: boolean;
}

type HeldEvent =
  | { readonly family: 'vis'; readonly event: VisRowEvent }
  | { readonly family: 'state'; readonly event: StateRowEvent }
  | { readonly family: 'group'; readonly event: GroupRowEvent };

interface Build {
  readonly held: HeldEvent[];
  /** The index while it is built, once it may be served (standard queues, after the first vis page). */
  servedEarly: StandardPartitionIndex | undefined;
  /** Settles with the index as soon as it may be served: early, or when complete (or with the build's error). */
  servable: Promise<PartitionIndex>;
}

const textDecoder = new TextDecoder();
export const indexBuildPageRows = 4_096;

export class QueueIndexes {
  private readonly live = new Map<string, PartitionIndex>();
  private readonly builds = new Map<string, Build>();
  /** Generation each queue's indexes belong to: a newer one drops the older indexes. */
  private readonly generations = new Map<string, number>();
  private readonly unsubscribe: () => void;
  /** Applied batches heard so far: a view taken after batch N was heard includes batch N. */
  appliedBatches = 0;
  /** The last commit timestamp of the batches heard so far: a view at or below it holds no write these indexes have not heard of. */
  heardThroughTsUs = 0;
  /** Set by close: a build still scanning stops at its next page instead of running to the end. */
  private isClosed = false;
  /** Resets so far: an index built from a view older than the last reset is not used. */
  private resetsCount = 0;

  constructor(
    private readonly executor: TxnExecutor,
    private readonly options: {
      /** A build whose index was served before it ended has ended (receives may look again). */
      readonly onBuiltAfterServedEarly?: (queueName: string) => void;
      /** Every build that ran to its end, whether or not its index went live. */
      readonly onBuilt?: (report: IndexBuildReport) => void;
    } = {},
  ) {
    this.unsubscribe = executor.onApplied((writes, appliedTsUs) => this.onApplied(writes, appliedTsUs));
  }

  static idOf(queueName: string, generation: number, partition: number): string {
    return `${queueName}\u0000${generation}\u0000${partition}`;
  }

  /** The partition's index, built (or rebuilt, see above) if needed; never one built before the last reset. */
  async partition(queue: LoadedQueue, partition: number, nowMs: number): Promise<PartitionIndex> {
    for (;;) {
      const resetsAtStart = this.resetsCount;
      const index = await this.currentOrBuilt(queue, partition, nowMs);
      if (this.resetsCount === resetsAtStart) return index;
    }
  }

  private async currentOrBuilt(queue: LoadedQueue, partition: number, nowMs: number): Promise<PartitionIndex> {
    const { name, generation } = queue.meta;
    const knownGeneration = this.generations.get(name);
    if (knownGeneration !== generation) {
      // A view behind the generation this node already serves (a lagging replica's): nothing to offer.
      if (knownGeneration !== undefined && knownGeneration > generation) return emptyIndexOf(queue, nowMs);
      this.dropQueue(name);
      this.generations.set(name, generation);
    }
    const id = QueueIndexes.idOf(name, generation, partition);
    const index = this.live.get(id);
    if (
      index !== undefined &&
      (nowMs - index.loadedAtMs <= raftqLimits.queueIndexReloadAfterMs.value || index.hasReady(nowMs))
    )
      return index;
    const running = this.builds.get(id);
    if (running !== undefined) return running.servedEarly ?? running.servable;
    let serveEarly: (index: PartitionIndex) => void = () => {};
    const early = new Promise<PartitionIndex>((resolve) => {
      serveEarly = resolve;
    });
    const build: Build = { held: [], servedEarly: undefined, servable: early };
    const resetsAtBuild = this.resetsCount;
    this.builds.set(id, build);
    const complete = this.build(queue, partition, nowMs, build, (index) => {
      build.servedEarly = index;
      serveEarly(index);
    }).then(
      (built) => {
        if (this.builds.get(id) === build) this.builds.delete(id);
        if (this.generations.get(name) === generation && this.resetsCount === resetsAtBuild) this.live.set(id, built);
        // What a receive served early could not know (the in-flight messages' deadlines) is known now.
        if (build.servedEarly !== undefined) this.options.onBuiltAfterServedEarly?.(name);
        return built;
      },
      (error: unknown) => {
        if (this.builds.get(id) === build) this.builds.delete(id);
        throw error;
      },
    );
    // Whichever comes first: the index served early, or the build's end (complete, or its error).
    build.servable = Promise.race([early, complete]);
    return build.servable;
  }

  /**
   * Drops every index and every build in progress (the state they mirror was replaced, e.g. by a
   * snapshot install). Call it before the first view of the new state is taken.
   */
  reset(): void {
    this.resetsCount++;
    this.live.clear();
    this.builds.clear();
    this.generations.clear();
  }

  close(): void {
    this.isClosed = true;
    this.unsubscribe();
    this.reset();
  }

  /** Builds in progress (benches wait for them to end before they measure). */
  get buildsRunning(): number {
    return this.builds.size;
  }

  private async build(
    queue: LoadedQueue,
    partition: number,
    nowMs: number,
    build: Build,
    serve: (index: StandardPartitionIndex) => void,
  ): Promise<PartitionIndex> {
    const startedAtMs = this.executor.nowMs();
    let rowsScanned = 0;
    const { held } = build;
    const index = emptyIndexOf(queue, nowMs);
    /** Standard queue: entries whose vis row says "never received", confirmed once the state rows were scanned. */
    const neverReceived: string[] = [];
    // Only the elements after the family's prefix are decoded: most of a build's work on a large queue.
    const place = { queueName: queue.meta.name, generation: queue.meta.generation, partition };
    // State rows after vis rows: they override the visibility time of received messages.
    const families = queue.meta.config.isFifo ? (['vis', 'state', 'group'] as const) : (['vis', 'state'] as const);
    for (const family of families) {
      const range = familyRangeOf(queue, family, partition);
      await this.scanInPages(
        range,
        (key, value, batch) => {
          rowsScanned++;
          const row = parseMessageRowKeyUnder(key, place, family, range.gte.length);
          if (row === undefined) return;
          // A standard index is served before the state rows are in: "maybe received" until they are.
          const isServedEarly = index.kind === 'standard' && row.family === 'vis';
          if (isServedEarly && isNeverReceivedVisibilityValue(value)) neverReceived.push(row.messageId);
          const event = heldEventOf(row, value, isServedEarly);
          if (event !== undefined) feed(index, event, batch);
        },
        () => {
          if (this.isClosed) throw new Error('queue index build stopped: the queue service closed');
          if (family !== 'vis' || index.kind !== 'standard' || build.servedEarly !== undefined) return;
          // The head is in: catch up with what was applied meanwhile, then take writes as they come.
          for (const event of held) feed(index, event, this.appliedBatches);
          index.endBatch();
          serve(index);
        },
      );
    }
    // Every held write was applied in a batch at or before the last one heard.
    for (const event of held) feed(index, event, this.appliedBatches);
    index.endBatch();
    if (index.kind === 'standard') index.confirmNeverReceived(neverReceived);
    this.options.onBuilt?.({
      queueName: queue.meta.name,
      generation: queue.meta.generation,
      partition,
      rowsScanned,
      durationMs: Math.max(0, this.executor.nowMs() - startedAtMs),
      wasServedEarly: build.servedEarly !== undefined,
    });
    return index;
  }

  /**
   * Visits every row of `range`, a page at a time, each page read from a view of its own. One view
   * for the whole scan would have to outlive mvccHistoryMs on a large queue under load (a million
   * rows while consuming took longer), and reads of a view that old fail: the build would start over
   * for ever. Rows of different pages may come from different views; that is safe because every
   * write applied since the build began is held and replayed over the index at the end.
   */
  private async scanInPages(
    range: KeyRange,
    visit: (key: Uint8Array, value: Uint8Array, batch: number) => void,
    afterPage: () => void,
  ): Promise<void> {
    let gte = range.gte;
    for (;;) {
      const view = await this.executor.readView({ linearizable: false });
      // A view includes at most one batch more than has been heard when it is taken; rows read
      // from it count as added by that batch (the phantom rule in claim-standard-messages.ts).
      const batch = this.appliedBatches + 1;
      let page: KeyValue[];
      try {
        page = await view.scan({ gte, lt: range.lt }, { limit: indexBuildPageRows });
      } finally {
        view.release();
      }
      for (const row of page) visit(row.key, row.value, batch);
      afterPage();
      const last = page[page.length - 1];
      if (last === undefined || page.length < indexBuildPageRows) return;
      gte = keySuccessor(last.key);
    }
  }

  private dropQueue(name: string): void {
    const prefix = `${name}\u0000`;
    for (const id of this.live.keys()) if (id.startsWith(prefix)) this.live.delete(id);
    this.generations.delete(name);
  }

  private onApplied(writes: readonly TxnWrite[], appliedTsUs: number): void {
    this.appliedBatches++;
    if (appliedTsUs > this.heardThroughTsUs) this.heardThroughTsUs = appliedTsUs;
    if (this.live.size === 0 && this.builds.size === 0) return;
    const batch = this.appliedBatches;
    const touched = new Set<PartitionIndex>();
    const parser = new MessageRowKeyParser();
    // Rows of one partition come together: its id is built once per run of them.
    let id = '';
    let idOfRow: MessageRowKey | undefined;
    for (const write of writes) {
      if (!isQueueKey(write.key)) continue;
      const row = parser.parse(write.key);
      if (row === undefined || (row.family !== 'vis' && row.family !== 'group' && row.family !== 'state')) continue;
      if (
        idOfRow === undefined ||
        idOfRow.queueName !== row.queueName ||
        idOfRow.generation !== row.generation ||
        idOfRow.partition !== row.partition
      ) {
        idOfRow = row;
        id = QueueIndexes.idOf(row.queueName, row.generation, row.partition);
      }
      // A live index being rebuilt (reloaded) hears the write, and so does its rebuild.
      const index = this.live.get(id);
      const build = this.builds.get(id);
      if (index === undefined && build === undefined) continue;
      const held = heldEventOf(row, write.kind === 'put' ? write.value : undefined);
      if (held === undefined) continue;
      build?.held.push(held);
      // Two different indexes when both are there: a build's index goes live only when it ends.
      for (const target of [index, build?.servedEarly]) {
        if (target === undefined) continue;
        feed(target, held, batch);
        touched.add(target);
      }
    }
    for (const index of touched) index.endBatch();
  }
}

function feed(index: PartitionIndex, held: HeldEvent, batch: number): void {
  if (held.family === 'vis') index.applyVis(held.event, batch);
  else if (held.family === 'state') index.applyState(held.event);
  else index.applyGroup(held.event, batch);
}

/** What the index hears of a put (`value`) or delete (undefined) of a vis, state or group row; undefined for rows it does not mirror. */
/** `isMaybeReceived`: a build's scan, before the state rows are in, says no vis row is "never received". */
function heldEventOf(
  row: MessageRowKey,
  value: Uint8Array | undefined,
  isMaybeReceived = false,
): HeldEvent | undefined {
  switch (row.family) {
    case 'vis': {
      const { visibleAtMs, order, messageId } = row;
      if (value === undefined) return { family: 'vis', event: { kind: 'delete', visibleAtMs, messageId } };
      const isNeverReceived = !isMaybeReceived && isNeverReceivedVisibilityValue(value);
      return {
        family: 'vis',
        event: {
          kind: 'put',
          visibleAtMs,
          order,
          messageId,
          isNeverReceived,
          retentionStartMs: retentionStartMsOfVisibilityValue(value),
        },
      };
    }
    case 'state': {
      // A state row's delete goes with its message's; rows of the older layout carry no readable time.
      const visibleAtMs = value === undefined ? undefined : visibleAtMsOfReceiveState(value);
      return visibleAtMs === undefined
        ? undefined
        : { family: 'state', event: { messageId: row.messageId, visibleAtMs } };
    }
    case 'group': {
      const { groupId, sequence } = row;
      if (value === undefined) return { family: 'group', event: { kind: 'delete', groupId, sequence } };
      return { family: 'group', event: { kind: 'put', groupId, sequence, messageId: textDecoder.decode(value) } };
    }
    default:
      return undefined;
  }
}

function familyRangeOf(queue: LoadedQueue, family: 'vis' | 'state' | 'group', partition: number): KeyRange {
  if (family === 'vis') return queue.keys.visibilityPrefix(partition);
  if (family === 'state') return queue.keys.receiveStatePrefix(partition);
  return queue.keys.groupPrefix(partition);
}

function emptyIndexOf(queue: LoadedQueue, nowMs: number): PartitionIndex {
  return queue.meta.config.isFifo ? new FifoPartitionIndex(nowMs) : new StandardPartitionIndex(nowMs);
}
