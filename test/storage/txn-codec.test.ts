import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { encodeKey } from '../../src/storage/key-codec.js';
import {
  TxnDecodeError,
  TxnInvalidError,
  decodeTxn,
  decodeTxnBatch,
  encodeTxn,
  encodeTxnBatch,
  txnBytesBound,
  type TxnBatch,
} from '../../src/storage/txn-codec.js';
import { decodeTxnIdRecord, encodeTxnIdRecord } from '../../src/storage/txn-id-table.js';
import type { Txn, TxnOutcome, TxnWrite } from '../../src/storage/txn.js';
import { tupleArb } from './tuple-model.js';

const runs = { numRuns: 1000 };
const keyArb = tupleArb.filter((t) => t.length > 0).map(encodeKey);
const writeArb: fc.Arbitrary<TxnWrite> = fc.oneof(
  fc.record({ kind: fc.constant('put' as const), key: keyArb, value: fc.uint8Array({ maxLength: 40 }) }),
  fc.record({
    kind: fc.constant('put' as const),
    key: keyArb,
    value: fc.uint8Array({ maxLength: 40 }),
    isNewKey: fc.constant(true as const),
  }),
  fc.record({ kind: fc.constant('delete' as const), key: keyArb }),
  fc.record({ kind: fc.constant('delete' as const), key: keyArb, isLiveKey: fc.constant(true as const) }),
  // Its place among the writes is set below (sameCommitAsWriteBefore must name an earlier write).
  fc.record({
    kind: fc.constant('delete' as const),
    key: keyArb,
    isLiveKey: fc.constant(true as const),
    sameCommitAsWriteBefore: fc.integer({ min: 1, max: 2 ** 40 }),
  }),
);
/** A delete that names a write before it names one that exists; the first write cannot name one. */
function withEarlierWritesNamed(writes: TxnWrite[]): TxnWrite[] {
  return writes.map((write, at) => {
    if (write.kind !== 'delete' || write.sameCommitAsWriteBefore === undefined) return write;
    if (at === 0) return { kind: 'delete', key: write.key, isLiveKey: true };
    return { ...write, sameCommitAsWriteBefore: 1 + ((write.sameCommitAsWriteBefore - 1) % at) };
  });
}
const txnArb: fc.Arbitrary<Txn> = fc.record({
  txnId: fc.string({ minLength: 1, maxLength: 20, unit: 'binary' }),
  startTsUs: fc.maxSafeNat(),
  nowMs: fc.maxSafeNat(),
  readKeys: fc.array(keyArb, { maxLength: 4 }),
  writes: fc.array(writeArb, { maxLength: 6 }).map(withEarlierWritesNamed),
});
const batchArb = fc.record({ leaderStampTsUs: fc.maxSafeNat(), txns: fc.array(txnArb, { maxLength: 5 }) });

/** Plain objects with plain Uint8Arrays, so that views into the entry compare equal to copies. */
function normalize(value: unknown): unknown {
  return JSON.parse(JSON.stringify(value, (_k, v: unknown) => (v instanceof Uint8Array ? [...v] : v)));
}

describe('txn codec', () => {
  it('decodes every encoded batch to the same leader stamp and transactions', () => {
    fc.assert(
      fc.property(batchArb, (batch) => {
        expect(normalize(decodeTxnBatch(encodeTxnBatch(batch)))).toEqual(normalize(batch));
      }),
      runs,
    );
  });

  it("decodes batches whose keys share prefixes, as a queue's keys do", () => {
    // Keys from a few queues, families and messages: most share a long prefix with the key before them.
    const sharingKeyArb = fc
      .record({
        queue: fc.constantFrom('orders', 'orders-dlq', 'o'),
        family: fc.constantFrom('data', 'state', 'vis'),
        partition: fc.nat({ max: 3 }),
        messageId: fc.constantFrom('0193a5b2-7c1d-7e3f-8a9b-1', '0193a5b2-7c1d-7e3f-8a9b-2', '0193a5b3'),
      })
      .map(({ queue, family, partition, messageId }) => encodeKey(['q', queue, 'g', 1, family, partition, messageId]));
    // Writes often name the very array a read named (the planners do: a receive writes the state keys it read).
    const sharingTxnArb: fc.Arbitrary<Txn> = fc.array(sharingKeyArb, { maxLength: 12 }).chain((readKeys) => {
      const writeKeyArb = readKeys.length === 0 ? sharingKeyArb : fc.oneof(sharingKeyArb, fc.constantFrom(...readKeys));
      return fc.record({
        txnId: fc.string({ minLength: 1, maxLength: 8 }),
        startTsUs: fc.nat(),
        nowMs: fc.nat(),
        readKeys: fc.constant(readKeys),
        writes: fc.array(
          fc.oneof(
            fc.record({ kind: fc.constant('put' as const), key: writeKeyArb, value: fc.uint8Array({ maxLength: 8 }) }),
            fc.record({
              kind: fc.constant('delete' as const),
              key: writeKeyArb,
              isLiveKey: fc.constant(true as const),
            }),
          ),
          { maxLength: 12 },
        ),
      });
    });
    fc.assert(
      fc.property(
        fc.record({ leaderStampTsUs: fc.nat(), txns: fc.array(sharingTxnArb, { maxLength: 4 }) }),
        (batch) => {
          const bytes = encodeTxnBatch(batch);
          expect(normalize(decodeTxnBatch(bytes))).toEqual(normalize(batch));
        },
      ),
      { numRuns: 300 },
    );
  });

  it('still decodes a batch of format 1 (every key whole), as a log written before format 2 holds', () => {
    // Written by the format 1 encoder: two txns, read keys, every write kind.
    const format1 =
      '0180a09db0a1a8910302027431050702120271000261000264617461001501026d310013027100026100027374617465001501026d3100050113027100026100027374617465001501026d31000301020302120271000261000264617461001501026d32000109001102710002610002766973001501026d310003120271000261000264617461001501026d3100041102710002610002616765001501026d31000102743206080001000c027100026200026d65746100';
    const batch: TxnBatch = {
      leaderStampTsUs: 1765000000000000,
      txns: [
        {
          txnId: 't1',
          startTsUs: 5,
          nowMs: 7,
          readKeys: [encodeKey(['q', 'a', 'data', 1, 'm1']), encodeKey(['q', 'a', 'state', 1, 'm1'])],
          writes: [
            { kind: 'put', key: encodeKey(['q', 'a', 'state', 1, 'm1']), value: Uint8Array.of(1, 2, 3) },
            { kind: 'put', key: encodeKey(['q', 'a', 'data', 1, 'm2']), value: Uint8Array.of(9), isNewKey: true },
            { kind: 'delete', key: encodeKey(['q', 'a', 'vis', 1, 'm1']) },
            { kind: 'delete', key: encodeKey(['q', 'a', 'data', 1, 'm1']), isLiveKey: true },
            {
              kind: 'delete',
              key: encodeKey(['q', 'a', 'age', 1, 'm1']),
              isLiveKey: true,
              sameCommitAsWriteBefore: 1,
            },
          ],
        },
        {
          txnId: 't2',
          startTsUs: 6,
          nowMs: 8,
          readKeys: [],
          writes: [{ kind: 'delete', key: encodeKey(['q', 'b', 'meta']) }],
        },
      ],
    };
    expect(normalize(decodeTxnBatch(Uint8Array.from(Buffer.from(format1, 'hex'))))).toEqual(normalize(batch));
    // Format 2 of the same batch is shorter, and decodes to the same.
    const format2 = encodeTxnBatch(batch);
    expect(format2[0]).toBe(2);
    expect(format2.length).toBeLessThan(format1.length / 2);
    expect(normalize(decodeTxnBatch(format2))).toEqual(normalize(batch));
  });

  it('reports a key that shares more bytes than its base has, or names a key before the first, as TxnDecodeError', () => {
    const txn: Txn = { txnId: 't', startTsUs: 1, nowMs: 2, readKeys: [encodeKey(['a', 'b'])], writes: [] };
    const bytes = encodeTxn(txn);
    // format · id length · id · startTsUs · nowMs · read count · code (0: a new key after the one before) · shared …
    expect([bytes[6], bytes[7]]).toEqual([0, 0]);
    const sharesTooMuch = Uint8Array.from(bytes);
    sharesTooMuch[7] = 1;
    expect(() => decodeTxn(sharesTooMuch)).toThrow(TxnDecodeError);
    const repeatsNothing = Uint8Array.from(bytes);
    repeatsNothing[6] = 1;
    expect(() => decodeTxn(repeatsNothing)).toThrow(TxnDecodeError);
    const sharesWithNothing = Uint8Array.from(bytes);
    sharesWithNothing[6] = 2; // the prefix of the key two back, before the first
    expect(() => decodeTxn(sharesWithNothing)).toThrow(TxnDecodeError);
  });

  it('sizes the encoder once: the bound covers every encoded transaction, huge numbers and wide ids included', () => {
    const wideTxnArb = txnArb.chain((txn) =>
      fc
        .record({
          txnId: fc.string({ minLength: 1, maxLength: 20, unit: 'grapheme' }),
          values: fc.array(fc.uint8Array({ minLength: 200, maxLength: 2_000 }), { maxLength: 3 }),
        })
        .map(({ txnId, values }) => ({
          ...txn,
          txnId,
          writes: [
            ...txn.writes,
            ...values.map((value, i) => ({ kind: 'put' as const, key: encodeKey(['v', i]), value })),
          ],
        })),
    );
    fc.assert(
      fc.property(wideTxnArb, (txn) => {
        // encodeTxn writes a format byte, then the txn.
        expect(encodeTxn(txn).byteLength - 1).toBeLessThanOrEqual(txnBytesBound(txn));
        // The writer never grew: the buffer is the one sized by the bound.
        expect(encodeTxn(txn).buffer.byteLength).toBe(Math.max(16, 1 + txnBytesBound(txn)));
      }),
      runs,
    );
  });

  it('decodes a single encoded transaction to the same transaction', () => {
    fc.assert(
      fc.property(txnArb, (txn) => {
        expect(normalize(decodeTxn(encodeTxn(txn)))).toEqual(normalize(txn));
      }),
      runs,
    );
  });

  it('encodes deterministically: equal batches give equal bytes', () => {
    fc.assert(
      fc.property(batchArb, (batch) => {
        const copy = JSON.parse(JSON.stringify(normalize(batch)), (_k, v: unknown) => v);
        const rebuilt = {
          leaderStampTsUs: copy.leaderStampTsUs,
          txns: copy.txns.map(
            (
              t: {
                readKeys: number[][];
                writes: Array<{
                  kind: string;
                  key: number[];
                  value?: number[];
                  isNewKey?: true;
                  isLiveKey?: true;
                  sameCommitAsWriteBefore?: number;
                }>;
              } & Txn,
            ) => ({
              ...t,
              readKeys: t.readKeys.map((k) => Uint8Array.from(k)),
              writes: t.writes.map((w) =>
                w.kind === 'put'
                  ? {
                      kind: 'put',
                      key: Uint8Array.from(w.key),
                      value: Uint8Array.from(w.value ?? []),
                      ...(w.isNewKey === true ? { isNewKey: true } : {}),
                    }
                  : {
                      kind: 'delete',
                      key: Uint8Array.from(w.key),
                      ...(w.isLiveKey === true ? { isLiveKey: true } : {}),
                      ...(w.sameCommitAsWriteBefore !== undefined
                        ? { sameCommitAsWriteBefore: w.sameCommitAsWriteBefore }
                        : {}),
                    },
              ),
            }),
          ),
        };
        expect(encodeTxnBatch(rebuilt)).toEqual(encodeTxnBatch(batch));
      }),
      { numRuns: 200 },
    );
  });

  it('reports every truncation of an encoded batch as TxnDecodeError', () => {
    fc.assert(
      fc.property(
        batchArb.filter((b) => b.txns.length > 0),
        fc.nat(),
        (batch, cut) => {
          const bytes = encodeTxnBatch(batch);
          const truncated = bytes.subarray(0, cut % bytes.length);
          expect(() => decodeTxnBatch(truncated)).toThrow(TxnDecodeError);
        },
      ),
      runs,
    );
  });

  it('reports trailing bytes, an unknown format and a malformed key as TxnDecodeError', () => {
    const bytes = encodeTxnBatch({
      leaderStampTsUs: 5,
      txns: [{ txnId: 't', startTsUs: 1, nowMs: 2, readKeys: [encodeKey(['a'])], writes: [] }],
    });
    expect(() => decodeTxnBatch(Uint8Array.from([...bytes, 0]))).toThrow(TxnDecodeError);
    expect(() => decodeTxnBatch(Uint8Array.from([9, ...bytes.subarray(1)]))).toThrow(TxnDecodeError);
    const badKey = Uint8Array.from(bytes);
    badKey[badKey.length - 2] = 0x07; // the key's terminator becomes a stray byte: no longer a tuple
    expect(() => decodeTxnBatch(badKey)).toThrow(TxnDecodeError);
  });

  it('reports a delete that names no earlier write as TxnDecodeError', () => {
    const txn: Txn = {
      txnId: 't',
      startTsUs: 1,
      nowMs: 2,
      readKeys: [],
      writes: [
        { kind: 'delete', key: encodeKey(['d']) },
        { kind: 'delete', key: encodeKey(['v']), isLiveKey: true, sameCommitAsWriteBefore: 1 },
      ],
    };
    const bytes = encodeTxn(txn);
    expect(normalize(decodeTxn(bytes))).toEqual(normalize(txn));
    // The last byte is the distance back (1): 2 would reach before the first write, 0 names itself.
    for (const distance of [0, 2]) {
      const forged = Uint8Array.from(bytes);
      forged[forged.length - 1] = distance;
      expect(() => decodeTxn(forged), String(distance)).toThrow(TxnDecodeError);
    }
  });

  it('refuses to encode a transaction the apply step could not take', () => {
    const ok: Txn = { txnId: 't', startTsUs: 1, nowMs: 2, readKeys: [], writes: [] };
    const bad: Txn[] = [
      { ...ok, txnId: '' },
      { ...ok, startTsUs: -1 },
      { ...ok, nowMs: 1.5 },
      { ...ok, startTsUs: 2 ** 53 },
      { ...ok, readKeys: [Uint8Array.of()] },
      { ...ok, readKeys: [Uint8Array.of(0x02, 0x61)] },
      { ...ok, writes: [{ kind: 'delete', key: Uint8Array.of(0x00) }] },
      // sameCommitAsWriteBefore names an earlier write, and only on a delete vouched live.
      { ...ok, writes: [{ kind: 'delete', key: encodeKey(['v']), isLiveKey: true, sameCommitAsWriteBefore: 1 }] },
      {
        ...ok,
        writes: [
          { kind: 'delete', key: encodeKey(['d']) },
          { kind: 'delete', key: encodeKey(['v']), isLiveKey: true, sameCommitAsWriteBefore: 0 },
        ],
      },
      {
        ...ok,
        writes: [
          { kind: 'delete', key: encodeKey(['d']) },
          { kind: 'delete', key: encodeKey(['v']), isLiveKey: true, sameCommitAsWriteBefore: 1.5 },
        ],
      },
      {
        ...ok,
        writes: [
          { kind: 'delete', key: encodeKey(['d']) },
          { kind: 'delete', key: encodeKey(['v']), sameCommitAsWriteBefore: 1 },
        ],
      },
    ];
    for (const txn of bad)
      expect(() => encodeTxnBatch({ leaderStampTsUs: 0, txns: [txn] }), JSON.stringify(txn)).toThrow(TxnInvalidError);
    expect(() => encodeTxnBatch({ leaderStampTsUs: -1, txns: [] })).toThrow(TxnInvalidError);
  });
});

describe('txn id records', () => {
  const outcomeArb: fc.Arbitrary<TxnOutcome> = fc.oneof(
    fc.record({ kind: fc.constant('committed' as const), commitTsUs: fc.maxSafeNat() }),
    fc.record({ kind: fc.constant('conflict' as const), key: keyArb }),
    fc.record({ kind: fc.constant('clock-skew' as const), skewMs: fc.integer({ min: -(2 ** 40), max: 2 ** 40 }) }),
    fc.record({ kind: fc.constant('too-old' as const), watermarkTs: fc.maxSafeNat() }),
  );

  it('round-trip every outcome kind with its recording time', () => {
    fc.assert(
      fc.property(fc.maxSafeNat(), outcomeArb, (recordedAtMs, outcome) => {
        expect(decodeTxnIdRecord(encodeTxnIdRecord({ recordedAtMs, outcome }))).toEqual({ recordedAtMs, outcome });
      }),
      runs,
    );
  });
});
