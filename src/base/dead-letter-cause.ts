/**
 * Why a message was dead-lettered, as it travels with the message into the dead-letter queue.
 *
 * Two writers speak this format and one reader: the queue layer's MoveMessageToDeadLetterQueue
 * extension writes it inside the move transaction, the client library writes it itself when it
 * falls back to copy-then-delete against a plain SQS, and the client library's deadLetters()
 * reads it back. It lives in base because src/client may import nothing else of raftq.
 *
 * It is one message attribute (String, JSON), not several, because SQS allows 10 attributes per
 * message and a dead letter should keep as many of the producer's as possible. It carries the
 * error's name, code and public message, never a stack trace or a cause chain: whoever reads a
 * dead-letter queue is often not in the trust domain that failed.
 */
import { raftqLimits } from './limits.js';

/** The message attribute that holds the cause on a dead-letter copy. */
export const deadLetterCauseAttributeName = 'raftq.DeadLetterCause';

export interface DeadLetterCause {
  readonly name: string;
  readonly code?: string;
  readonly message: string;
}

export interface DeadLetterCauseRecord {
  readonly cause: DeadLetterCause;
  /** The delivery that failed: 1 = the first. */
  readonly receiveCount: number;
  /** The queue the message was dead-lettered from. */
  readonly sourceQueueArn: string;
  /** Its id there (a copy made by the client fallback gets a new id in the dead-letter queue). */
  readonly sourceMessageId: string;
  readonly deadLetteredAtMs: number;
}

/** Cuts name, code and message to the bounds the extension action accepts. */
export function boundDeadLetterCause(cause: DeadLetterCause): DeadLetterCause {
  const name = truncate(cause.name, raftqLimits.deadLetterCauseNameCharsMax.value);
  const message = truncate(cause.message, raftqLimits.deadLetterCauseMessageCharsMax.value);
  const code =
    cause.code === undefined ? undefined : truncate(cause.code, raftqLimits.deadLetterCauseCodeCharsMax.value);
  return code === undefined || code === '' ? { name, message } : { name, code, message };
}

export function encodeDeadLetterCauseRecord(record: DeadLetterCauseRecord): string {
  return JSON.stringify({
    name: record.cause.name,
    ...(record.cause.code !== undefined ? { code: record.cause.code } : {}),
    message: record.cause.message,
    receiveCount: record.receiveCount,
    sourceQueueArn: record.sourceQueueArn,
    sourceMessageId: record.sourceMessageId,
    deadLetteredAtMs: record.deadLetteredAtMs,
  });
}

/** The record in an attribute value, or undefined when the value is not one (never throws). */
export function decodeDeadLetterCauseRecord(text: string): DeadLetterCauseRecord | undefined {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (typeof raw !== 'object' || raw === null) return undefined;
  const r = raw as Record<string, unknown>;
  if (typeof r['name'] !== 'string' || typeof r['message'] !== 'string') return undefined;
  if (
    typeof r['receiveCount'] !== 'number' ||
    typeof r['sourceQueueArn'] !== 'string' ||
    typeof r['sourceMessageId'] !== 'string'
  )
    return undefined;
  const code = typeof r['code'] === 'string' ? r['code'] : undefined;
  return {
    cause:
      code === undefined
        ? { name: r['name'], message: r['message'] }
        : { name: r['name'], code, message: r['message'] },
    receiveCount: r['receiveCount'],
    sourceQueueArn: r['sourceQueueArn'],
    sourceMessageId: r['sourceMessageId'],
    deadLetteredAtMs: typeof r['deadLetteredAtMs'] === 'number' ? r['deadLetteredAtMs'] : 0,
  };
}

function truncate(text: string, charsMax: number): string {
  const chars = Array.from(text);
  return chars.length <= charsMax ? text : chars.slice(0, charsMax).join('');
}
