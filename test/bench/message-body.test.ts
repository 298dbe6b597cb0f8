import { describe, expect, it } from 'vitest';
import {
  bodyTemplate,
  nowEpochMicros,
  readTimestampMicros,
  timestampDigits,
  writeTimestamp,
} from '../../bench/load/message-body.js';
import { buildSendTemplate, parseJsonResponse } from '../../bench/load/sqs-driver.js';
import { etcdPartitionPrefix, prefixRangeEnd } from '../../bench/load/etcd-driver.js';

describe('message bodies and pre-built requests', () => {
  it('a body has exactly the asked size and carries the send time it was stamped with', () => {
    const body = bodyTemplate(1024);
    expect(body.length).toBe(1024);
    expect(readTimestampMicros(body)).toBeNull();
    const micros = nowEpochMicros();
    writeTimestamp(body, 0, micros);
    expect(readTimestampMicros(body)).toBe(micros);
    expect(readTimestampMicros(body.toString('latin1'))).toBe(micros);
    expect(body.length).toBe(1024);
  });

  it('the timestamp survives base64 when encoded apart from the rest of the body', () => {
    const body = bodyTemplate(100);
    writeTimestamp(body, 0, 1_700_000_000_123_456);
    const split =
      body.subarray(0, timestampDigits).toString('base64') + body.subarray(timestampDigits).toString('base64');
    expect(split).toBe(body.toString('base64'));
    expect(readTimestampMicros(Buffer.from(split.slice(0, 24), 'base64'))).toBe(1_700_000_000_123_456);
  });

  it('a pre-built SendMessage is valid JSON whose stamped body reads back', () => {
    const template = buildSendTemplate('http://127.0.0.1:9324/000000000000/q', 100, 1);
    writeTimestamp(template.request, template.timestampOffsets[0] ?? -1, 123_456_789);
    const parsed = JSON.parse(template.request.toString('latin1')) as { QueueUrl: string; MessageBody: string };
    expect(parsed.QueueUrl).toBe('http://127.0.0.1:9324/000000000000/q');
    expect(parsed.MessageBody).toHaveLength(100);
    expect(readTimestampMicros(parsed.MessageBody)).toBe(123_456_789);
  });

  it('a pre-built SendMessageBatch has ten distinct entry ids and a timestamp slot in each body', () => {
    const template = buildSendTemplate('http://h/1/q', 65_536, 10);
    expect(template.timestampOffsets).toHaveLength(10);
    template.timestampOffsets.forEach((offset, i) => writeTimestamp(template.request, offset, 1_000 + i));
    const parsed = JSON.parse(template.request.toString('latin1')) as {
      Entries: { Id: string; MessageBody: string }[];
    };
    expect(new Set(parsed.Entries.map((e) => e.Id)).size).toBe(10);
    expect(parsed.Entries.map((e) => readTimestampMicros(e.MessageBody))).toEqual(
      Array.from({ length: 10 }, (_, i) => 1_000 + i),
    );
    expect(parsed.Entries.every((e) => e.MessageBody.length === 65_536)).toBe(true);
  });

  it('reads an empty response body as an empty object', () => {
    expect(parseJsonResponse('')).toEqual({});
    expect(parseJsonResponse('{"Messages":[]}')).toEqual({ Messages: [] });
  });

  it('an etcd partition range covers its own keys and no other partition', () => {
    const prefix = etcdPartitionPrefix('bench-1', 7);
    const end = prefixRangeEnd(prefix);
    const inRange = (key: string): boolean => key >= prefix && key < end;
    expect(inRange(`${prefix}0003-000000000001`)).toBe(true);
    expect(inRange(`${etcdPartitionPrefix('bench-1', 8)}0003-000000000001`)).toBe(false);
    expect(inRange(`${etcdPartitionPrefix('bench-1', 70)}0000-000000000000`)).toBe(false);
  });
});
