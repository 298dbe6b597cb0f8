import type { Prng } from '../../../src/base/prng.js';
import type { RaftConfig, RaftFaults } from '../../../src/raft/raft-config.js';
import type { NodeId, RaftStorage } from '../../../src/raft/types.js';

/** The knobs of a RaftConfig a test may turn; whatever it leaves out takes the test default. */
export interface RaftTestTuning {
  readonly preVote?: boolean;
  readonly checkQuorum?: boolean;
  readonly electionTimeoutTicks?: number;
  readonly heartbeatTicks?: number;
  readonly inflightMessagesMax?: number;
  readonly inflightBytesMax?: number;
  readonly appendBytesMax?: number;
  readonly uncommittedBytesMax?: number;
  readonly faults?: RaftFaults;
}

/** What a harness supplies itself: the node, where it persists, and its randomness. */
export interface RaftTestNodeParts {
  readonly id: NodeId;
  readonly storage: RaftStorage;
  readonly prng: Prng;
  readonly applied?: number | undefined;
}

/**
 * A RaftConfig for a test node: an election timeout of 10 ticks and a heartbeat every tick (so
 * that scenarios stay short), a window of 256 appends, 1 MiB appends and 64 MiB of uncommitted
 * entries (so that no test meets a flow-control limit it did not ask for). PreVote and
 * CheckQuorum are the caller's default, since the one-node harness and the network differ.
 */
export function testRaftConfig(
  parts: RaftTestNodeParts,
  tuning: RaftTestTuning,
  defaults: { readonly preVote: boolean; readonly checkQuorum: boolean },
): RaftConfig {
  return {
    id: parts.id,
    storage: parts.storage,
    prng: parts.prng,
    electionTimeoutTicks: tuning.electionTimeoutTicks ?? 10,
    heartbeatTicks: tuning.heartbeatTicks ?? 1,
    inflightMessagesMax: tuning.inflightMessagesMax ?? 256,
    appendBytesMax: tuning.appendBytesMax ?? 1_048_576,
    uncommittedBytesMax: tuning.uncommittedBytesMax ?? 64 * 1_048_576,
    preVote: tuning.preVote ?? defaults.preVote,
    checkQuorum: tuning.checkQuorum ?? defaults.checkQuorum,
    ...(tuning.inflightBytesMax === undefined ? {} : { inflightBytesMax: tuning.inflightBytesMax }),
    ...(parts.applied === undefined ? {} : { applied: parts.applied }),
    ...(tuning.faults === undefined ? {} : { faults: tuning.faults }),
  };
}
