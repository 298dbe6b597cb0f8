import type { HistoryRecorder } from '../history/history-recorder.js';
import type { SqsEndpoint } from './sqs-endpoint.js';
import { classifySqsError, type ClassifiedError } from './sqs-outcome.js';

/** What an operation's body returns: the ok value, or an answer the workload records as ok anyway. */
export type OperationResult = { readonly ok: unknown };

/**
 * One logical client: a process id in the history, and the node it currently talks to. Every
 * operation goes through `perform`, which records invoke and completion around exactly one
 * request. After a non-ok outcome the client moves to the next node, as a real client with a
 * list of endpoints would; after info the recorder gives it a new process id.
 */
export class ClientWorker {
  private process: number;
  private endpointIndex: number;

  constructor(
    private readonly recorder: HistoryRecorder,
    private readonly endpoints: readonly SqsEndpoint[],
    startEndpoint: number,
  ) {
    this.process = recorder.newProcess();
    this.endpointIndex = startEndpoint % endpoints.length;
  }

  get endpoint(): SqsEndpoint {
    const endpoint = this.endpoints[this.endpointIndex];
    if (endpoint === undefined) throw new RangeError('a client worker needs at least one endpoint');
    return endpoint;
  }

  /**
   * Runs `call` as operation `f` with arguments `value`. `answer` may turn an error into an ok
   * value (e.g. QueueDoesNotExist is an answer for the metadata register); otherwise the error is
   * classified as fail or info.
   */
  async perform(
    f: string,
    value: unknown,
    call: (endpoint: SqsEndpoint) => Promise<unknown>,
    answer?: (error: ClassifiedError) => unknown,
  ): Promise<{ outcome: 'ok' | 'fail' | 'info'; result: unknown }> {
    const endpoint = this.endpoint;
    this.recorder.invoke(this.process, f, value, endpoint.node);
    try {
      const result = await call(endpoint);
      this.process = this.recorder.complete(this.process, 'ok', result);
      return { outcome: 'ok', result };
    } catch (err) {
      const classified = classifySqsError(err);
      const answered = answer?.(classified);
      if (answered !== undefined) {
        this.process = this.recorder.complete(this.process, 'ok', answered);
        return { outcome: 'ok', result: answered };
      }
      this.process = this.recorder.complete(
        this.process,
        classified.outcome,
        null,
        `${classified.code}: ${classified.message}`,
      );
      this.endpointIndex = (this.endpointIndex + 1) % this.endpoints.length;
      return { outcome: classified.outcome, result: undefined };
    }
  }
}
