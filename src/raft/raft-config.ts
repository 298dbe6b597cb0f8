import { assert } from '../base/assert.js';
import { raftLimits } from '../base/limits.js';
import type { Prng } from '../base/prng.js';
import type { NodeId, RaftStorage } from './types.js';

/**
 * Deliberate faults, for tests only: each switch breaks one rule of Raft so that the simulator
 * can prove it notices. Never set in production; validateRaftConfig() accepts them only because
 * a test harness constructs the core directly.
 *
 * A fourth fault the simulator needs, "send before persist", is not a switch here: the order of
 * persisting and sending is the runtime's (the Ready contract), so the simulator's runtime breaks
 * it by sending a Ready's messages before writing its entries and hard state.
 */
export interface RaftFaults {
  /** Commit an entry of an earlier term once a majority stores it (Raft §5.4.2, Figure 8, forbids it). */
  readonly commitPreviousTermByCounting?: boolean;
  /** Grant a vote to any candidate even after voting for another in the same term (Raft §5.2). */
  readonly grantVoteTwicePerTerm?: boolean;
  /** Grant votes without checking that the candidate's log is at least as up-to-date (Raft §5.4.1). */
  readonly skipLogUpToDateCheck?: boolean;
  /** Hand entries out for applying once persisted here, before they commit (Raft §5.3 applies only committed entries); the whole-node simulator's. */
  readonly applyBeforeCommit?: boolean;
}

export interface RaftConfig {
  readonly id: NodeId;
  readonly storage: RaftStorage;
  readonly prng: Prng;
  /** Base election timeout; each node waits a random number of ticks in [base, 2 * base). */
  readonly electionTimeoutTicks: number;
  readonly heartbeatTicks: number;
  /** Last applied index at restart: committed entries up to it are not handed out again. */
  readonly applied?: number;
  /** Append messages in flight to one follower in replicate state. */
  readonly inflightMessagesMax: number;
  /** Entry bytes per append message (one entry may exceed it alone). */
  readonly appendBytesMax: number;
  /** Payload bytes of uncommitted entries a leader accepts before refusing proposals. */
  readonly uncommittedBytesMax: number;
  readonly preVote: boolean;
  readonly checkQuorum: boolean;
  /** Entry bytes in flight to one follower; defaults to raftLimits.inflightBytesMax. */
  readonly inflightBytesMax?: number;
  /** Committed entry bytes handed out in one Ready; defaults to raftLimits.readyCommittedBytesMax. */
  readonly readyCommittedBytesMax?: number;
  /** Test-only deliberate faults; see RaftFaults. */
  readonly faults?: RaftFaults;
}

/** A RaftConfig with every optional field resolved. */
export interface ResolvedRaftConfig extends Required<Omit<RaftConfig, 'applied' | 'faults'>> {
  readonly applied: number | null;
  readonly faults: RaftFaults;
}

/** Defaults from src/base/limits.ts for everything but identity, storage and randomness. */
export function defaultRaftConfig(): Omit<RaftConfig, 'id' | 'storage' | 'prng'> {
  return {
    electionTimeoutTicks: raftLimits.electionTimeoutTicks.value,
    heartbeatTicks: raftLimits.heartbeatTicks.value,
    inflightMessagesMax: raftLimits.inflightMessagesMax.value,
    appendBytesMax: raftLimits.appendBytesMax.value,
    uncommittedBytesMax: raftLimits.uncommittedBytesMax.value,
    preVote: true,
    checkQuorum: true,
  };
}

/** Rejects impossible combinations before they turn into subtle misbehaviour. */
export function validateRaftConfig(config: RaftConfig): ResolvedRaftConfig {
  assert(config.id !== '', 'raft config: id must not be empty');
  assert(config.heartbeatTicks >= 1, 'raft config: heartbeatTicks must be >= 1');
  assert(
    config.electionTimeoutTicks > config.heartbeatTicks,
    () =>
      `raft config: electionTimeoutTicks (${config.electionTimeoutTicks}) must exceed heartbeatTicks (${config.heartbeatTicks})`,
  );
  assert(config.inflightMessagesMax >= 1, 'raft config: inflightMessagesMax must be >= 1');
  assert(config.appendBytesMax >= 1, 'raft config: appendBytesMax must be >= 1');
  assert(config.uncommittedBytesMax >= 1, 'raft config: uncommittedBytesMax must be >= 1');
  const inflightBytesMax = config.inflightBytesMax ?? raftLimits.inflightBytesMax.value;
  assert(inflightBytesMax >= 1, 'raft config: inflightBytesMax must be >= 1');
  const readyCommittedBytesMax = config.readyCommittedBytesMax ?? raftLimits.readyCommittedBytesMax.value;
  assert(readyCommittedBytesMax >= 1, 'raft config: readyCommittedBytesMax must be >= 1');
  return {
    id: config.id,
    storage: config.storage,
    prng: config.prng,
    electionTimeoutTicks: config.electionTimeoutTicks,
    heartbeatTicks: config.heartbeatTicks,
    applied: config.applied ?? null,
    inflightMessagesMax: config.inflightMessagesMax,
    appendBytesMax: config.appendBytesMax,
    uncommittedBytesMax: config.uncommittedBytesMax,
    preVote: config.preVote,
    checkQuorum: config.checkQuorum,
    inflightBytesMax,
    readyCommittedBytesMax,
    faults: config.faults ?? {},
  };
}
