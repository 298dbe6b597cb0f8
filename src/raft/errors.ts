import { RaftqError, RetryableError } from '../base/errors.js';
import type { NodeId } from './types.js';

/** Why the core refused a proposal. */
export type ProposalDropReason =
  'notLeader' | 'transferInProgress' | 'uncommittedBytesMax' | 'confChangePending' | 'noCommitInTerm';

/**
 * The core refused a proposal or a read. Retryable: once a leader is known (`leaderId`) or the
 * condition clears, the same request may succeed. Nothing was appended to the log.
 */
export class ProposalDroppedError extends RetryableError {
  readonly code = 'ProposalDropped';

  constructor(
    readonly reason: ProposalDropReason,
    /** The leader this node knows of, or '' if none: where the runtime should forward. */
    readonly leaderId: NodeId | '',
    options?: { cause?: unknown },
  ) {
    super(`Proposal dropped: ${reason}${leaderId === '' ? '' : ` (leader is ${leaderId})`}`, options);
  }
}

/** A readIndex request that cannot be served: this node knows no leader to ask. */
export class ReadIndexDroppedError extends RetryableError {
  readonly code = 'ReadIndexDropped';

  constructor(options?: { cause?: unknown }) {
    super('Read index dropped: no known leader', options);
  }
}

/** A membership change that single-server changes cannot express (e.g. removing the last voter). */
export class ConfChangeInvalidError extends RaftqError {
  readonly code = 'ConfChangeInvalid';

  constructor(
    readonly kind: string,
    readonly nodeId: NodeId,
    readonly why: string,
    options?: { cause?: unknown },
  ) {
    super(`Conf change ${kind} ${nodeId} is invalid: ${why}`, options);
  }
}

/** The requested index lies before the first index the storage still holds. */
export class CompactedError extends RaftqError {
  readonly code = 'Compacted';

  constructor(
    readonly index: number,
    readonly firstIndex: number,
    options?: { cause?: unknown },
  ) {
    super(`Log index ${index} is compacted: first index is ${firstIndex}`, options);
  }
}

/** The requested index lies past the last index the storage holds. */
export class UnavailableError extends RaftqError {
  readonly code = 'Unavailable';

  constructor(
    readonly index: number,
    readonly lastIndex: number,
    options?: { cause?: unknown },
  ) {
    super(`Log index ${index} is unavailable: last index is ${lastIndex}`, options);
  }
}

/** A snapshot older than (or as old as) the one the storage already has. */
export class SnapshotOutOfDateError extends RaftqError {
  readonly code = 'SnapshotOutOfDate';

  constructor(
    readonly index: number,
    readonly currentIndex: number,
    options?: { cause?: unknown },
  ) {
    super(`Snapshot at index ${index} is out of date: storage already has a snapshot at ${currentIndex}`, options);
  }
}
