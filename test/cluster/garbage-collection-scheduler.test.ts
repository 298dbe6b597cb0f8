import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { raftLimits } from '../../src/base/limits.js';
import { GarbageCollectionScheduler } from '../../src/cluster/garbage-collection-scheduler.js';
import type { StateStore } from '../../src/cluster/state-store.js';

/** A state whose every collection step is `stepsPerPass` steps into a pass of that many, applied index moving on each step. */
function fakeState(stepsPerPass: number) {
  const counts = { steps: 0 };
  const state = {
    appliedIndex: 0,
    mvcc: {
      hasGarbageToCollect: true,
      collectGarbage: async () => {
        counts.steps += 1;
        state.appliedIndex += 1; // the node keeps applying: a finished pass does not end collection
        return { isPassComplete: counts.steps % stepsPerPass === 0 };
      },
    },
  };
  return { state: state as unknown as StateStore, counts };
}

/** Offers `offers` chances to step, letting each step finish before the next offer. */
async function offer(scheduler: GarbageCollectionScheduler, offers: number): Promise<void> {
  for (let i = 0; i < offers; i++) {
    scheduler.maybeSchedule();
    await new Promise((resolve) => setImmediate(resolve));
  }
}

function schedulerOver(state: StateStore): GarbageCollectionScheduler {
  return new GarbageCollectionScheduler({
    logger: pino({ level: 'silent' }),
    state: () => state,
    isStopping: () => false,
    runInLoop: (task) => task(),
    monotonicMs: () => 0,
    onStepSeconds: () => undefined,
  });
}

describe('GarbageCollectionScheduler', () => {
  const offersPerRest = Math.ceil(
    raftLimits.garbageCollectionPassRestMs.value / raftLimits.garbageCollectionScheduleIntervalMs.value,
  );

  it('steps at every offer within a pass, then rests garbageCollectionPassRestMs before the next pass', async () => {
    const { state, counts } = fakeState(5);
    const scheduler = schedulerOver(state);
    await offer(scheduler, 5);
    expect(counts.steps).toBe(5); // one pass of five steps, one per offer
    await offer(scheduler, offersPerRest - 1);
    expect(counts.steps).toBe(5); // resting
    await offer(scheduler, 1);
    expect(counts.steps).toBe(6); // the next pass starts a rest's length after the last ended
  });

  it('rescans a one-step keyspace at most once per rest while the node applies', async () => {
    const { state, counts } = fakeState(1);
    const scheduler = schedulerOver(state);
    await offer(scheduler, offersPerRest * 4);
    expect(counts.steps).toBe(4);
  });
});
