/**
 * A sequential specification for the linearizability checker. `step` must be a pure function:
 * the search calls it many times on the same state.
 */
export interface Model<State, Input, Output> {
  init(): State;
  /**
   * The state after applying `input` to `state`, if the sequential object could answer `output`
   * there; undefined if it could not. `output` undefined means the answer is unknown (an info
   * operation): any answer is acceptable, only the state change matters.
   */
  step(state: State, input: Input, output: Output | undefined): State | undefined;
  /** A string equal for equal states: the search's cache key. */
  hashState(state: State): string;
  /** Operations with different keys never interact, so each key is checked on its own. */
  partitionKey(input: Input): string;
  describe(input: Input, output: Output | undefined): string;
}

/** One operation as the checker sees it: a call, a return (or none), an input and an output. */
export interface LinearizableOperation<Input, Output> {
  readonly process: number;
  readonly input: Input;
  /** Undefined when the outcome is unknown. */
  readonly output: Output | undefined;
  readonly callMs: number;
  /** Infinity for an operation whose outcome is unknown: it may take effect at any later time, or never. */
  readonly returnMs: number;
}
