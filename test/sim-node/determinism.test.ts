import { describe, expect, it } from 'vitest';
import { runNodeSimulation } from './node-simulation.js';

describe('whole-node simulation determinism', () => {
  it('replays a seed exactly: the same trace, event count and hash', async () => {
    const first = await runNodeSimulation(2, { isKeepingTrace: true, chaosMs: 6_000 });
    const second = await runNodeSimulation(2, { isKeepingTrace: true, chaosMs: 6_000 });
    expect(first.trace.length).toBeGreaterThan(50);
    expect(second.trace).toEqual(first.trace);
    expect(second.events).toBe(first.events);
    expect(second.traceHash).toBe(first.traceHash);
  });

  it('gives another seed another run', async () => {
    const a = await runNodeSimulation(4, { chaosMs: 6_000 });
    const b = await runNodeSimulation(6, { chaosMs: 6_000 });
    expect(b.traceHash).not.toBe(a.traceHash);
  });

  it('puts the host clock and timers back after a run', async () => {
    const before = Date.now();
    await runNodeSimulation(8, { chaosMs: 2_000 });
    expect(Math.abs(Date.now() - before)).toBeLessThan(600_000);
    await new Promise<void>((resolve) => setTimeout(resolve, 1));
  });
});
