import { describe, expect, it } from 'vitest';
import {
  canOverlap,
  generateSchedule,
  scheduleSteps,
  type ScheduleOptions,
} from '../../jepsen-like/nemesis/nemesis-schedule.js';
import { partitionFor, partitionShapes, type Cut } from '../../jepsen-like/nemesis/partition-shapes.js';
import { SeededPrng } from '../../src/base/prng.js';

const base: ScheduleOptions = {
  seed: 42,
  families: ['kill', 'pause', 'partition', 'clock'],
  runMs: 120_000,
  warmupMs: 3_000,
  faultMsMin: 2_000,
  faultMsMax: 8_000,
  quietMsMin: 1_000,
  quietMsMax: 4_000,
  clockOffsetMsMax: 3_000,
  overlapOneIn: 0,
};

describe('nemesis schedule', () => {
  it('is the same for the same seed and different for another', () => {
    expect(generateSchedule(base)).toEqual(generateSchedule(base));
    expect(generateSchedule({ ...base, seed: 43 })).not.toEqual(generateSchedule(base));
  });

  it('runs one fault at a time, inside the run, after the warm-up, with quiet time between', () => {
    const schedule = generateSchedule(base);
    expect(schedule.length).toBeGreaterThan(5);
    expect(schedule[0]?.startMs).toBe(3_000);
    for (const [i, fault] of schedule.entries()) {
      expect(fault.healMs - fault.startMs).toBeGreaterThanOrEqual(2_000);
      expect(fault.healMs - fault.startMs).toBeLessThanOrEqual(8_000);
      expect(fault.healMs).toBeLessThanOrEqual(120_000);
      const next = schedule[i + 1];
      if (next !== undefined) expect(next.startMs - fault.healMs).toBeGreaterThanOrEqual(1_000);
    }
  });

  it('with overlaps on, sometimes starts a second, compatible fault while the first is in force', () => {
    const schedule = generateSchedule({
      ...base,
      families: ['kill', 'pause', 'partition', 'clock', 'latency', 'membership'],
      runMs: 600_000,
      overlapOneIn: 3,
    });
    const overlapping = schedule.filter((f, i) => i > 0 && f.startMs < (schedule[i - 1]?.healMs ?? 0));
    expect(overlapping.length).toBeGreaterThan(3);
    for (const f of overlapping) {
      const previous = schedule[f.id - 1];
      expect(previous).toBeDefined();
      expect(canOverlap(previous?.fault.family ?? 'kill', f.fault.family)).toBe(true);
      expect(f.startMs).toBeGreaterThanOrEqual(previous?.startMs ?? 0);
    }
    // Never three at once, and every fault heals inside the run.
    for (const step of scheduleSteps(schedule)) {
      const inForce = schedule.filter((f) => f.startMs <= step.atMs && step.atMs < f.healMs);
      expect(inForce.length).toBeLessThanOrEqual(2);
    }
    expect(schedule.every((f) => f.healMs <= 600_000)).toBe(true);
    expect(canOverlap('membership', 'kill')).toBe(false);
    expect(canOverlap('partition', 'latency')).toBe(false);
    expect(canOverlap('clock', 'pause')).toBe(false);
    expect(canOverlap('kill', 'partition')).toBe(true);
  });

  it('has a fault of every enabled family within the first as many faults as there are families', () => {
    for (let seed = 1; seed <= 20; seed++) {
      const schedule = generateSchedule({
        ...base,
        seed,
        families: ['partition', 'kill'],
        runMs: 16_000,
        warmupMs: 2_000,
        faultMsMin: 3_000,
        faultMsMax: 5_000,
        quietMsMin: 1_000,
        quietMsMax: 3_000,
      });
      expect(new Set(schedule.slice(0, 2).map((f) => f.fault.family))).toEqual(new Set(['partition', 'kill']));
    }
  });

  it('orders steps by time, a heal before a start at the same instant', () => {
    const schedule = generateSchedule({ ...base, runMs: 600_000, overlapOneIn: 2 });
    const steps = scheduleSteps(schedule);
    expect(steps).toHaveLength(schedule.length * 2);
    for (let i = 1; i < steps.length; i++) expect((steps[i]?.atMs ?? 0) >= (steps[i - 1]?.atMs ?? 0)).toBe(true);
    for (const fault of schedule) {
      const start = steps.findIndex((s) => s.fault === fault && s.kind === 'start');
      const heal = steps.findIndex((s) => s.fault === fault && s.kind === 'heal');
      expect(start).toBeLessThan(heal);
    }
  });

  it('draws only the enabled families, and each of them over a long run', () => {
    const schedule = generateSchedule({ ...base, runMs: 600_000 });
    expect(new Set(schedule.map((s) => s.fault.family))).toEqual(new Set(['kill', 'pause', 'partition', 'clock']));
    const clockOffsets = schedule.flatMap((s) => (s.fault.family === 'clock' ? [s.fault.offsetMs] : []));
    expect(clockOffsets.every((ms) => Math.abs(ms) <= 3_000 && Math.abs(ms) >= 750)).toBe(true);
  });
});

function reachable(nodes: readonly string[], cuts: readonly Cut[], from: string): Set<string> {
  const cut = new Set(cuts.map((c) => `${c.from}>${c.to}`));
  return new Set(nodes.filter((n) => n === from || !cut.has(`${from}>${n}`)));
}

describe('partition shapes', () => {
  const five = ['n1', 'n2', 'n3', 'n4', 'n5'];
  const three = ['n1', 'n2', 'n3'];

  it('cuts halves into a minority and a majority with no link between them', () => {
    const p = partitionFor('halves', five, undefined, new SeededPrng(1));
    const sizes = five.map((n) => reachable(five, p.cuts, n).size).sort();
    expect(sizes).toEqual([2, 2, 3, 3, 3]);
    expect(p.cuts).toHaveLength(2 * 2 * 3);
  });

  it('isolates the leader from everyone, both ways', () => {
    const p = partitionFor('isolated-leader', five, 'n4', new SeededPrng(1));
    expect(reachable(five, p.cuts, 'n4')).toEqual(new Set(['n4']));
    for (const n of five.filter((x) => x !== 'n4')) expect(reachable(five, p.cuts, n).has('n4')).toBe(false);
  });

  it('cuts one direction only in a one-way partition', () => {
    const p = partitionFor('one-way', three, 'n2', new SeededPrng(3));
    expect(p.cuts).toHaveLength(2);
    const pairs = new Set(p.cuts.map((c) => `${c.from}>${c.to}`));
    for (const c of p.cuts) expect(pairs.has(`${c.to}>${c.from}`)).toBe(false);
    expect(p.cuts.every((c) => c.from === 'n2') || p.cuts.every((c) => c.to === 'n2')).toBe(true);
  });

  it('gives every node a different majority in a majorities ring of five', () => {
    const p = partitionFor('majorities-ring', five, undefined, new SeededPrng(5));
    const views = five.map((n) => [...reachable(five, p.cuts, n)].sort().join(','));
    expect(views.every((v) => v.split(',').length === 3)).toBe(true);
    expect(new Set(views).size).toBe(5);
  });

  it('makes a directed ring of three where each node reaches only its successor', () => {
    const p = partitionFor('majorities-ring', three, undefined, new SeededPrng(5));
    expect(p.cuts).toHaveLength(3);
    for (const n of three) expect(reachable(three, p.cuts, n).size).toBe(2);
  });

  it('bridges two halves through one node that sees everyone', () => {
    const p = partitionFor('bridge', five, undefined, new SeededPrng(9));
    const views = five.map((n) => reachable(five, p.cuts, n).size).sort();
    expect(views).toEqual([3, 3, 3, 3, 5]);
  });

  it('draws every shape for three and five nodes without error', () => {
    for (const nodes of [three, five])
      for (const shape of partitionShapes)
        expect(partitionFor(shape, nodes, undefined, new SeededPrng(2)).cuts.length).toBeGreaterThan(0);
  });
});
