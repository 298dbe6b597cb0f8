/**
 * What a node tells about itself: its id and leader, its membership and whether it is a member,
 * the leader's view of replication, the applied index and term, its status, and observers of its
 * state database. These are the questions the rest of raftq asks a ClusterNode (cluster-node.ts)
 * without committing or reading anything; they stand apart from its lifecycle and its transaction,
 * read and forwarding API, and answer from the pieces NodeWiring (node-wiring.ts) holds.
 */
import type { Scheduler } from '../base/scheduler.js';
import { leaderProgress, type PeerProgressView } from './leader-progress.js';
import type { Membership } from './membership-record.js';
import type { NodeRole, NodeStatus } from './node-status-reporter.js';
import { NodeWiring } from './node-wiring.js';
import type { StateObserver } from './state-observer.js';
import type { StateStore } from './state-store.js';

export abstract class NodeQueries extends NodeWiring {
  // ---- leadership and membership helpers ----------------------------------------------------

  /** The node's timers and monotonic clock (the runtime's): forwarding's deadlines run on it too. */
  get scheduler(): Scheduler {
    return this.runtime.scheduler;
  }

  get id(): string {
    return this.config.id;
  }

  leaderId(): string {
    return this.leadership.leader;
  }

  isLeader(): boolean {
    return this.leadership.isLeader;
  }

  /**
   * Registers an observer of the state database (row counts, compaction): it hears of the current
   * state at once and of every applied run and state replacement after, inside the Ready loop.
   */
  observeState(observer: StateObserver): () => void {
    this.stateObservers.add(observer);
    this.runInLoop(() => observer.onStateOpened(this.state)).catch((error: unknown) =>
      this.logger.warn({ err: error }, 'a state observer failed to start'),
    );
    return () => this.stateObservers.delete(observer);
  }

  /** Called on every change of leader, role or membership. */
  onLeadershipChange(listener: () => void): () => void {
    return this.leadership.onChange(listener);
  }

  /** The leader's id, waiting up to `timeoutMs` for one to be known. */
  waitForLeader(timeoutMs: number): Promise<string> {
    return this.leadership.waitForLeader(timeoutMs);
  }

  membership(): Membership {
    return this.logStore.currentMembership();
  }

  /**
   * Whether this node's configuration includes it, as voter or learner. A node started with
   * --join is not a member until a member adds it and it has received that configuration; until
   * then it serves no reads or commits (NotMemberError at once: no leader will ever talk to it).
   */
  isMember(): boolean {
    const { voters, learners } = this.logStore.currentMembership().confState;
    return voters.includes(this.config.id) || learners.includes(this.config.id);
  }

  /** The leader's view of its members' replication (empty unless this node leads). */
  leaderProgress(): PeerProgressView[] {
    return leaderProgress({
      nodeId: this.config.id,
      isLeader: () => this.leadership.isLeader,
      raftStatus: () => this.raw.status(),
      peerLastHeardAgoMs: (peerId) => this.membershipAdmin.peerLastHeardAgoMs(peerId),
    });
  }

  appliedIndex(): number {
    return this.state.appliedIndex;
  }

  /**
   * A frozen LevelDB view of the whole state database and the index it holds (`raftq backup`).
   * Taken inside the loop, so no apply or snapshot install is halfway; the caller releases it.
   */
  freezeState(): Promise<{ reader: ReturnType<StateStore['engine']['snapshot']>; appliedIndex: number }> {
    return this.runInLoop(() => ({ reader: this.state.engine.snapshot(), appliedIndex: this.state.appliedIndex }));
  }

  // ---- status ------------------------------------------------------------------------------

  private role(): NodeRole {
    return this.reporter.role();
  }

  /** The Raft term this node is in (the whole-node simulator records leader changes by it). */
  currentTerm(): number {
    return this.raw.status().term;
  }

  status(): Promise<NodeStatus> {
    return this.reporter.status();
  }
}
