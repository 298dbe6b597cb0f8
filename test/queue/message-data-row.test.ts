/**
 * The data row's binary layout (src/queue/layout/message-data-row.ts): every record survives the round
 * trip, rows of the older JSON layout are still read (an upgraded node keeps every message a
 * previous version stored), and a damaged row fails its read instead of yielding a wrong message.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { GenerationKeys } from '../../src/queue/layout/key-layout.js';
import { encodeLegacyMessageRecord } from '../../src/queue/layout/message-data-row.js';
import {
  decodeMessageRecord,
  encodeMessageRecord,
  messageRecord,
  withReceiveFields,
  type MessageRecord,
} from '../../src/queue/message-record.js';
import type { MessageAttributes } from '../../src/queue/queue-api.js';
import { makeHarness, sendOne } from './support/queue-harness.js';

const attributesArbitrary: fc.Arbitrary<MessageAttributes> = fc.dictionary(
  fc.string({ minLength: 1, maxLength: 12 }),
  fc.record(
    {
      dataType: fc.constantFrom('String', 'Number', 'Binary', 'String.custom'),
      stringValue: fc.string({ unit: 'grapheme', maxLength: 40 }),
      binaryValue: fc.uint8Array({ maxLength: 40 }),
    },
    { requiredKeys: ['dataType'] },
  ),
  { maxKeys: 4 },
);

const timeArbitrary = fc.integer({ min: 0, max: 4_102_444_800_000 });

/** The fields every record has a value for, in the interface's order (message-record.ts). */
const requiredRecordKeys = [
  'messageId',
  'body',
  'messageAttributes',
  'systemAttributes',
  'senderId',
  'sentAtMs',
  'retentionStartMs',
  'partition',
  'visibleAtMs',
  'order',
  'receiveCount',
] as const;

/** The property order every record has: the interface's. */
const recordKeys = [
  ...requiredRecordKeys,
  'firstReceiveAtMs',
  'claimedAtMs',
  'receiptToken',
  'messageGroupId',
  'messageDeduplicationId',
  'sequenceNumber',
  'deadLetterSourceArn',
];

const recordArbitrary: fc.Arbitrary<MessageRecord> = fc
  .record(
    {
      messageId: fc.uuid(),
      body: fc.string({ unit: 'grapheme', maxLength: 200 }),
      messageAttributes: attributesArbitrary,
      systemAttributes: attributesArbitrary,
      senderId: fc.string({ maxLength: 30 }),
      sentAtMs: timeArbitrary,
      retentionStartMs: timeArbitrary,
      partition: fc.integer({ min: 0, max: 63 }),
      visibleAtMs: timeArbitrary,
      order: fc.bigInt({ min: 0n, max: (1n << 64n) - 1n }),
      receiveCount: fc.integer({ min: 0, max: 1_000_000 }),
      firstReceiveAtMs: timeArbitrary,
      claimedAtMs: timeArbitrary,
      receiptToken: fc.uuid(),
      messageGroupId: fc.string({ minLength: 1, maxLength: 128 }),
      messageDeduplicationId: fc.string({ minLength: 1, maxLength: 128 }),
      sequenceNumber: fc.stringMatching(/^[0-9]{20}$/),
      deadLetterSourceArn: fc.string({ maxLength: 80 }),
    },
    { requiredKeys: [...requiredRecordKeys] },
  )
  .map(messageRecord);

describe('the data row layout', () => {
  it('gives every record one shape: all fields present, in one order, whichever apply', () => {
    // One hidden class for every record keeps the message path's property reads monomorphic.
    fc.assert(
      fc.property(recordArbitrary, (record) => {
        expect(Object.keys(decodeMessageRecord(encodeMessageRecord(record)))).toEqual(recordKeys);
        expect(Object.keys(decodeMessageRecord(encodeLegacyMessageRecord(record)))).toEqual(recordKeys);
        const claimed = withReceiveFields(record, {
          visibleAtMs: 5,
          receiveCount: 1,
          firstReceiveAtMs: 4,
          claimedAtMs: 4,
          receiptToken: 't',
        });
        expect(Object.keys(claimed)).toEqual(recordKeys);
      }),
      { numRuns: 100 },
    );
  });

  it('decodes every record it encodes to the same record', () => {
    fc.assert(
      fc.property(recordArbitrary, (record) => {
        expect(decodeMessageRecord(encodeMessageRecord(record))).toEqual(record);
      }),
      { numRuns: 300 },
    );
  });

  it('still reads rows of the older JSON layout as the same record', () => {
    fc.assert(
      fc.property(recordArbitrary, (record) => {
        // The JSON layout kept numbers as JSON numbers: safe integers, as every time is.
        expect(decodeMessageRecord(encodeLegacyMessageRecord(record))).toEqual(record);
      }),
      { numRuns: 200 },
    );
  });

  it('keeps an attribute named __proto__ (a valid name) as an attribute', () => {
    const record = messageRecord({
      messageId: 'm',
      body: 'b',
      messageAttributes: JSON.parse('{"__proto__":{"dataType":"String","stringValue":"v"}}') as MessageAttributes,
      systemAttributes: {},
      senderId: 's',
      sentAtMs: 1,
      retentionStartMs: 1,
      partition: 0,
      visibleAtMs: 1,
      order: 1n,
      receiveCount: 0,
    });
    expect(Object.keys(decodeMessageRecord(encodeMessageRecord(record)).messageAttributes)).toEqual(['__proto__']);
    expect(Object.keys(decodeMessageRecord(encodeLegacyMessageRecord(record)).messageAttributes)).toEqual([
      '__proto__',
    ]);
  });

  it('is smaller than the JSON layout', () => {
    const record = messageRecord({
      messageId: '0f8fad5b-d9cb-469f-a165-70867728950e',
      body: 'x'.repeat(1_024),
      messageAttributes: {},
      systemAttributes: {},
      senderId: 'AIDAEXAMPLE',
      sentAtMs: 1_790_000_000_000,
      retentionStartMs: 1_790_000_000_000,
      partition: 0,
      visibleAtMs: 1_790_000_000_000,
      order: 12_345n,
      receiveCount: 0,
    });
    expect(encodeMessageRecord(record).byteLength).toBeLessThan(encodeLegacyMessageRecord(record).byteLength - 100);
  });

  it('refuses a row cut short, with bytes added, or of an unknown layout', () => {
    fc.assert(
      fc.property(recordArbitrary, fc.nat(), (record, cut) => {
        const bytes = encodeMessageRecord(record);
        expect(() => decodeMessageRecord(bytes.subarray(0, cut % bytes.byteLength))).toThrow(/corrupt message row/);
        expect(() => decodeMessageRecord(Uint8Array.of(...bytes, 0))).toThrow(/corrupt message row/);
      }),
      { numRuns: 200 },
    );
    expect(() => decodeMessageRecord(Uint8Array.of(0x03, ...new Uint8Array(80)))).toThrow(/corrupt message row/);
  });

  it('a message stored by an older node (JSON data row) is received with its body and attributes and deleted without leaving rows', async () => {
    const { service, executor } = makeHarness();
    await service.createQueue({ name: 'q', attributes: {}, tags: {} });
    const binaryValue = Uint8Array.of(0, 1, 254, 255);
    await sendOne(service, 'q', 'stored by an older node', {
      messageAttributes: {
        colour: { dataType: 'String', stringValue: 'blue' },
        raw: { dataType: 'Binary', binaryValue },
      },
    });
    const keys = new GenerationKeys('q', 1);
    const [data] = await executor.liveRows(keys.familyRange('data'));
    if (data === undefined) throw new Error('no data row');
    // Rewrite the data row as the previous layout wrote it, with the age row that layout always had.
    const view = await executor.readView({ linearizable: true });
    const record = decodeMessageRecord(data.value);
    const legacy = encodeLegacyMessageRecord(record);
    expect(legacy[0]).toBe(0x7b);
    await executor.commit({
      txnId: 'older-node-row',
      startTsUs: view.ts,
      nowMs: executor.nowMs(),
      readKeys: [],
      writes: [
        { kind: 'put', key: data.key, value: legacy },
        {
          kind: 'put',
          key: keys.age(record.partition, record.retentionStartMs, record.messageId),
          value: Uint8Array.of(),
        },
      ],
    });
    view.release();

    executor.clock.advanceMs(1_000);
    const [message] = await service.receiveMessages('q', { maxMessages: 10 });
    expect(message?.body).toBe('stored by an older node');
    expect(message?.messageAttributes).toEqual({
      colour: { dataType: 'String', stringValue: 'blue' },
      raw: { dataType: 'Binary', binaryValue },
    });
    const results = await service.deleteMessages('q', [{ entryId: 'd', receiptHandle: message?.receiptHandle ?? '' }]);
    expect(results.every((r) => !('error' in r))).toBe(true);
    expect(await executor.liveRows(keys.range())).toEqual([]);
  });
});
