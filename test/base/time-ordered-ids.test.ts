import fc from 'fast-check';
import { randomFillSync } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/base/clock.js';
import { SeededPrng } from '../../src/base/prng.js';
import { formatUuidV7, TimeOrderedIds, type RandomFill } from '../../src/base/time-ordered-ids.js';

const uuidV7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

function seededFill(seed: number): RandomFill & { calls: number } {
  const prng = new SeededPrng(seed);
  const fill = Object.assign(
    (bytes: Uint8Array): void => {
      fill.calls++;
      for (let i = 0; i < bytes.length; i++) bytes[i] = prng.nextU32() & 0xff;
    },
    { calls: 0 },
  );
  return fill;
}

function mintedAtMs(id: string): number {
  return parseInt(id.slice(0, 8) + id.slice(9, 13), 16);
}

function expectIncreasing(ids: readonly string[]): void {
  for (let i = 1; i < ids.length; i++) expect(ids[i - 1]! < ids[i]!, `${ids[i - 1]} < ${ids[i]}`).toBe(true);
}

describe('TimeOrderedIds', () => {
  it('mints version-7 UUIDs that carry the clock’s millisecond', () => {
    const clock = new ManualClock(1_780_000_000_123);
    const ids = new TimeOrderedIds(clock, randomFillSync);
    const id = ids.next();
    expect(id).toMatch(uuidV7);
    expect(mintedAtMs(id)).toBe(1_780_000_000_123);
  });

  it('sorts ids by the millisecond they were minted in, as strings (the order of their keys)', () => {
    const clock = new ManualClock(1_000);
    const ids = new TimeOrderedIds(clock, seededFill(1));
    const minted: string[] = [];
    for (let i = 0; i < 300; i++) {
      minted.push(ids.next());
      clock.advanceMs(1 + (i % 7) * 1_000_003);
    }
    expectIncreasing(minted);
    expect(new Set(minted.map(mintedAtMs)).size).toBe(300);
  });

  it('orders the ids of one millisecond by a counter, and moves on to the next millisecond when it runs out', () => {
    const clock = new ManualClock(5_000);
    const ids = new TimeOrderedIds(clock, seededFill(2));
    const minted = Array.from({ length: 4_096 + 10 }, () => ids.next());
    expectIncreasing(minted);
    expect(minted.slice(0, 4_096).every((id) => mintedAtMs(id) === 5_000)).toBe(true);
    expect(minted.slice(4_096).every((id) => mintedAtMs(id) === 5_001)).toBe(true);
    // The clock catching up with the borrowed millisecond does not go back either.
    clock.advanceMs(1);
    const next = ids.next();
    expect(next > minted[minted.length - 1]!).toBe(true);
  });

  it('keeps increasing when the clock goes back', () => {
    const clock = new ManualClock(9_000);
    const ids = new TimeOrderedIds(clock, seededFill(3));
    const first = ids.next();
    clock.setMs(2_000);
    const second = ids.next();
    expect(second > first).toBe(true);
    expect(mintedAtMs(second)).toBe(9_000);
  });

  it('takes its random bits from the fill it is given, a pool at a time', () => {
    const clock = new ManualClock(7_000);
    const fillA = seededFill(4);
    const a = new TimeOrderedIds(clock, fillA);
    const b = new TimeOrderedIds(clock, seededFill(5));
    const fromA = Array.from({ length: 600 }, () => a.next());
    const fromB = Array.from({ length: 600 }, () => b.next());
    // Same clock, same counters: only the random bits tell two minters apart.
    expect(fromA.every((id, i) => id.slice(0, 19) === fromB[i]!.slice(0, 19) && id !== fromB[i])).toBe(true);
    expect(fillA.calls).toBe(2);
    // The same seed replays the same ids.
    const again = new TimeOrderedIds(new ManualClock(7_000), seededFill(4));
    expect(Array.from({ length: 600 }, () => again.next())).toEqual(fromA);
  });
});

describe('formatUuidV7', () => {
  it('lays out the millisecond, version, counter, variant and random bits', () => {
    const random = Uint8Array.from([0xff, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07]);
    expect(formatUuidV7(0x0123456789ab, 0xabc, random)).toBe('01234567-89ab-7abc-bf01-020304050607');
    expect(formatUuidV7(0, 0, new Uint8Array(8))).toBe('00000000-0000-7000-8000-000000000000');
    expect(formatUuidV7(2 ** 48 - 1, 0xfff, new Uint8Array(8).fill(0xff))).toBe('ffffffff-ffff-7fff-bfff-ffffffffffff');
  });

  it('prints every millisecond, counter and random byte as the hex of its bits', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 2 ** 48 - 1 }),
        fc.integer({ min: 0, max: 0xfff }),
        fc.uint8Array({ minLength: 8, maxLength: 8 }),
        (ms, counter, random) => {
          const hex = (value: number, digits: number) => value.toString(16).padStart(digits, '0');
          const randomHex = [...random.subarray(1)].map((byte) => hex(byte, 2)).join('');
          expect(formatUuidV7(ms, counter, random)).toBe(
            `${hex(ms, 12).slice(0, 8)}-${hex(ms, 12).slice(8)}-7${hex(counter, 3)}-` +
              `${hex(0x80 | ((random[0] as number) & 0x3f), 2)}${randomHex.slice(0, 2)}-${randomHex.slice(2)}`,
          );
        },
      ),
    );
  });
});
