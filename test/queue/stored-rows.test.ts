/**
 * The queue layer's JSON rows and global keys decode only as their encoders write them: anything
 * else (a damaged disk, a format this node does not know) fails with StoredRowInvalidError where
 * it is read, naming the row and the field, instead of passing on as an object of the wrong shape.
 */
import { describe, expect, it } from 'vitest';
import { encodeKey } from '../../src/storage/key-codec.js';
import { decodeAttemptRow, encodeAttemptRow } from '../../src/queue/layout/attempt-row.js';
import { decodeDedupRow, encodeDedupRow } from '../../src/queue/layout/dedup-row.js';
import { globalKeyParts, globalKeys, isQueueMetaKey, queueKeys } from '../../src/queue/layout/key-layout.js';
import { decodeTask, encodeTask, type MoveTaskRecord } from '../../src/queue/layout/move-task-row.js';
import { decodeQueueMeta, encodeQueueMeta, type QueueMetaRecord } from '../../src/queue/layout/queue-meta.js';
import { decodeReceiveState } from '../../src/queue/layout/receive-state.js';
import { StoredJsonRow, StoredRowInvalidError } from '../../src/queue/layout/stored-json-row.js';

const json = (value: unknown): Uint8Array => new TextEncoder().encode(JSON.stringify(value));

function invalidReason(decode: () => unknown): string {
  try {
    decode();
  } catch (error) {
    expect(error).toBeInstanceOf(StoredRowInvalidError);
    return (error as StoredRowInvalidError).message;
  }
  throw new Error('decoded a row that is not what its encoder writes');
}

describe('StoredJsonRow', () => {
  it('refuses bytes that are not a JSON object', () => {
    for (const bytes of [
      Uint8Array.of(0xff, 0xfe),
      new TextEncoder().encode('{"a":'),
      json([1]),
      json('text'),
      json(null),
    ])
      invalidReason(() => StoredJsonRow.parse(bytes, 'test'));
  });

  it('hands out each field only as the type asked for, and names the field it refuses', () => {
    const row = StoredJsonRow.parse(
      json({ s: 'x', n: 1.5, i: 3, m: { a: 'b' }, bad: { a: 1 }, list: [{ k: 'v' }, 3], nil: null }),
      'test',
    );
    expect(row.string('s')).toBe('x');
    expect(row.number('n')).toBe(1.5);
    expect(row.integer('i', 1)).toBe(3);
    expect(row.stringMap('m')).toEqual({ a: 'b' });
    expect(row.optionalString('absent')).toBeUndefined();
    expect(row.optionalNumber('nil')).toBeUndefined();
    expect(invalidReason(() => row.string('n'))).toContain('"n"');
    expect(invalidReason(() => row.number('s'))).toContain('"s"');
    expect(invalidReason(() => row.integer('n'))).toContain('"n"');
    expect(invalidReason(() => row.integer('i', 4))).toContain('at least 4');
    expect(invalidReason(() => row.stringMap('bad'))).toContain('"bad"');
    expect(invalidReason(() => row.oneOf('s', ['y', 'z']))).toContain('one of y, z');
    expect(invalidReason(() => row.objects('list'))).toContain('not a JSON object');
    expect(invalidReason(() => row.optionalNumber('s'))).toContain('"s"');
  });
});

describe('the queue layer’s JSON rows', () => {
  it('a deduplication row: what its encoder wrote, or invalid', () => {
    const row = { messageId: 'm-1', sequenceNumber: '00000000000000000001', expiresAtMs: 1_700_000_300_000 };
    expect(decodeDedupRow(encodeDedupRow(row))).toEqual(row);
    expect(invalidReason(() => decodeDedupRow(json({ ...row, expiresAtMs: '1' })))).toContain('"expiresAtMs"');
    expect(invalidReason(() => decodeDedupRow(json({ messageId: 'm-1', expiresAtMs: 1 })))).toContain(
      '"sequenceNumber"',
    );
  });

  it('a receive-attempt row: what its encoder wrote, or invalid', () => {
    const row = {
      expiresAtMs: 1_700_000_300_000,
      claims: [
        { partition: 0, messageId: 'm-1', token: 't-1' },
        { partition: 3, messageId: 'm-2', token: '' },
      ],
    };
    expect(decodeAttemptRow(encodeAttemptRow(row))).toEqual(row);
    expect(invalidReason(() => decodeAttemptRow(json({ ...row, claims: {} })))).toContain('"claims"');
    expect(
      invalidReason(() => decodeAttemptRow(json({ ...row, claims: [{ partition: -1, messageId: 'm', token: '' }] }))),
    ).toContain('"partition"');
  });

  it('a queue meta row: what its encoder wrote, or invalid', () => {
    const record: QueueMetaRecord = {
      name: 'orders',
      generation: 2,
      attributes: { VisibilityTimeout: '30' },
      tags: { team: 'a' },
      createdAtMs: 1_700_000_000_000,
      lastModifiedAtMs: 1_700_000_000_500,
      lastPurgeAtMs: 1_700_000_000_400,
      partitionCount: 1,
    };
    const { config: _config, ...decoded } = decodeQueueMeta(encodeQueueMeta(record));
    expect(decoded).toEqual(record);
    const { lastPurgeAtMs: _purge, ...neverPurged } = record;
    const { config: _c, ...decodedNeverPurged } = decodeQueueMeta(encodeQueueMeta(neverPurged));
    expect(decodedNeverPurged).toEqual(neverPurged);
    expect(invalidReason(() => decodeQueueMeta(json({ ...record, generation: 0 })))).toContain('"generation"');
    expect(invalidReason(() => decodeQueueMeta(json({ ...record, tags: { team: 5 } })))).toContain('"tags"');
  });

  it('a move task row: what its encoder wrote, or invalid', () => {
    const task: MoveTaskRecord = {
      taskHandle: 'aGFuZGxl',
      status: 'RUNNING',
      sourceArn: 'arn:aws:sqs:us-east-1:000000000000:dlq',
      destinationArn: 'arn:aws:sqs:us-east-1:000000000000:orders',
      approximateNumberOfMessagesMoved: 4,
      approximateNumberOfMessagesToMove: 10,
      startedTimestampMs: 1_700_000_000_000,
      taskId: 'task-1',
      lastStepAtMs: 1_700_000_000_100,
    };
    expect(decodeTask(encodeTask(task))).toEqual(task);
    expect(invalidReason(() => decodeTask(json({ ...task, status: 'PAUSED' })))).toContain('"status"');
    expect(invalidReason(() => decodeTask(json({ ...task, lastStepAtMs: undefined })))).toContain('"lastStepAtMs"');
  });

  it('a receive state of the older JSON layout: its fields, or invalid', () => {
    expect(decodeReceiveState(json({ v: 5_000, n: 2, f: 1_000, c: 4_000, t: 'tok' })).state).toEqual({
      visibleAtMs: 5_000,
      receiveCount: 2,
      firstReceiveAtMs: 1_000,
      claimedAtMs: 4_000,
      receiptToken: 'tok',
    });
    expect(invalidReason(() => decodeReceiveState(json({ v: 5_000, n: 'two' })))).toContain('"n"');
  });
});

describe('the global keys', () => {
  it('decode as their encoders wrote them', () => {
    expect(globalKeyParts.queueIndexName(globalKeys.queueIndex('orders'))).toBe('orders');
    expect(globalKeyParts.deadLetterSourceName(globalKeys.deadLetterSource('dlq', 'orders'))).toBe('orders');
    expect(globalKeyParts.tombstone(globalKeys.tombstone('orders', 7))).toEqual({ queueName: 'orders', generation: 7 });
    expect(globalKeyParts.moveTaskSourceArn(globalKeys.moveTask('arn:source', 'handle'))).toBe('arn:source');
  });

  it('refuse a key of another family or shape', () => {
    invalidReason(() => globalKeyParts.queueIndexName(globalKeys.tombstone('orders', 7)));
    invalidReason(() => globalKeyParts.tombstone(encodeKey(['tomb', 'orders', 'seven'])));
    invalidReason(() => globalKeyParts.queueIndexName(encodeKey(['queues', 'orders', 'extra'])));
  });

  it('tell a queue meta key from the queue’s other keys', () => {
    expect(isQueueMetaKey(queueKeys.meta('orders'))).toBe(true);
    expect(isQueueMetaKey(queueKeys.generation('orders'))).toBe(false);
    expect(isQueueMetaKey(globalKeys.queueIndex('orders'))).toBe(false);
  });

  it('range over the queue names that start with a prefix', () => {
    const range = globalKeys.queueIndexNamePrefixRange('ord');
    const isIn = (name: string): boolean => {
      const key = globalKeys.queueIndex(name);
      return Buffer.compare(key, range.gte) >= 0 && Buffer.compare(key, range.lt) < 0;
    };
    expect(['ord', 'orders', 'ord-2'].every(isIn)).toBe(true);
    expect(['or', 'pay', 'Orders'].some(isIn)).toBe(false);
    expect(globalKeys.queueIndexNamePrefixRange('')).toEqual(globalKeys.queueIndexRange());
  });
});
