/**
 * The cancellation of one SQS request: aborted when the client goes away, the request's deadline
 * passes or the server closes. Its AbortSignal is made on first use: only a receive that waits
 * (and a forwarded operation) listens for the abort, and making a signal cost every request about
 * 1.5 % of a consuming node's main thread (Node's EventTarget set-up). A signal asked for after
 * the abort is made aborted, with the same reason.
 */
export interface Cancellation {
  readonly signal: AbortSignal;
  abort(reason?: unknown): void;
}

export class RequestCancellation implements Cancellation {
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
