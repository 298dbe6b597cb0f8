/**
 * Collection tells the newest-version cache only of the removals that may have been a key's newest
 * version (GcPlan.removedBases), not of every removal: the rule holds only if every removal left
 * out is older than a version of its key that stays or is itself such a base.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { planVersionGc, initialGcKeyState } from '../../src/storage/version-gc.js';
import { physicalRows, versionsArb, type Version } from './version-rows.js';

describe('collection names the removals that may have been a newest version', () => {
  it('includes every removed newest version among removedBases, and names nothing it keeps', () => {
    fc.assert(
      fc.property(versionsArb, fc.integer({ min: 0, max: 45 }), fc.integer({ min: 0, max: 45 }), (versions, w, h) => {
        const watermarkTs = Math.max(w, h);
        const rows = physicalRows(versions);
        const plan = planVersionGc(rows, initialGcKeyState, watermarkTs, Math.min(w, h), { isEndOfKeyspace: true });
        const removed = new Set(plan.removals.map((key) => Buffer.from(key).toString('hex')));
        const bases = new Set(plan.removedBases.map((key) => Buffer.from(key).toString('hex')));
        for (const base of bases) expect(removed.has(base)).toBe(true);
        // The newest version of each key is its first row.
        rows.forEach((row, i) => {
          const isNewest = i === 0 || versions[i - 1]?.key !== versions[i]?.key;
          const id = Buffer.from(row.key).toString('hex');
          if (isNewest && removed.has(id)) expect(bases.has(id)).toBe(true);
        });
      }),
      { numRuns: 500 },
    );
  });

  it('names a lone marker past the horizon, and not the older versions under a kept value', () => {
    const versions: Version[] = [
      { key: 1, commitTsUs: 20, isMarker: true },
      { key: 2, commitTsUs: 20, isMarker: false },
      { key: 2, commitTsUs: 10, isMarker: true },
      { key: 2, commitTsUs: 5, isMarker: false },
    ];
    const rows = physicalRows(versions);
    const plan = planVersionGc(rows, initialGcKeyState, 30, 30, { isEndOfKeyspace: true });
    expect(plan.removals).toEqual([rows[0]?.key, rows[2]?.key, rows[3]?.key]);
    expect(plan.removedBases).toEqual([rows[0]?.key]);
  });
});
