/**
 * The vocabulary of the Raft core, shaped after etcd-io/raft. These types cross the boundary
 * between the pure core (src/raft) and the runtime (src/cluster), which maps them to and from
 * proto/raft.proto. Indexes and terms are safe integers (2^53 entries is beyond any log we keep).
 */

export type NodeId = string;

export const enum EntryType {
  /** An application proposal (a batch of transactions) or, with empty data, the leader's no-op. */
  Normal = 0,
  /** A membership change; `data` is an encoded ConfChange (see conf-change.ts). */
  ConfChange = 1,
}

export interface Entry {
  readonly term: number;
  readonly index: number;
  readonly type: EntryType;
  readonly data: Uint8Array;
}

/** What must be durable before any message that depends on it is sent (Raft §5.1, Figure 2). */
export interface HardState {
  readonly term: number;
  readonly vote: NodeId | '';
  readonly commit: number;
}

/** Voters and learners of a configuration. */
export interface ConfState {
  readonly voters: readonly NodeId[];
  readonly learners: readonly NodeId[];
}

export type ConfChangeKind = 'addLearner' | 'addVoter' | 'removeNode';

export interface ConfChange {
  readonly kind: ConfChangeKind;
  readonly nodeId: NodeId;
  /** Opaque to the core: the runtime stores the peer's address here. */
  readonly context: Uint8Array;
}

export interface SnapshotMeta {
  readonly index: number;
  readonly term: number;
  readonly confState: ConfState;
}

/**
 * A snapshot as the core sees it: metadata plus opaque data. The runtime streams the real state
 * in chunks; inside the core `data` may be a small handle that names that state.
 */
export interface Snapshot {
  readonly meta: SnapshotMeta;
  readonly data: Uint8Array;
}

export const enum MessageType {
  Hup = 0,
  Beat = 1,
  Prop = 2,
  App = 3,
  AppResp = 4,
  Vote = 5,
  VoteResp = 6,
  PreVote = 7,
  PreVoteResp = 8,
  Snap = 9,
  Heartbeat = 10,
  HeartbeatResp = 11,
  TimeoutNow = 12,
  ReadIndex = 13,
  ReadIndexResp = 14,
  TransferLeader = 15,
  SnapStatus = 16,
  Unreachable = 17,
  CheckQuorum = 18,
}

/** A Raft protocol message (named RaftMessage so that "message" stays an SQS message). */
export interface RaftMessage {
  readonly type: MessageType;
  readonly from: NodeId;
  readonly to: NodeId;
  readonly term: number;
  /** App: index of the entry before `entries`; AppResp: the index acknowledged or rejected. */
  readonly index: number;
  /** App: term of the entry at `index`. */
  readonly logTerm: number;
  readonly entries: readonly Entry[];
  readonly commit: number;
  readonly reject: boolean;
  /** AppResp rejections: the follower's hint for fast back-off (last index it may match). */
  readonly rejectHint: number;
  /** Term of the entry at rejectHint, for the leader to skip whole terms on back-off. */
  readonly rejectHintTerm: number;
  readonly snapshot: Snapshot | null;
  /** ReadIndex request context, echoed in the response and the ReadState. */
  readonly context: Uint8Array;
}

/** A linearizable read is safe once the local replica has applied `index`. */
export interface ReadState {
  readonly index: number;
  readonly requestCtx: Uint8Array;
}

export type StateRole = 'follower' | 'candidate' | 'precandidate' | 'leader';

export interface SoftState {
  readonly leader: NodeId | '';
  readonly role: StateRole;
}

/**
 * What the runtime must do, in order: persist hardState, entries and snapshot in one synced
 * write; then send messages; then apply committedEntries (and snapshot, if any); then advance().
 */
export interface Ready {
  readonly softState: SoftState | null;
  readonly hardState: HardState | null;
  readonly entries: readonly Entry[];
  readonly snapshot: Snapshot | null;
  readonly committedEntries: readonly Entry[];
  readonly messages: readonly RaftMessage[];
  readonly readStates: readonly ReadState[];
}

/**
 * The log and state the core reads. The runtime implements it over LevelDB; MemoryRaftStorage
 * implements it in memory for tests and the simulator. Every method is synchronous: the runtime
 * keeps an in-memory mirror of the durable log tail.
 */
export interface RaftStorage {
  initialState(): { hardState: HardState; confState: ConfState };
  /** Entries in [lo, hi), at most maxBytes total (but at least one entry). */
  entries(lo: number, hi: number, maxBytes: number): Entry[];
  /** Term of the entry at index; throws CompactedError / UnavailableError outside the log. */
  term(index: number): number;
  firstIndex(): number;
  lastIndex(): number;
  snapshot(): Snapshot;
}
