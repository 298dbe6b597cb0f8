/**
 * The cancellation of one piece of work that may be abandoned: an SQS request (the client goes
 * away, its deadline passes, the server closes) or a forwarded operation the leader runs (the
 * follower cancels it, its wait ends, the leader steps down). Its AbortSignal is made on first
 * use: only work that waits (a long-polling receive) listens for the abort, and making a signal
 * costs every request about 1.5 % of a consuming node's main thread (Node's EventTarget set-up),
 * and every forwarded operation about as much of a three-node leader's. A signal asked for after
 * the abort is made aborted, with the same reason.
 */
export interface Cancellation {
  readonly signal: AbortSignal;
  abort(reason?: unknown): void;
}

export class LazyCancellation implements Cancellation {
  private controller: AbortController | undefined;
  private isAborted = false;
  private reason: unknown;

  get signal(): AbortSignal {
    if (this.controller === undefined) {
      this.controller = new AbortController();
      if (this.isAborted) this.controller.abort(this.reason);
    }
    return this.controller.signal;
  }

  abort(reason?: unknown): void {
    if (this.isAborted) return;
    this.isAborted = true;
    this.reason = reason;
    this.controller?.abort(reason);
  }
}
