/**
 * Operating errors of the cluster runtime. Every one a caller can retry unchanged is a
 * RetryableError: a transaction carries its txnId into the retry, and the apply step answers a
 * repeated txnId with its first outcome, so a retry after any of them never applies twice.
 */
import { RaftqError, RetryableError } from '../base/errors.js';

/** This node could not hand the request to a leader: none is known, or the one it knew stepped down. */
export class NotLeaderError extends RetryableError {
  readonly code = 'NotLeader';
  constructor(
    readonly nodeId: string,
    /** The leader this node believes in now, or '' when it knows none. */
    readonly leaderHint: string,
    options?: { cause?: unknown },
  ) {
    super(
      `Node ${nodeId} cannot serve the request: ${leaderHint === '' ? 'no leader is known' : `the leader is ${leaderHint}`}`,
      options,
    );
  }
}

/**
 * An error another node's operation ended with, as it crossed the wire: its code, message and
 * retryability are the original's, so the gateway answers it exactly as that node would have.
 */
export class RemoteOperationError extends RaftqError {
  override readonly isRetryable: boolean;
  constructor(
    readonly code: string,
    message: string,
    isRetryable: boolean,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.isRetryable = isRetryable;
  }
}

/**
 * The stream that carried a forwarded operation broke before its answer came: the leader may or
 * may not have run it. Only an operation that is safe to repeat may be forwarded again.
 */
export class ForwardedOperationLostError extends RetryableError {
  readonly code = 'ForwardedOperationLost';
  constructor(
    readonly peerId: string,
    options?: { cause?: unknown },
  ) {
    super(`The stream to ${peerId} broke before the forwarded operation was answered`, options);
  }
}

/** No leader became known within the wait bound: the cluster has no quorum or is electing. */
export class NoLeaderError extends RetryableError {
  readonly code = 'NoLeader';
  constructor(
    readonly nodeId: string,
    readonly waitedMs: number,
    options?: { cause?: unknown },
  ) {
    super(`Node ${nodeId} knows no leader after waiting ${waitedMs} ms`, options);
  }
}

/**
 * Leadership moved while a proposal waited on this node; the entry may still commit. Never leaves
 * the cluster layer: the committer retries the txn (same txnId) with the new leader.
 */
export class LeadershipLostError extends Error {
  constructor(readonly txnId: string) {
    super(`Leadership moved while txn ${txnId} was pending`);
    this.name = 'LeadershipLostError';
  }
}

/**
 * The proposal left this node but its fate is unknown: the leader changed, the forward call failed
 * mid-flight, or it did not apply within the timeout. It may still commit; retry with the same txnId.
 */
export class ProposalOutcomeUnknownError extends RetryableError {
  readonly code = 'ProposalOutcomeUnknown';
  constructor(
    readonly txnId: string,
    readonly reason: string,
    options?: { cause?: unknown },
  ) {
    super(`The outcome of txn ${txnId} is unknown: ${reason}`, options);
  }
}

/** A linearizable read could not confirm the leader's commit index in time. */
export class ReadIndexTimeoutError extends RetryableError {
  readonly code = 'ReadIndexTimeout';
  constructor(
    readonly nodeId: string,
    readonly waitedMs: number,
    options?: { cause?: unknown },
  ) {
    super(`Node ${nodeId} could not confirm a read index within ${waitedMs} ms`, options);
  }
}

/** The node is shutting down and accepts no new work. */
export class NodeStoppingError extends RetryableError {
  readonly code = 'NodeStopping';
  constructor(readonly nodeId: string) {
    super(`Node ${nodeId} is shutting down`);
  }
}

/** A membership change or leader transfer the cluster refused (bad id, change in progress, not leader). */
export class MembershipChangeError extends RaftqError {
  readonly code = 'MembershipChange';
  /** A timeout, a leader change or another change still applying: the same request may succeed later (admin answers 503, not 409). */
  override readonly isRetryable: boolean;
  constructor(
    readonly action: string,
    readonly detail: string,
    options?: { cause?: unknown; isRetryable?: boolean },
  ) {
    super(`Cannot ${action}: ${detail}`, options);
    this.isRetryable = options?.isRetryable ?? false;
  }
}

/** A node configuration that cannot work (bad address, own id missing from the peers, …). */
export class InvalidNodeConfigError extends RaftqError {
  readonly code = 'InvalidNodeConfig';
  constructor(
    readonly field: string,
    readonly detail: string,
  ) {
    super(`Invalid node configuration: ${field}: ${detail}`);
  }
}

/** A snapshot stream that broke, failed its checksum, or could not be installed. */
export class SnapshotTransferError extends RaftqError {
  readonly code = 'SnapshotTransfer';
  constructor(
    readonly peerId: string,
    readonly detail: string,
    options?: { cause?: unknown },
  ) {
    super(`Snapshot transfer with ${peerId} failed: ${detail}`, options);
  }
}

/**
 * The Raft log database under `path` is damaged where the node cannot repair it from its peers
 * (its hard state, snapshot record or membership record, or entries at or below its compaction
 * point), or was written in an older format. Starting would mean voting or serving from a log the
 * node cannot trust, so it refuses. Repair: remove the node from the cluster, wipe its data
 * directory and add it back as a new member (see docs/architecture/cluster.md).
 */
export class RaftLogDamagedError extends RaftqError {
  readonly code = 'RaftLogDamaged';
  constructor(
    readonly path: string,
    readonly detail: string,
    options?: { cause?: unknown },
  ) {
    super(
      `The Raft log in ${path} cannot be trusted: ${detail}. The node will not start from it. To repair: ` +
        '`raftq members remove ID` through another node, delete this data directory, start the node with --join, then `raftq members add ID=HOST:PORT`',
      options,
    );
  }
}
