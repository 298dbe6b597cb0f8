import type { MemoryRaftStorage } from '../../src/raft/memory-storage.js';
import type { Entry, HardState, RaftMessage, Ready, ReadState, Snapshot, SoftState } from '../../src/raft/types.js';
import { MessageType } from '../../src/raft/types.js';
import { DurabilityChecker } from './invariants/durability-checker.js';
import { ElectionSafetyChecker } from './invariants/election-safety-checker.js';
import { LeaderAppendOnlyChecker } from './invariants/leader-append-only-checker.js';
import { LeaderCompletenessChecker } from './invariants/leader-completeness-checker.js';
import { LinearizableReadChecker } from './invariants/linearizable-read-checker.js';
import { LogMatchingChecker } from './invariants/log-matching-checker.js';
import type { LogView } from './invariants/log-view.js';
import { MonotonicityChecker } from './invariants/monotonicity-checker.js';
import { PersistBeforeSendChecker } from './invariants/persist-before-send-checker.js';
import { StateMachineSafetyChecker } from './invariants/state-machine-safety-checker.js';
import type { SimNode } from './sim-node.js';

/** A node's durable log as the checkers see it. */
export function durableLogView(storage: MemoryRaftStorage): LogView {
  const snapshotIndex = storage.firstIndex() - 1;
  const lastIndex = storage.lastIndex();
  return {
    snapshotIndex,
    lastIndex,
    termAt: (index) => (index < snapshotIndex || index > lastIndex ? undefined : storage.term(index)),
  };
}

/** The log a Ready leaves behind, seen before it is written: the snapshot it installs, if any. */
function viewAfterSnapshot(storage: MemoryRaftStorage, snapshot: Snapshot | null): LogView {
  if (snapshot === null) return durableLogView(storage);
  const { index, term } = snapshot.meta;
  return { snapshotIndex: index, lastIndex: index, termAt: (i) => (i === index ? term : undefined) };
}

/**
 * Every invariant checker of a run, fed from the runtime's steps and from a look at every node
 * after each event. Checkers throw InvariantViolationError; the simulation stops at the first.
 */
export class ClusterMonitor {
  readonly electionSafety = new ElectionSafetyChecker();
  readonly leaderAppendOnly = new LeaderAppendOnlyChecker();
  readonly logMatching = new LogMatchingChecker();
  readonly leaderCompleteness = new LeaderCompletenessChecker();
  readonly stateMachineSafety = new StateMachineSafetyChecker();
  readonly durability = new DurabilityChecker();
  readonly monotonicity = new MonotonicityChecker();
  readonly linearizableReads = new LinearizableReadChecker();
  readonly persistBeforeSend = new PersistBeforeSendChecker();

  beforePersist(node: SimNode, ready: Ready, producedBy: SoftState & { term: number }): void {
    const first = ready.entries[0];
    if (first === undefined) return;
    const storage = node.durable.storage;
    if (producedBy.role === 'leader' && ready.snapshot === null) {
      this.leaderAppendOnly.observeLeaderWrite(node.id, producedBy.term, first.index, storage.lastIndex());
    }
    const view = viewAfterSnapshot(storage, ready.snapshot);
    // Entries at or below the snapshot are already compacted away: storage skips them.
    const fresh = ready.entries.filter((e) => e.index > view.snapshotIndex);
    const freshFirst = fresh[0];
    if (freshFirst === undefined) return;
    const prevTerm = view.termAt(freshFirst.index - 1);
    // A gap is left to storage.append, which refuses it loudly.
    if (prevTerm !== undefined)
      this.logMatching.observeEntries(freshFirst.index - 1, prevTerm, fresh, `node ${node.id}'s log`);
  }

  afterPersist(node: SimNode, before: HardState, ready: Ready): void {
    const storage = node.durable.storage;
    const hs = storage.initialState().hardState;
    if (hs.commit > before.commit)
      this.leaderCompleteness.observeCommit(node.id, hs.term, before.commit, hs.commit, durableLogView(storage));
    if (ready.hardState !== null || ready.snapshot !== null) this.observeDurable(node, 'after a write');
  }

  /** A node restarted from its durable state: it must still back what it said before. */
  restarted(node: SimNode): void {
    this.observeDurable(node, 'at restart');
    const storage = node.durable.storage;
    this.persistBeforeSend.observeRestart(node.id, storage.initialState().hardState, durableLogView(storage));
  }

  /** Durable term, commit and applied index of a node (applied: its durable state machine, else its snapshot). */
  observeDurable(node: SimNode, when: string): void {
    const storage = node.durable.storage;
    const hs = storage.initialState().hardState;
    const applied = node.durable.stateMachine?.appliedIndex ?? storage.snapshot().meta.index;
    this.monotonicity.observeDurable(node.id, { term: hs.term, commit: hs.commit, applied }, when);
  }

  sent(message: RaftMessage): void {
    this.persistBeforeSend.observeSent(message);
    if (message.type !== MessageType.App) return;
    this.leaderAppendOnly.observeAppendSent(
      message.from,
      message.term,
      message.index,
      message.logTerm,
      message.entries,
    );
    this.logMatching.observeEntries(
      message.index,
      message.logTerm,
      message.entries,
      `append ${message.from}→${message.to}`,
    );
  }

  applied(node: SimNode, entry: Entry, appliedBefore: number): void {
    this.stateMachineSafety.observeApply(node.id, appliedBefore, entry, node.stateMachine.digest);
  }

  restored(node: SimNode, snapshot: Snapshot): void {
    this.stateMachineSafety.observeRestore(node.id, snapshot.meta.index, node.stateMachine.digest);
  }

  readState(node: SimNode, readState: ReadState, ctx: string): void {
    this.linearizableReads.observeReadState(node.id, ctx, readState.index);
  }

  /** After every event: who leads, and does every leader hold what it must. */
  observeLeaders(nodes: Iterable<SimNode>): void {
    for (const node of nodes) {
      if (!node.isRunning) continue;
      const status = node.status();
      if (status.role !== 'leader') continue;
      const term = status.term;
      this.electionSafety.observeLeader(node.id, term);
      const view = durableLogView(node.durable.storage);
      this.leaderCompleteness.observeLeader(node.id, term, view);
      this.durability.observeLeader(node.id, term, view, node.stateMachine);
    }
  }
}
