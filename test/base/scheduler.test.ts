import { describe, expect, it } from 'vitest';
import { SystemScheduler } from '../../src/base/scheduler.js';

/** Keeps the event loop busy for `ms`, so that the next timer starts at a fraction of a millisecond. */
function busyFor(ms: number): void {
  const untilMs = performance.now() + ms;
  while (performance.now() < untilMs) {
    // spin
  }
}

function waitedMs(scheduler: SystemScheduler, delayMs: number): Promise<number> {
  const setAtMs = scheduler.monotonicMs();
  return new Promise((resolve) => scheduler.after(delayMs, () => resolve(scheduler.monotonicMs() - setAtMs)));
}

describe('SystemScheduler.after', () => {
  it('runs fn only once delayMs have passed on monotonicMs', async () => {
    // A bare setTimeout counts whole milliseconds of the loop's clock and fires up to 1 ms early
    // on performance.now() in about one case of ten; 300 timers set at scattered fractions of a
    // millisecond would all but surely catch it.
    const scheduler = new SystemScheduler();
    const shortWaitsMs: number[] = [];
    for (let i = 0; i < 300; i++) {
      busyFor((i % 10) / 10);
      const ms = await waitedMs(scheduler, 3);
      if (ms < 3) shortWaitsMs.push(ms);
    }
    expect(shortWaitsMs).toEqual([]);
  });

  it('never runs fn once cancelled, also while it waits out an early wake-up', async () => {
    const scheduler = new SystemScheduler();
    let runsAfterCancel = 0;
    for (let i = 0; i < 50; i++) {
      let cancelled = false;
      busyFor((i % 10) / 10);
      const cancel = scheduler.after(3, () => {
        if (cancelled) runsAfterCancel++;
      });
      // Cancels at about the first wake-up: before it, or after it came early and re-armed.
      busyFor(2 + (i % 10) / 10);
      await new Promise((resolve) => setImmediate(resolve));
      cancel();
      cancelled = true;
    }
    await waitedMs(scheduler, 10);
    expect(runsAfterCancel).toBe(0);
  });
});
