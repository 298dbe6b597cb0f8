import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { raftLimits } from '../../src/base/limits.js';
import { GarbageCollectionScheduler } from '../../src/cluster/garbage-collection-scheduler.js';
import type { StateStore } from '../../src/cluster/state-store.js';

/**
 * A state whose every collection step is `stepsPerPass` steps into a pass of that many, applied
 * index moving on each step; or, with kind 'ledger', whose every step is of the garbage ledger and
 * leaves nothing due.
 */
function fakeState(stepsPerPass: number, kind: 'pass' | 'ledger' = 'pass') {
  const counts = { steps: 0, plans: 0 };
  const state = {
    appliedIndex: 0,
    mvcc: {
      hasGarbageToCollect: true,
      planGarbageStep: async () => {
        counts.plans += 1;
        return { plan: counts.plans };
      },
      finishGarbageStep: async () => {
        counts.steps += 1;
        state.appliedIndex += 1; // the node keeps applying: a finished pass does not end collection
        return { kind, isPassComplete: kind === 'ledger' || counts.steps % stepsPerPass === 0 };
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

function schedulerOver(state: StateStore | (() => StateStore)): GarbageCollectionScheduler {
  return new GarbageCollectionScheduler({
    logger: pino({ level: 'silent' }),
    state: typeof state === 'function' ? state : () => state,
    isStopping: () => false,
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

  it('does not rest after a step of the garbage ledger: it steps at every offer while the store has garbage due', async () => {
    const { state, counts } = fakeState(1, 'ledger');
    const scheduler = schedulerOver(state);
    await offer(scheduler, offersPerRest * 2);
    expect(counts.steps).toBe(offersPerRest * 2);
  });

  it('keeps one step in flight: offers while a step plans start nothing, and the step finishes what it planned', async () => {
    const { state, counts } = fakeState(100);
    const mvcc = state.mvcc as unknown as { planGarbageStep: () => Promise<unknown> };
    const planned = mvcc.planGarbageStep;
    let release: () => void = () => undefined;
    let started = 0;
    mvcc.planGarbageStep = async () => {
      started += 1;
      await new Promise<void>((resolve) => (release = resolve));
      return planned();
    };
    const scheduler = schedulerOver(state);
    await offer(scheduler, 3);
    expect(started).toBe(1); // the first plan still reads; the other two offers were skipped
    expect(counts.plans).toBe(0);
    release();
    await new Promise((resolve) => setImmediate(resolve));
    expect(counts.plans).toBe(1);
    expect(counts.steps).toBe(1);
  });

  it('drops a plan made on a state that a snapshot install replaced while the step read', async () => {
    const before = fakeState(100);
    const after = fakeState(100);
    let current = before.state;
    const beforeMvcc = before.state.mvcc as unknown as { planGarbageStep: () => Promise<unknown> };
    const planned = beforeMvcc.planGarbageStep;
    beforeMvcc.planGarbageStep = async () => {
      const plan = await planned();
      current = after.state; // the install ran between the plan and the removal
      return plan;
    };
    const scheduler = schedulerOver(() => current);
    await offer(scheduler, 1);
    expect(before.counts.plans).toBe(1);
    expect(before.counts.steps).toBe(0);
    expect(after.counts.steps).toBe(0);
    await offer(scheduler, 1); // the next step plans and removes on the new state
    expect(after.counts.plans).toBe(1);
    expect(after.counts.steps).toBe(1);
  });

  it('swallows a removal that fails because an install closed the state under it', async () => {
    const before = fakeState(100);
    const after = fakeState(100);
    let current = before.state;
    const warnings: unknown[] = [];
    const beforeMvcc = before.state.mvcc as unknown as { finishGarbageStep: () => Promise<unknown> };
    beforeMvcc.finishGarbageStep = async () => {
      current = after.state;
      throw new Error('Database is not open');
    };
    const scheduler = new GarbageCollectionScheduler({
      logger: { warn: (...args: unknown[]) => warnings.push(args) } as unknown as pino.Logger,
      state: () => current,
      isStopping: () => false,
      monotonicMs: () => 0,
      onStepSeconds: () => undefined,
    });
    await offer(scheduler, 1);
    expect(warnings).toEqual([]);
    await offer(scheduler, 1); // and collection goes on, on the new state
    expect(after.counts.steps).toBe(1);
  });
});
