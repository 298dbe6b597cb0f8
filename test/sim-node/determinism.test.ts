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

  it('runs the node code on virtual time alone: no host clock read and no host timer set from src/ during a run', async () => {
    const g = globalThis as unknown as Record<string, unknown>;
    const names = ['setTimeout', 'setInterval', 'setImmediate'] as const;
    const hostTimers = names.map((name) => g[name]);
    const hostDateNow = Date.now;
    const hostPerformanceNow = performance.now;
    const fromSrc: string[] = [];
    // A call whose stack passes through the project's src/ is the node's (vitest and Node's own are not).
    const note = (name: string): void => {
      const frame = (new Error().stack ?? '').split('\n').find((line) => /[\\/]src[\\/]/.test(line));
      if (frame !== undefined) fromSrc.push(`${name} ${frame.trim()}`);
    };
    names.forEach((name, i) => {
      const host = hostTimers[i] as (...args: unknown[]) => unknown;
      g[name] = (...args: unknown[]) => {
        note(name);
        return host(...args);
      };
    });
    Date.now = () => {
      note('Date.now');
      return hostDateNow();
    };
    performance.now = () => {
      note('performance.now');
      return hostPerformanceNow.call(performance);
    };
    try {
      await runNodeSimulation(2, { chaosMs: 4_000 });
    } finally {
      names.forEach((name, i) => (g[name] = hostTimers[i]));
      Date.now = hostDateNow;
      performance.now = hostPerformanceNow;
    }
    expect([...new Set(fromSrc)]).toEqual([]);
  });
});
