import { describe, expect, it } from 'vitest';
import { runOnUntilEnoughToCheck } from '../../jepsen-like/runner/run-on-until-checked.js';

/** A workload whose count grows by `perPause` at each of the run's pauses. */
function growing(name: string, start: number, perPause: number) {
  let count = start;
  return { name, opsToCheck: () => count, grow: () => (count += perPause) };
}

function virtualRun(workloads: ReadonlyArray<ReturnType<typeof growing>>) {
  let nowMs = 0;
  const lines: string[] = [];
  const parts = {
    pause: async (ms: number) => {
      nowMs += ms;
      for (const w of workloads) w.grow();
    },
    nowMs: () => nowMs,
    log: (line: string) => lines.push(line),
  };
  return { parts, lines, elapsedMs: () => nowMs };
}

describe('runOnUntilEnoughToCheck', () => {
  it('keeps the clients going until every workload has the operations its checkers need, and no longer', async () => {
    const queue = growing('queue', 30, 1);
    const metadata = growing('metadata', 17, 1);
    const run = virtualRun([queue, metadata]);
    await runOnUntilEnoughToCheck([queue, metadata], { opsPerWorkloadMin: 21, timeSeconds: 16 }, run.parts);
    expect(metadata.opsToCheck()).toBe(21);
    expect(run.elapsedMs()).toBe(4 * 250);
    expect(run.lines).toEqual(['fewer than 21 operations to check (metadata 17): clients run on, healed']);
  });

  it('gives up after timeSeconds more and says which workloads are still short', async () => {
    const stuck = growing('fifo', 3, 0);
    const run = virtualRun([stuck]);
    await runOnUntilEnoughToCheck([stuck], { opsPerWorkloadMin: 21, timeSeconds: 2 }, run.parts);
    expect(run.elapsedMs()).toBe(2_000);
    expect(run.lines.at(-1)).toBe('still short after 2 s more: fifo 3');
  });
});
