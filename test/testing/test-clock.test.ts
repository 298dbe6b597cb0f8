import { describe, expect, it } from 'vitest';
import { ManualTestClock, RealTestClock } from '../../src/testing/test-clock.js';

/** The manual clock of a test node: its timers fire when advance() reaches them, in time order, and never by themselves. */

describe('ManualTestClock', () => {
  it('fires each timer when the clock reaches it, in time order, with the clock at its due time', () => {
    const clock = new ManualTestClock(1_000);
    const fired: Array<[string, number]> = [];
    clock.setTimerMs(300, () => fired.push(['c', clock.nowMs()]));
    clock.setTimerMs(100, () => fired.push(['a', clock.nowMs()]));
    clock.setTimerMs(200, () => fired.push(['b', clock.nowMs()]));
    clock.advance(150);
    expect(fired).toEqual([['a', 1_100]]);
    expect(clock.nowMs()).toBe(1_150);
    clock.advance(10_000);
    expect(fired).toEqual([
      ['a', 1_100],
      ['b', 1_200],
      ['c', 1_300],
    ]);
    expect(clock.nowMs()).toBe(11_150);
  });

  it('fires a timer set by a firing timer if it is due before the target, and never one that was cancelled', () => {
    const clock = new ManualTestClock(0);
    const fired: number[] = [];
    clock.setTimerMs(10, () => {
      fired.push(clock.nowMs());
      clock.setTimerMs(10, () => fired.push(clock.nowMs()));
      clock.setTimerMs(1_000, () => fired.push(clock.nowMs()));
    });
    const cancel = clock.setTimerMs(15, () => fired.push(-1));
    cancel();
    clock.advance(100);
    expect(fired).toEqual([10, 20]);
  });

  it('runs a zero-delay timer on the next turn of the event loop without advancing, and refuses to go back', async () => {
    const clock = new ManualTestClock(5);
    const fired = new Promise<number>((resolve) => clock.setTimerMs(0, () => resolve(clock.nowMs())));
    expect(await fired).toBe(5);
    expect(() => clock.advance(-1)).toThrow(RangeError);
  });

  it('cancelAll drops every pending timer', () => {
    const clock = new ManualTestClock(0);
    let isFired = false;
    clock.setTimerMs(10, () => (isFired = true));
    clock.cancelAll();
    clock.advance(100);
    expect(isFired).toBe(false);
  });
});

describe('RealTestClock', () => {
  it('cannot be advanced', () => {
    expect(() => new RealTestClock().advance()).toThrow(/manual clock/);
  });
});
