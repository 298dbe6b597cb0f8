/**
 * A collection plan says when what it kept could go (GcPlan.freesAt), and a store skips passes
 * until then: the time must be neither late (a pass below it removes nothing, or collection would
 * wait longer than it must) nor early by a version (at it, something goes), and steps of a pass
 * must agree with one plan over the whole keyspace.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { EngineEntry } from '../../src/storage/engine.js';
import { bothFreesAt, initialGcKeyState, neverFreed, planVersionGc } from '../../src/storage/version-gc.js';
import { physicalRows, versionsArb } from './version-rows.js';

const tsArb = fc.integer({ min: 0, max: 45 });

/** The rows a plan at (watermarkTs, horizonTs) leaves, and what it says of them. */
function collect(rows: readonly EngineEntry[], watermarkTs: number, horizonTs: number) {
  const plan = planVersionGc(rows, initialGcKeyState, watermarkTs, horizonTs, { isEndOfKeyspace: true });
  const removed = new Set(plan.removals.map((key) => Buffer.from(key).toString('hex')));
  return { plan, left: rows.filter((row) => !removed.has(Buffer.from(row.key).toString('hex'))) };
}

describe('GcPlan.freesAt', () => {
  it('names the least watermark and horizon at which a kept version goes, and the horizon at which every kept marker has', () => {
    fc.assert(
      fc.property(versionsArb, tsArb, tsArb, tsArb, tsArb, (versions, w, h, dw, dh) => {
        const watermarkTs = Math.max(w, h);
        const horizonTs = Math.min(w, h);
        const { plan, left } = collect(physicalRows(versions), watermarkTs, horizonTs);
        const { freesAt } = plan;
        // Later watermarks still below what the plan named: nothing more goes.
        const laterW = Math.min(watermarkTs + dw, freesAt.watermarkTs - 1);
        const laterH = Math.min(horizonTs + dh, freesAt.horizonTs - 1, laterW);
        if (laterW >= watermarkTs && laterH >= horizonTs)
          expect(collect(left, laterW, laterH).plan.removals).toEqual([]);
        // At the named watermark, or the named horizon, something goes.
        if (freesAt.watermarkTs !== Infinity)
          expect(collect(left, freesAt.watermarkTs, horizonTs).plan.removals.length).toBeGreaterThan(0);
        if (freesAt.horizonTs !== Infinity) {
          const atH = collect(left, Math.max(watermarkTs, freesAt.horizonTs), freesAt.horizonTs);
          expect(atH.plan.removals.length).toBeGreaterThan(0);
        }
        // At the horizon of the newest kept marker, every kept marker goes.
        if (freesAt.lastMarkerTs !== -Infinity) {
          const atLast = collect(left, Math.max(watermarkTs, freesAt.lastMarkerTs), freesAt.lastMarkerTs);
          expect(atLast.plan.freesAt.lastMarkerTs).toBe(-Infinity);
        }
      }),
      { numRuns: 1000 },
    );
  });

  it('is the same over a pass in steps as in one plan', () => {
    fc.assert(
      fc.property(versionsArb, tsArb, tsArb, fc.integer({ min: 1, max: 5 }), (versions, w, h, rowsPerStep) => {
        const rows = physicalRows(versions);
        const watermarkTs = Math.max(w, h);
        const horizonTs = Math.min(w, h);
        const whole = planVersionGc(rows, initialGcKeyState, watermarkTs, horizonTs, { isEndOfKeyspace: true });
        let state = initialGcKeyState;
        let freesAt = neverFreed;
        for (let at = 0; at < rows.length || at === 0; at += rowsPerStep) {
          const isEndOfKeyspace = at + rowsPerStep >= rows.length;
          const step = planVersionGc(rows.slice(at, at + rowsPerStep), state, watermarkTs, horizonTs, {
            isEndOfKeyspace,
          });
          freesAt = bothFreesAt(freesAt, step.freesAt);
          state = step.state;
          if (isEndOfKeyspace) break;
        }
        expect(freesAt).toEqual(whole.freesAt);
      }),
      { numRuns: 1000 },
    );
  });

  it('keeps a newest value for ever, and a marker until the horizon reaches it', () => {
    const rows = physicalRows([
      { key: 1, commitTsUs: 30, isMarker: false },
      { key: 1, commitTsUs: 20, isMarker: false },
      { key: 2, commitTsUs: 25, isMarker: true },
      { key: 3, commitTsUs: 12, isMarker: false },
    ]);
    const { plan } = collect(rows, 22, 10);
    expect(plan.removals).toEqual([]);
    // Key 1's version at 20 goes once W reaches 30; key 2's marker once H reaches 25.
    expect(plan.freesAt).toEqual({ watermarkTs: 30, horizonTs: 25, lastMarkerTs: 25 });
  });
});
