/** The invariants the simulator checks; each has its own checker in this folder. */
export type InvariantName =
  | 'electionSafety'
  | 'leaderAppendOnly'
  | 'logMatching'
  | 'leaderCompleteness'
  | 'stateMachineSafety'
  | 'durability'
  | 'monotonicity'
  | 'linearizableReads'
  | 'persistBeforeSend'
  | 'liveness';

/**
 * A checker saw a history that Raft forbids. The simulation stops the run at the first one and
 * reports it with the seed and the event number, so that the run can be replayed.
 */
export class InvariantViolationError extends Error {
  override readonly name = 'InvariantViolationError';

  constructor(
    readonly invariant: InvariantName,
    readonly detail: string,
  ) {
    super(`${invariant}: ${detail}`);
  }
}
