/**
 * deadLetters(): the dead letters of a source queue, with their causes, read without consuming
 * them (see dead-letter-scan.ts for what reading costs on SQS).
 *
 * The dead-letter queue is the one the source's RedrivePolicy names. A dead-letter queue may serve
 * several sources: only messages that came from this one are listed (by DeadLetterQueueSourceArn,
 * which raftq and AWS set when they move a message, or by the cause record's source).
 */
import { SQSClient, type Message, type MessageAttributeValue } from '@aws-sdk/client-sqs';
import {
  deadLetterCauseAttributeName,
  decodeDeadLetterCauseRecord,
  type DeadLetterCause,
} from '../base/dead-letter-cause.js';
import { raftqLimits } from '../base/limits.js';
import { checkInteger } from './consumer-options.js';
import { scanDeadLetterQueue } from './dead-letter-scan.js';
import { DeadLetterQueueMissingError } from './errors.js';
import { queueUrlOfArn, readQueueSettings, type QueueSettings } from './queue-settings.js';

export interface DeadLetter {
  /** Its id in the dead-letter queue: what replayDeadLetter() and deleteDeadLetter() take. */
  readonly messageId: string;
  /** Its id in the source queue: the same, except for a copy made by the plain-SQS fallback. */
  readonly sourceMessageId: string;
  readonly body: string;
  /** The delivery that gave up (1 = the first). */
  readonly receiveCount: number;
  /**
   * Why. A message the queue itself moved after maxReceiveCount deliveries — its consumer died or
   * was not this library — has the cause MaxReceiveCountExceeded.
   */
  readonly cause: DeadLetterCause;
  /** The producer's attributes, without the cause attribute. */
  readonly messageAttributes: Readonly<Record<string, MessageAttributeValue>>;
  readonly messageGroupId?: string;
  /** When the cause was recorded, if it was. */
  readonly deadLetteredAtMs?: number;
}

export interface DeadLettersOptions {
  /** The SOURCE queue, whose RedrivePolicy names the dead-letter queue. */
  readonly queueUrl: string;
  readonly client?: SQSClient;
  /** At most this many, 1 to deadLettersListedMax; 0 or absent: deadLettersListedDefault. */
  readonly max?: number;
}

export async function deadLetters(options: DeadLettersOptions): Promise<DeadLetter[]> {
  const max = options.max === undefined || options.max === 0 ? raftqLimits.deadLettersListedDefault.value : options.max;
  checkInteger('max', max, 1, raftqLimits.deadLettersListedMax.value);
  return withClient(options.client, async (client) => {
    const { source, deadLetterQueueUrl } = await locateDeadLetterQueue(client, options.queueUrl);
    const scan = await scanDeadLetterQueue(client, deadLetterQueueUrl, {
      isWanted: (m) => isFromSource(m, source),
      wantedMax: max,
    });
    return scan.wanted.map((m) => toDeadLetter(m, source));
  });
}

export async function locateDeadLetterQueue(
  client: SQSClient,
  queueUrl: string,
): Promise<{ source: QueueSettings; deadLetterQueueUrl: string }> {
  const source = await readQueueSettings(client, queueUrl);
  if (source.redrivePolicy === undefined) throw new DeadLetterQueueMissingError(queueUrl);
  return { source, deadLetterQueueUrl: await queueUrlOfArn(client, source.redrivePolicy.deadLetterTargetArn) };
}

export function isFromSource(message: Message, source: QueueSettings): boolean {
  const sourceArn = message.Attributes?.['DeadLetterQueueSourceArn'];
  if (sourceArn !== undefined) return sourceArn === source.queueArn;
  const causeText = message.MessageAttributes?.[deadLetterCauseAttributeName]?.StringValue;
  return causeText !== undefined && decodeDeadLetterCauseRecord(causeText)?.sourceQueueArn === source.queueArn;
}

export function toDeadLetter(message: Message, source: QueueSettings): DeadLetter {
  const messageId = message.MessageId ?? '';
  const { [deadLetterCauseAttributeName]: causeAttribute, ...messageAttributes } = message.MessageAttributes ?? {};
  const record =
    causeAttribute?.StringValue === undefined ? undefined : decodeDeadLetterCauseRecord(causeAttribute.StringValue);
  const maxReceiveCount = source.redrivePolicy?.maxReceiveCount ?? 0;
  const groupId = message.Attributes?.['MessageGroupId'];
  return {
    messageId,
    sourceMessageId: record?.sourceMessageId ?? messageId,
    body: message.Body ?? '',
    receiveCount: record?.receiveCount ?? maxReceiveCount,
    cause: record?.cause ?? {
      name: 'MaxReceiveCountExceeded',
      message: `The message was received ${maxReceiveCount} times without being deleted`,
    },
    messageAttributes,
    ...(groupId !== undefined ? { messageGroupId: groupId } : {}),
    ...(record !== undefined && record.deadLetteredAtMs > 0 ? { deadLetteredAtMs: record.deadLetteredAtMs } : {}),
  };
}

/** Runs `body` with the caller's client, or with one made from the environment and destroyed after. */
export async function withClient<T>(
  client: SQSClient | undefined,
  body: (client: SQSClient) => Promise<T>,
): Promise<T> {
  if (client !== undefined) return body(client);
  const owned = new SQSClient({});
  try {
    return await body(owned);
  } finally {
    owned.destroy();
  }
}
