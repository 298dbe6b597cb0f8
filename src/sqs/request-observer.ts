/**
 * What the gateway tells its observer about each answered request: the node counts them in
 * /metrics (raftq_sqs_requests_total, raftq_sqs_request_duration_seconds) and, with
 * --access-log, writes one log line per request.
 */
import type { ModelStructure } from './service-model.js';
import { tryQueueNameFromUrl } from './queue-url.js';

export interface SqsRequestRecord {
  /** The action the request named, when it named a known one. */
  readonly action: string | undefined;
  /** The queue it addressed (QueueUrl or QueueName), when it named one. */
  readonly queueName: string | undefined;
  readonly status: number;
  /** 'OK', or the AWS error code of the answer. */
  readonly code: string;
  readonly durationMs: number;
}

export type SqsRequestObserver = (record: SqsRequestRecord) => void;

/** The queue a decoded request addresses, for logs and metrics only. */
export function queueNameOfInput(input: ModelStructure): string | undefined {
  const url = input['QueueUrl'];
  if (typeof url === 'string') return tryQueueNameFromUrl(url);
  const name = input['QueueName'];
  return typeof name === 'string' ? name : undefined;
}
