/**
 * Receipt handles: base64url of "version:partition:generation:queueTag:messageId:token".
 * Version 1 is for queues with one partition, version 2 for partitioned (high-throughput FIFO)
 * queues, so a handle can never be used against a queue of the other shape. `queueTag` is an
 * FNV-1a hash of the queue name: a handle presented to another queue is rejected as invalid
 * instead of being looked up there.
 */
import { Buffer } from 'node:buffer';
import { assert } from '../base/assert.js';
import { ReceiptHandleIsInvalidError } from './errors.js';
import { fnv1a32 } from './partitioning.js';

export interface ReceiptHandleParts {
  readonly version: 1 | 2;
  readonly partition: number;
  readonly generation: number;
  readonly queueTag: number;
  readonly messageId: string;
  readonly token: string;
}

const separator = ':';
const handleLengthMax = 1024;

export function queueTagOf(queueName: string): number {
  return fnv1a32(queueName);
}

export function encodeReceiptHandle(parts: Omit<ReceiptHandleParts, 'queueTag'> & { queueName: string }): string {
  assert(
    !parts.messageId.includes(separator) && !parts.token.includes(separator),
    'message ids and receipt tokens must not contain ":"',
  );
  const fields = [
    parts.version,
    parts.partition,
    parts.generation,
    queueTagOf(parts.queueName).toString(16),
    parts.messageId,
    parts.token,
  ];
  return Buffer.from(fields.join(separator), 'utf8').toString('base64url');
}

export function decodeReceiptHandle(handle: string): ReceiptHandleParts {
  const invalid = (reason: string) => new ReceiptHandleIsInvalidError(handle, reason);
  if (handle.length === 0 || handle.length > handleLengthMax || !/^[A-Za-z0-9_-]+$/.test(handle))
    throw invalid('not a receipt handle');
  const fields = Buffer.from(handle, 'base64url').toString('utf8').split(separator);
  if (fields.length !== 6) throw invalid('not a receipt handle');
  const [versionText, partitionText, generationText, tagText, messageId, token] = fields as [
    string,
    string,
    string,
    string,
    string,
    string,
  ];
  const version = Number(versionText);
  const partition = Number(partitionText);
  const generation = Number(generationText);
  const queueTag = Number.parseInt(tagText, 16);
  if (version !== 1 && version !== 2) throw invalid(`unknown handle version ${versionText}`);
  if (!/^\d{1,3}$/.test(partitionText) || !/^\d{1,15}$/.test(generationText) || !/^[0-9a-f]{1,8}$/.test(tagText))
    throw invalid('not a receipt handle');
  if (messageId === '' || token === '') throw invalid('not a receipt handle');
  return { version, partition, generation, queueTag, messageId, token };
}

/**
 * Checks a decoded handle against the queue it was presented to: same queue, same generation,
 * same shape (version), partition in range (docs/TRAPS.md, trap 14).
 */
export function checkReceiptHandle(
  handle: string,
  parts: ReceiptHandleParts,
  queue: { name: string; generation: number; partitionCount: number },
): void {
  const invalid = (reason: string) => new ReceiptHandleIsInvalidError(handle, reason);
  if (parts.queueTag !== queueTagOf(queue.name)) throw invalid('the handle belongs to another queue');
  const expectedVersion = queue.partitionCount > 1 ? 2 : 1;
  if (parts.version !== expectedVersion) throw invalid(`a version ${parts.version} handle does not fit this queue`);
  if (parts.partition >= queue.partitionCount) throw invalid(`partition ${parts.partition} is out of range`);
  if (parts.generation !== queue.generation)
    throw invalid('the handle belongs to a purged or deleted generation of the queue');
}
