// The dead-prefix cache finds the prefixes a write falls in by binary search over their starts;
// these tests hold it to the plain rule — every write checked against every prefix — on random
// histories of overlapping, nested and disjoint prefixes.
import { describe, expect, it } from 'vitest';
import { SeededPrng, type Prng } from '../../src/base/prng.js';
import { DeadPrefixCache } from '../../src/storage/dead-prefix-cache.js';
import { compareBytes } from '../../src/storage/key-codec.js';

interface ModelPrefix {
  gte: Uint8Array;
  end: Uint8Array;
  newestMarkerTs: number;
}

/** The rule without an index: every write against every prefix (prefixesMax not reached here). */
class LinearModel {
  readonly prefixes = new Map<string, ModelPrefix>();

  record(gte: Uint8Array, end: Uint8Array, newestMarkerTs: number): void {
    this.prefixes.set(idOf(gte), { gte, end, newestMarkerTs });
  }

  note(key: Uint8Array, commitTsUs: number, isPut: boolean): void {
    for (const [id, prefix] of this.prefixes) {
      if (compareBytes(key, prefix.gte) < 0 || compareBytes(key, prefix.end) >= 0) continue;
      if (!isPut) prefix.newestMarkerTs = Math.max(prefix.newestMarkerTs, commitTsUs);
      else if (compareBytes(key, prefix.gte) === 0) this.prefixes.delete(id);
      else prefix.end = key;
    }
  }
}

function idOf(key: Uint8Array): string {
  return Buffer.from(key).toString('hex');
}

/** Keys of one to three bytes from a small alphabet, so that prefixes overlap and nest often. */
function randomKey(prng: Prng): Uint8Array {
  const length = 1 + prng.intBelow(3);
  return Uint8Array.from({ length }, () => prng.intBelow(6));
}

function runHistory(seed: number): void {
  const prng = new SeededPrng(seed);
  const cache = new DeadPrefixCache({ prefixesMax: 1_000, deadKeysMin: 1 });
  const model = new LinearModel();
  const starts: Uint8Array[] = [];
  let ts = 1;
  for (let step = 0; step < 400; step++) {
    const roll = prng.intBelow(10);
    if (roll < 2) {
      // A scan from a new or known start that found a dead run.
      const gte = starts.length > 0 && prng.intBelow(2) === 0 ? starts[prng.intBelow(starts.length)]! : randomKey(prng);
      let end = randomKey(prng);
      if (compareBytes(end, gte) <= 0) end = Uint8Array.of(...gte, 0, prng.intBelow(6));
      const markerTs = prng.intBelow(ts);
      cache.finishScan(cache.beginScan(gte), { end, newestMarkerTs: markerTs, deadKeys: 1 });
      model.record(gte, end, markerTs);
      if (!starts.some((start) => compareBytes(start, gte) === 0)) starts.push(gte);
    } else {
      // A batch of writes, a put or a marker each; one batch may hit the same prefix twice.
      const versions = Array.from({ length: 1 + prng.intBelow(4) }, () => {
        const isPut = prng.intBelow(3) === 0;
        ts += 1;
        return { key: randomKey(prng), commitTsUs: ts, value: isPut ? Uint8Array.of(1) : undefined };
      });
      cache.noteWrites(versions);
      for (const version of versions) model.note(version.key, version.commitTsUs, version.value !== undefined);
    }
    if (step % 8 !== 7) continue;
    for (const gte of starts) {
      const expected = model.prefixes.get(idOf(gte));
      const found = cache.lookup(gte, ts);
      if (expected === undefined || compareBytes(expected.end, gte) <= 0) {
        expect(found, `seed ${seed} step ${step}`).toBeUndefined();
      } else {
        expect(found && { end: [...found.end], ts: found.newestMarkerTs }, `seed ${seed} step ${step}`).toEqual({
          end: [...expected.end],
          ts: expected.newestMarkerTs,
        });
      }
    }
  }
  expect(cache.size).toBe([...model.prefixes.values()].length);
}

describe('DeadPrefixCache.noteWrites', () => {
  it('changes the same prefixes as checking every write against every prefix, on random histories', () => {
    for (let seed = 1; seed <= 60; seed++) runHistory(seed);
  });

  it('cuts a prefix short at a put inside it, even when a later-starting prefix ends before the put', () => {
    const cache = new DeadPrefixCache({ prefixesMax: 8, deadKeysMin: 1 });
    // [1, 9) and, nested in it, [2, 3): a put at 5 is only in the first; the search lands on the second.
    cache.finishScan(cache.beginScan(Uint8Array.of(1)), { end: Uint8Array.of(9), newestMarkerTs: 1, deadKeys: 1 });
    cache.finishScan(cache.beginScan(Uint8Array.of(2)), { end: Uint8Array.of(3), newestMarkerTs: 1, deadKeys: 1 });
    cache.noteWrites([{ key: Uint8Array.of(5), commitTsUs: 2, value: Uint8Array.of(0) }]);
    expect([...(cache.lookup(Uint8Array.of(1), 5)?.end ?? [])]).toEqual([5]);
    expect([...(cache.lookup(Uint8Array.of(2), 5)?.end ?? [])]).toEqual([3]);
  });
});
