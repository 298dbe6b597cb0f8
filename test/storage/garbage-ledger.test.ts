import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { GarbageLedger, unknownTs, type GarbageNotes } from '../../src/storage/garbage-ledger.js';

const key = (n: number, length = 4): Uint8Array => Uint8Array.from({ length }, (_, i) => (n + i) & 0xff);

function notes(hidden: Array<[number, number, number]>, markers: Array<[number, number]>): GarbageNotes {
  return {
    hiddenKeys: hidden.map(([n]) => key(n)),
    hiddenTimes: hidden.flatMap(([, hidingTs, hiddenTs]) => [hidingTs, hiddenTs]),
    markerKeys: markers.map(([n]) => key(n)),
    markerTimes: markers.map(([, ts]) => ts),
  };
}

describe('GarbageLedger', () => {
  it('hands out hidden versions once the watermark reaches the version that hid them, oldest first', () => {
    const ledger = new GarbageLedger(1 << 20);
    expect(
      ledger.record(
        notes(
          [
            [1, 10, 5],
            [2, 20, unknownTs],
            [3, 30, 25],
          ],
          [],
        ),
      ),
    ).toBe(true);
    expect(ledger.hasDue(9, 0)).toBe(false);
    expect(ledger.hasDue(20, 0)).toBe(true);
    const take = ledger.takeDue(20, 0, 10);
    expect(take.hidden).toEqual([
      { key: key(1), hidingTs: 10, hiddenTs: 5 },
      { key: key(2), hidingTs: 20, hiddenTs: unknownTs },
    ]);
    ledger.release(take);
    expect(ledger.entryCount).toBe(1);
    expect(ledger.takeDue(100, 0, 10).hidden).toEqual([{ key: key(3), hidingTs: 30, hiddenTs: 25 }]);
  });

  it('hands out a marker only once the horizon reaches it and every hidden version at or before it is handed out', () => {
    const ledger = new GarbageLedger(1 << 20);
    // Key 1: a value at 5, deleted at 10 (hidden 5, marker 10); key 2 likewise at 12 and 20.
    ledger.record(notes([[1, 10, 5]], [[1, 10]]));
    ledger.record(notes([[2, 20, 12]], [[2, 20]]));
    expect(ledger.hasDue(100, 9)).toBe(true); // hidden versions, not markers
    expect(ledger.takeDue(100, 9, 10).markers).toEqual([]);
    // A step that may take one hidden version leaves key 2's: key 2's marker must wait for it.
    const first = ledger.takeDue(100, 100, 1);
    expect(first.hidden.map((h) => h.hidingTs)).toEqual([10]);
    expect(first.markers).toEqual([{ key: key(1), ts: 10 }]);
    ledger.release(first);
    const second = ledger.takeDue(100, 100, 1);
    expect(second.hidden.map((h) => h.hidingTs)).toEqual([20]);
    expect(second.markers).toEqual([{ key: key(2), ts: 20 }]);
    ledger.release(second);
    expect(ledger.entryCount).toBe(0);
    expect(ledger.hasDue(Infinity, Infinity)).toBe(false);
    // Key 3 overwritten at 30, key 4 deleted at 32: a step that takes only key 3's hidden version leaves key 4's marker.
    ledger.record(notes([[3, 30, 25]], []));
    ledger.record(notes([[4, 32, 31]], [[4, 32]]));
    const third = ledger.takeDue(100, 100, 1);
    expect(third.hidden.map((h) => h.hidingTs)).toEqual([30]);
    expect(third.markers).toEqual([]);
    expect(ledger.hasDue(100, 100)).toBe(true);
  });

  it('keeps a take that was never released, and releases nothing of a take from before a clear', () => {
    const ledger = new GarbageLedger(1 << 20);
    ledger.record(notes([[1, 10, 5]], [[1, 10]]));
    const dropped = ledger.takeDue(100, 100, 10);
    const again = ledger.takeDue(100, 100, 10);
    expect(again.hidden).toEqual(dropped.hidden);
    ledger.clear();
    ledger.record(notes([[7, 50, 40]], []));
    ledger.release(again);
    expect(ledger.entryCount).toBe(1);
    expect(ledger.takeDue(100, 100, 10).hidden[0]?.key).toEqual(key(7));
  });

  it('refuses a record that would pass its bound, appending none of it', () => {
    const ledger = new GarbageLedger(100);
    expect(ledger.record(notes([[1, 10, 5]], [[1, 10]]))).toBe(true);
    const bytes = ledger.sizeBytes;
    expect(
      ledger.record(
        notes(
          Array.from({ length: 10 }, (_, i): [number, number, number] => [i, 20 + i, 1]),
          [],
        ),
      ),
    ).toBe(false);
    expect(ledger.sizeBytes).toBe(bytes);
    expect(ledger.entryCount).toBe(2);
  });

  it('hands out exactly what was recorded, in order, through growth and compaction of its arenas (property)', () => {
    type Step =
      | { kind: 'record'; hidden: number; markers: number; keyBytes: number }
      | { kind: 'take'; entriesMax: number; isReleased: boolean };
    const stepArb: fc.Arbitrary<Step> = fc.oneof(
      fc.record({
        kind: fc.constant('record' as const),
        hidden: fc.nat(40),
        markers: fc.nat(40),
        keyBytes: fc.integer({ min: 1, max: 300 }),
      }),
      fc.record({
        kind: fc.constant('take' as const),
        entriesMax: fc.integer({ min: 1, max: 60 }),
        isReleased: fc.boolean(),
      }),
    );
    fc.assert(
      fc.property(fc.array(stepArb, { maxLength: 80 }), (steps) => {
        const ledger = new GarbageLedger(1 << 24);
        const model = { hidden: [] as Array<[Uint8Array, number]>, markers: [] as Array<[Uint8Array, number]> };
        let ts = 1;
        for (const step of steps) {
          if (step.kind === 'record') {
            const hiddenKeys = Array.from({ length: step.hidden }, (_, i) => key(ts + i, step.keyBytes));
            const markerKeys = Array.from({ length: step.markers }, (_, i) => key(ts + 7 * i, step.keyBytes));
            ledger.record({
              hiddenKeys,
              hiddenTimes: hiddenKeys.flatMap(() => [ts, ts - 1]),
              markerKeys,
              markerTimes: markerKeys.map(() => ts),
            });
            for (const k of hiddenKeys) model.hidden.push([k, ts]);
            for (const k of markerKeys) model.markers.push([k, ts]);
            ts++;
          } else {
            const take = ledger.takeDue(Infinity, Infinity, step.entriesMax);
            const hidden = model.hidden.slice(0, step.entriesMax);
            const nextLeftTs = model.hidden[hidden.length]?.[1] ?? Infinity;
            const markers = model.markers.slice(0, step.entriesMax).filter(([, t]) => t < nextLeftTs);
            // Markers are a prefix: the first one that must wait stops the rest.
            const markerPrefix = markers.filter((_, i) => markers.slice(0, i + 1).every(([, t]) => t < nextLeftTs));
            expect(take.hidden.map((h) => [Array.from(h.key), h.hidingTs])).toEqual(
              hidden.map(([k, t]) => [Array.from(k), t]),
            );
            expect(take.markers.map((m) => [Array.from(m.key), m.ts])).toEqual(
              markerPrefix.map(([k, t]) => [Array.from(k), t]),
            );
            if (step.isReleased) {
              ledger.release(take);
              model.hidden.splice(0, take.hidden.length);
              model.markers.splice(0, take.markers.length);
            }
          }
          expect(ledger.entryCount).toBe(model.hidden.length + model.markers.length);
        }
      }),
      { numRuns: 200 },
    );
  });

  it("keeps a take's keys as they were while the ledger grows, compacts and is released under it", () => {
    const ledger = new GarbageLedger(1 << 24);
    const first = Array.from({ length: 50 }, (_, i) => key(i, 40));
    ledger.record({
      hiddenKeys: first,
      hiddenTimes: first.flatMap(() => [1, 0]),
      markerKeys: first,
      markerTimes: first.map(() => 1),
    });
    const take = ledger.takeDue(Infinity, Infinity, 50);
    ledger.release(take);
    // Enough more entries to grow the arenas several times and compact them over the released ones.
    for (let round = 0; round < 40; round++) {
      const more = Array.from({ length: 100 }, (_, i) => key(1000 + round * 100 + i, 200));
      ledger.record({
        hiddenKeys: more,
        hiddenTimes: more.flatMap(() => [2 + round, 1]),
        markerKeys: more,
        markerTimes: more.map(() => 2 + round),
      });
      if (round % 3 === 0) ledger.release(ledger.takeDue(Infinity, Infinity, 150));
    }
    expect(take.hidden.map((h) => Array.from(h.key))).toEqual(first.map((k) => Array.from(k)));
    expect(take.markers.map((m) => Array.from(m.key))).toEqual(first.map((k) => Array.from(k)));
  });

  it('settles in arenas of bounded size once what it holds stops growing: no allocation per lap', () => {
    // Collection keeps about mvccHistoryMs of garbage: the same amount recorded as released, step
    // after step. The arenas may grow while the queue fills, then must stop being replaced.
    const ledger = new GarbageLedger(1 << 24);
    const perStep = 50;
    let ts = 1;
    const step = (): void => {
      const hidden: Array<[number, number, number]> = Array.from({ length: perStep }, (_, i) => [ts + i, ts, ts - 1]);
      const markers: Array<[number, number]> = Array.from({ length: perStep }, (_, i) => [ts + i, ts]);
      expect(ledger.record(notes(hidden, markers))).toBe(true);
      ts++;
    };
    for (let i = 0; i < 200; i++) step(); // fills to 200 steps of entries
    const release = (): void => ledger.release(ledger.takeDue(Infinity, Infinity, perStep));
    for (let i = 0; i < 200; i++) {
      step();
      release();
    }
    const settled = ledger.arenaUse();
    const liveBytes = ledger.sizeBytes;
    for (let i = 0; i < 5_000; i++) {
      step();
      release();
    }
    expect(ledger.entryCount).toBe(200 * 2 * perStep);
    expect(ledger.arenaUse().allocations).toBe(settled.allocations);
    expect(ledger.arenaUse().bytes).toBeLessThanOrEqual(4 * liveBytes);
  });
});
