/**
 * What AWS counts toward a message's size, for MaximumMessageSize, the 1 MiB message limit and the
 * SendMessageBatch total: the body's UTF-8 bytes and, for each message attribute, its name, its
 * data type and its value ("all parts of the message attribute, including Name, Type, and Value").
 * Message system attributes (AWSTraceHeader) do not count. The one place that sums these: the
 * gateway and the queue layer both call it, so they cannot disagree about a message's size.
 */
import { Buffer } from 'node:buffer';
import type { MessageAttributes, MessageAttributeValue } from './queue-api.js';

/**
 * Name, type and value bytes of one attribute. Every value the attribute carries counts: a valid
 * attribute has one, but the batch total is taken before entries are validated, over what was sent.
 */
export function messageAttributeSizeBytes(name: string, value: MessageAttributeValue): number {
  let size = Buffer.byteLength(name, 'utf8') + Buffer.byteLength(value.dataType, 'utf8');
  if (value.stringValue !== undefined) size += Buffer.byteLength(value.stringValue, 'utf8');
  if (value.binaryValue !== undefined) size += value.binaryValue.byteLength;
  return size;
}

/** Body plus every message attribute. */
export function messageSizeBytes(body: string, attributes: MessageAttributes): number {
  let size = Buffer.byteLength(body, 'utf8');
  for (const [name, value] of Object.entries(attributes)) size += messageAttributeSizeBytes(name, value);
  return size;
}
