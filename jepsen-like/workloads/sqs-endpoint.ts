import { SQSClient } from '@aws-sdk/client-sqs';

/** The account id in the queue URLs the workloads build; raftq accepts any. */
export const workloadAccountId = '000000000000';

/**
 * One SQS endpoint a client talks to (a node, usually through its client proxy), with a real
 * @aws-sdk/client-sqs whose retries are off: every call the workload records is exactly one
 * request, so its outcome is honest. Calls are bounded by `requestTimeoutMs` through an abort
 * signal; a timed-out call is recorded as info.
 */
export class SqsEndpoint {
  readonly client: SQSClient;

  constructor(
    readonly node: string,
    readonly url: string,
    readonly requestTimeoutMs: number,
  ) {
    this.client = new SQSClient({
      endpoint: url,
      region: 'us-east-1',
      credentials: { accessKeyId: 'jepsen', secretAccessKey: 'jepsen' },
      maxAttempts: 1,
      // Talk to this endpoint, never to the host a queue URL names: the URL may name another node.
      useQueueUrlAsEndpoint: false,
    });
  }

  queueUrl(queueName: string): string {
    return `${this.url}/${workloadAccountId}/${queueName}`;
  }

  /** Options for one call: its own deadline. */
  callOptions(): { abortSignal: AbortSignal } {
    return { abortSignal: AbortSignal.timeout(this.requestTimeoutMs) };
  }

  destroy(): void {
    this.client.destroy();
  }
}
