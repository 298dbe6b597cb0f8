import { assert } from '../../src/base/assert.js';
import type { Prng } from '../../src/base/prng.js';
import { decodeConfChange } from '../../src/raft/conf-change.js';
import { RawNode, type RaftStatus } from '../../src/raft/raw-node.js';
import type {
  ConfChange,
  ConfState,
  Entry,
  HardState,
  NodeId,
  RaftMessage,
  Ready,
  ReadState,
  Snapshot,
  SoftState,
} from '../../src/raft/types.js';
import { EntryType } from '../../src/raft/types.js';
import type { SimConfig } from './sim-config.js';
import { DurableState } from './durable-state.js';
import { SimStateMachine } from './sim-state-machine.js';

/** What the simulation wants to see of a node's runtime at each step of the Ready contract. */
export interface SimNodeObserver {
  /** A Ready is about to be written; `node.durable` still holds the log as it was. */
  beforePersist(node: SimNode, ready: Ready, producedBy: SoftState & { term: number }): void;
  /** A Ready was written; `before` is the hard state on disk before it. */
  afterPersist(node: SimNode, before: HardState, ready: Ready): void;
  send(node: SimNode, message: RaftMessage): void;
  /** `entry` went through the state machine, which had applied up to `appliedBefore`. */
  applied(node: SimNode, entry: Entry, appliedBefore: number): void;
  /** The state machine was replaced by a snapshot's state. */
  restored(node: SimNode, snapshot: Snapshot): void;
  confChangeApplied(node: SimNode, change: ConfChange, confState: ConfState): void;
  readState(node: SimNode, readState: ReadState): void;
}

/** The steps of handling one Ready, in the order the runtime performs them. */
export type ReadyStep = 'persist' | 'send' | 'apply' | 'advance';
const contractOrder: readonly ReadyStep[] = ['persist', 'send', 'apply', 'advance'];
const sendBeforePersistOrder: readonly ReadyStep[] = ['send', 'persist', 'apply', 'advance'];

export interface ReadySummary {
  readonly description: string;
  /** Steps completed; fewer than four when the node crashed in the middle. */
  readonly stepsDone: readonly ReadyStep[];
}

/**
 * The simulated runtime of one node: a RawNode over durable storage, driven by the Ready contract
 * (persist hard state, entries and snapshot; then send; then apply; then advance), a state
 * machine, and snapshots with log compaction at a threshold. A crash drops the RawNode and
 * everything in memory; a restart builds a new RawNode from what was persisted.
 */
export class SimNode {
  readonly durable: DurableState;
  private rawNode: RawNode | null = null;
  private cachedStatus: RaftStatus | null = null;
  /** The applied state: the durable one when the run keeps it durable, else memory only. */
  private volatileStateMachine: SimStateMachine | null = null;
  /** The configuration as of the last entry the runtime handled (applied or skipped on replay). */
  appliedConfState: ConfState;
  /** Role, leader and term as of the last Ready produced (the core reports changes only). */
  private softState: SoftState = { leader: '', role: 'follower' };
  /** Set when this node applied its own removal: the operator stops it. */
  hasAppliedOwnRemoval = false;
  isDecommissioned = false;
  /** Set while the process is paused (a GC pause, a stopped VM): it neither ticks nor reads. */
  pausedUntilTick: number | null = null;

  constructor(
    readonly id: NodeId,
    initialConfState: ConfState,
    private readonly config: SimConfig,
    private readonly observer: SimNodeObserver,
  ) {
    this.durable = new DurableState(initialConfState);
    this.appliedConfState = initialConfState;
  }

  get isRunning(): boolean {
    return this.rawNode !== null;
  }

  /** Running and not paused: it can take a message, a tick, a client request, a Ready. */
  get isAvailable(): boolean {
    return this.rawNode !== null && this.pausedUntilTick === null;
  }

  /** The core, for driving it: any use may change its state, so the cached status is dropped. */
  get core(): RawNode {
    assert(this.rawNode !== null, `node ${this.id} is not running`);
    this.cachedStatus = null;
    return this.rawNode;
  }

  /**
   * The core's status, cached until the core is next driven: the simulation looks at every
   * node after every event, and most events touch one node.
   */
  status(): RaftStatus {
    assert(this.rawNode !== null, `node ${this.id} is not running`);
    this.cachedStatus ??= this.rawNode.status();
    return this.cachedStatus;
  }

  get stateMachine(): SimStateMachine {
    const sm = this.config.isStateMachineDurable ? this.durable.stateMachine : this.volatileStateMachine;
    assert(sm !== null, `node ${this.id} has no state machine while stopped`);
    return sm;
  }

  /** Starts (or restarts) the node from its durable state. */
  start(prng: Prng): void {
    assert(this.rawNode === null, `node ${this.id} is already running`);
    const storage = this.durable.storage;
    const snapshot = storage.snapshot();
    let applied: number | undefined;
    if (this.config.isStateMachineDurable) {
      this.durable.stateMachine ??= SimStateMachine.fromSnapshotData(snapshot.data);
      applied = this.durable.stateMachine.appliedIndex;
      assert(
        applied >= snapshot.meta.index,
        `node ${this.id}: durable state machine at ${applied} is behind its snapshot at ${snapshot.meta.index}`,
      );
    } else {
      this.volatileStateMachine = SimStateMachine.fromSnapshotData(snapshot.data);
    }
    this.appliedConfState = storage.initialState().confState;
    this.softState = { leader: '', role: 'follower' };
    const { raft, faults } = this.config;
    this.rawNode = new RawNode({
      id: this.id,
      storage,
      prng,
      ...raft,
      ...(applied === undefined ? {} : { applied }),
      faults: {
        ...(faults.commitPreviousTermByCounting === true ? { commitPreviousTermByCounting: true } : {}),
        ...(faults.grantVoteTwicePerTerm === true ? { grantVoteTwicePerTerm: true } : {}),
        ...(faults.skipLogUpToDateCheck === true ? { skipLogUpToDateCheck: true } : {}),
      },
    });
  }

  /** Loses everything that is not durable. */
  crash(): void {
    this.rawNode = null;
    this.pausedUntilTick = null;
    this.cachedStatus = null;
    this.volatileStateMachine = null;
  }

  get role(): SoftState['role'] {
    return this.softState.role;
  }

  /**
   * Handles one Ready. With `crashAfterSteps`, the node crashes after that many of the steps
   * (persist, send, apply, advance — or send first, when the runtime is faulty);
   * `chooseCrashAfterSteps` decides that after seeing the Ready.
   */
  handleReady(
    options: { crashAfterSteps?: number; chooseCrashAfterSteps?: (ready: Ready) => number | undefined } = {},
  ): ReadySummary {
    const term = this.status().term;
    const ready = this.core.ready();
    if (ready.softState !== null) this.softState = ready.softState;
    const producedBy = { ...this.softState, term: ready.hardState?.term ?? term };
    const order = this.config.faults.sendBeforePersist === true ? sendBeforePersistOrder : contractOrder;
    const crashAfterSteps = options.crashAfterSteps ?? options.chooseCrashAfterSteps?.(ready);
    const stepsDone: ReadyStep[] = [];
    const parts: string[] = [];
    for (const step of order) {
      if (crashAfterSteps !== undefined && stepsDone.length >= crashAfterSteps) {
        this.crash();
        parts.push(`crash after ${stepsDone.join(',') || 'nothing'}`);
        break;
      }
      const part = this.runStep(step, ready, producedBy);
      if (part !== '') parts.push(part);
      stepsDone.push(step);
    }
    if (this.isRunning) {
      const snapshotPart = this.maybeSnapshot();
      if (snapshotPart !== '') parts.push(snapshotPart);
    }
    return { description: parts.join(', ') || 'nothing', stepsDone };
  }

  private runStep(step: ReadyStep, ready: Ready, producedBy: SoftState & { term: number }): string {
    switch (step) {
      case 'persist':
        return this.persist(ready, producedBy);
      case 'send':
        for (const m of ready.messages) this.observer.send(this, m);
        return ready.messages.length > 0 ? `send ${ready.messages.length}` : '';
      case 'apply':
        return this.apply(ready);
      case 'advance':
        this.core.advance(ready);
        return '';
    }
  }

  private persist(ready: Ready, producedBy: SoftState & { term: number }): string {
    const storage = this.durable.storage;
    const before = storage.initialState().hardState;
    this.observer.beforePersist(this, ready, producedBy);
    const parts: string[] = [];
    if (ready.snapshot !== null) {
      storage.applySnapshot(ready.snapshot);
      // The snapshot's state replaces the applied state in the same write (docs/architecture/cluster.md: the
      // receiver builds the new state and swaps it in), so a crash cannot separate them.
      if (this.config.isStateMachineDurable) this.restore(ready.snapshot);
      parts.push(`install i${ready.snapshot.meta.index}/t${ready.snapshot.meta.term}`);
    }
    if (ready.entries.length > 0) {
      storage.append(ready.entries);
      const first = ready.entries[0] as Entry;
      const last = ready.entries[ready.entries.length - 1] as Entry;
      parts.push(first === last ? `+i${first.index}/t${first.term}` : `+i${first.index}..${last.index}/t${last.term}`);
    }
    if (ready.hardState !== null) {
      storage.setHardState(ready.hardState);
      const hs = ready.hardState;
      parts.push(`hs t${hs.term} v${hs.vote === '' ? '-' : hs.vote} c${hs.commit}`);
    }
    this.observer.afterPersist(this, before, ready);
    return parts.join(' ');
  }

  private restore(snapshot: Snapshot): void {
    const restored = SimStateMachine.fromSnapshotData(snapshot.data);
    if (this.config.isStateMachineDurable) this.durable.stateMachine = restored;
    else this.volatileStateMachine = restored;
    this.appliedConfState = snapshot.meta.confState;
    this.observer.restored(this, snapshot);
  }

  private apply(ready: Ready): string {
    const parts: string[] = [];
    if (ready.snapshot !== null && !this.config.isStateMachineDurable) this.restore(ready.snapshot);
    const committed = ready.committedEntries;
    for (const entry of committed) this.applyEntry(entry);
    if (committed.length > 0) {
      const first = (committed[0] as Entry).index;
      const last = (committed[committed.length - 1] as Entry).index;
      parts.push(first === last ? `apply i${first}` : `apply i${first}..${last}`);
    }
    for (const rs of ready.readStates) {
      this.observer.readState(this, rs);
      parts.push(`read i${rs.index}`);
    }
    return parts.join(' ');
  }

  private applyEntry(entry: Entry): void {
    const sm = this.stateMachine;
    // Every committed entry goes through the state machine: a node restarting with a durable
    // one told the core its applied index, so nothing comes twice (the checker would say so).
    const appliedBefore = sm.appliedIndex;
    sm.apply(entry);
    this.observer.applied(this, entry, appliedBefore);
    if (entry.type !== EntryType.ConfChange) return;
    const change = decodeConfChange(entry.data);
    this.appliedConfState = this.core.applyConfChange(change);
    if (this.config.isStateMachineDurable) this.durable.storage.setConfState(this.appliedConfState);
    if (change.kind === 'removeNode' && change.nodeId === this.id) this.hasAppliedOwnRemoval = true;
    this.observer.confChangeApplied(this, change, this.appliedConfState);
  }

  /** Snapshots the applied state and compacts the log once enough has been applied since the last. */
  private maybeSnapshot(): string {
    const storage = this.durable.storage;
    const sm = this.stateMachine;
    const index = sm.appliedIndex;
    if (index - storage.snapshot().meta.index < this.config.snapshotThresholdEntries) return '';
    storage.createSnapshot(index, this.appliedConfState, sm.snapshotData());
    storage.compact(index);
    return `snapshot i${index}`;
  }

  hasReady(): boolean {
    return this.rawNode !== null && this.rawNode.hasReady();
  }
}

/** The bootstrap configuration of a node that joins later: it knows nothing until the leader tells it. */
export const emptyConfState: ConfState = { voters: [], learners: [] };
