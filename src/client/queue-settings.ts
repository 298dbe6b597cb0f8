/**
 * What the library needs to know about a queue before it consumes from it or reads its dead
 * letters: its ARN, type, visibility timeout and RedrivePolicy, read once with GetQueueAttributes,
 * and the URL of its dead-letter queue, resolved from the policy's ARN with GetQueueUrl.
 */
import { GetQueueAttributesCommand, GetQueueUrlCommand, type SQSClient } from '@aws-sdk/client-sqs';
import { QueueFailedError } from './errors.js';

export interface RedrivePolicy {
  readonly deadLetterTargetArn: string;
  readonly maxReceiveCount: number;
}

export interface QueueSettings {
  readonly queueUrl: string;
  readonly queueArn: string;
  readonly isFifo: boolean;
  readonly visibilityTimeoutSeconds: number;
  readonly redrivePolicy?: RedrivePolicy;
}

export async function readQueueSettings(
  client: SQSClient,
  queueUrl: string,
  signal?: AbortSignal,
): Promise<QueueSettings> {
  let attributes: Record<string, string>;
  try {
    const output = await client.send(
      new GetQueueAttributesCommand({
        QueueUrl: queueUrl,
        AttributeNames: ['QueueArn', 'FifoQueue', 'VisibilityTimeout', 'RedrivePolicy'],
      }),
      signal === undefined ? {} : { abortSignal: signal },
    );
    attributes = output.Attributes ?? {};
  } catch (error) {
    throw new QueueFailedError(queueUrl, 'GetQueueAttributes', { cause: error });
  }
  const redrivePolicy = parseRedrivePolicy(attributes['RedrivePolicy']);
  return {
    queueUrl,
    queueArn: attributes['QueueArn'] ?? '',
    isFifo: attributes['FifoQueue'] === 'true' || queueUrl.endsWith('.fifo'),
    visibilityTimeoutSeconds: Number(attributes['VisibilityTimeout'] ?? '30'),
    ...(redrivePolicy !== undefined ? { redrivePolicy } : {}),
  };
}

function parseRedrivePolicy(text: string | undefined): RedrivePolicy | undefined {
  if (text === undefined || text === '') return undefined;
  try {
    const raw = JSON.parse(text) as { deadLetterTargetArn?: unknown; maxReceiveCount?: unknown };
    const maxReceiveCount = Number(raw.maxReceiveCount);
    if (typeof raw.deadLetterTargetArn !== 'string' || !Number.isInteger(maxReceiveCount) || maxReceiveCount < 1)
      return undefined;
    return { deadLetterTargetArn: raw.deadLetterTargetArn, maxReceiveCount };
  } catch {
    return undefined;
  }
}

const deadLetterQueueUrls = new WeakMap<SQSClient, Map<string, string>>();

/** The URL of the queue an ARN (arn:PARTITION:sqs:REGION:ACCOUNT:NAME) names, cached per client. */
export async function queueUrlOfArn(client: SQSClient, arn: string): Promise<string> {
  let cache = deadLetterQueueUrls.get(client);
  if (cache === undefined) {
    cache = new Map();
    deadLetterQueueUrls.set(client, cache);
  }
  const cached = cache.get(arn);
  if (cached !== undefined) return cached;
  const parts = arn.split(':');
  const queueName = parts[5];
  const accountId = parts[4];
  if (parts.length !== 6 || parts[2] !== 'sqs' || queueName === undefined || queueName === '') {
    throw new QueueFailedError(arn, 'GetQueueUrl', { cause: new Error(`${arn} is not an SQS queue ARN`) });
  }
  try {
    const output = await client.send(
      new GetQueueUrlCommand({
        QueueName: queueName,
        ...(accountId !== undefined && accountId !== '' ? { QueueOwnerAWSAccountId: accountId } : {}),
      }),
    );
    if (output.QueueUrl === undefined) throw new Error('GetQueueUrl answered without a QueueUrl');
    cache.set(arn, output.QueueUrl);
    return output.QueueUrl;
  } catch (error) {
    throw new QueueFailedError(arn, 'GetQueueUrl', { cause: error });
  }
}
