import { describe, expect, it } from 'vitest';
import { checkLinearizability, type SearchBudget } from '../../jepsen-like/linearizability/linearizability-checker.js';
import type { LinearizableOperation } from '../../jepsen-like/linearizability/model.js';
import {
  queueMetadataModel,
  type MetadataInput,
  type MetadataOutput,
} from '../../jepsen-like/linearizability/queue-metadata-model.js';
import { SeededPrng } from '../../src/base/prng.js';

type Op = LinearizableOperation<MetadataInput, MetadataOutput>;
const budget: SearchBudget = { stepsMax: 1_000_000, timeMsMax: 10_000, nowMs: () => performance.now() };
const ok: MetadataOutput = { kind: 'ok' };
const missing: MetadataOutput = { kind: 'does-not-exist' };
const value = (v: number): MetadataOutput => ({ kind: 'value', value: v });

function op(
  process: number,
  input: MetadataInput,
  output: MetadataOutput | undefined,
  callMs: number,
  returnMs: number,
): Op {
  return { process, input, output, callMs, returnMs };
}

describe('linearizability checker on the queue metadata register', () => {
  it('accepts a sequential history that follows the model', () => {
    const ops = [
      op(0, { op: 'create', queue: 'q', value: 30 }, ok, 0, 1),
      op(0, { op: 'get', queue: 'q' }, value(30), 2, 3),
      op(0, { op: 'set', queue: 'q', value: 45 }, ok, 4, 5),
      op(0, { op: 'get', queue: 'q' }, value(45), 6, 7),
      op(0, { op: 'delete', queue: 'q' }, ok, 8, 9),
      op(0, { op: 'get', queue: 'q' }, missing, 10, 11),
    ];
    const result = checkLinearizability(queueMetadataModel, ops, budget);
    expect(result.verdict).toBe('linearizable');
    expect(result.valid).toBe(true);
  });

  it('rejects a stale read: a get after a set completed returns the old value', () => {
    const ops = [
      op(0, { op: 'create', queue: 'q', value: 30 }, ok, 0, 1),
      op(0, { op: 'set', queue: 'q', value: 45 }, ok, 2, 3),
      op(1, { op: 'get', queue: 'q' }, value(30), 4, 5),
    ];
    const result = checkLinearizability(queueMetadataModel, ops, budget);
    expect(result.verdict).toBe('not-linearizable');
    expect(result.valid).toBe(false);
    expect(result.partitions[0]?.stuckAt?.some((d) => d.includes('get(q) -> 30'))).toBe(true);
  });

  it('accepts a read that overlaps a write returning either value', () => {
    for (const seen of [30, 45]) {
      const ops = [
        op(0, { op: 'create', queue: 'q', value: 30 }, ok, 0, 1),
        op(0, { op: 'set', queue: 'q', value: 45 }, ok, 2, 10),
        op(1, { op: 'get', queue: 'q' }, value(seen), 3, 5),
      ];
      expect(checkLinearizability(queueMetadataModel, ops, budget).verdict).toBe('linearizable');
    }
  });

  it('rejects two reads that see the overlapping write in opposite orders', () => {
    const ops = [
      op(0, { op: 'create', queue: 'q', value: 30 }, ok, 0, 1),
      op(0, { op: 'set', queue: 'q', value: 45 }, ok, 2, 20),
      op(1, { op: 'get', queue: 'q' }, value(45), 3, 5),
      op(2, { op: 'get', queue: 'q' }, value(30), 6, 8),
    ];
    expect(checkLinearizability(queueMetadataModel, ops, budget).verdict).toBe('not-linearizable');
  });

  it('lets an operation with an unknown outcome take effect later, or never', () => {
    const tookEffect = [
      op(0, { op: 'create', queue: 'q', value: 30 }, ok, 0, 1),
      op(1, { op: 'set', queue: 'q', value: 45 }, undefined, 2, Number.POSITIVE_INFINITY),
      op(2, { op: 'get', queue: 'q' }, value(30), 10, 11),
      op(2, { op: 'get', queue: 'q' }, value(45), 100, 101),
    ];
    const neverDid = [
      op(0, { op: 'create', queue: 'q', value: 30 }, ok, 0, 1),
      op(1, { op: 'delete', queue: 'q' }, undefined, 2, Number.POSITIVE_INFINITY),
      op(2, { op: 'get', queue: 'q' }, value(30), 100, 101),
    ];
    expect(checkLinearizability(queueMetadataModel, tookEffect, budget).verdict).toBe('linearizable');
    expect(checkLinearizability(queueMetadataModel, neverDid, budget).verdict).toBe('linearizable');
  });

  it('still rejects a history that no placement of the unknown operation can explain', () => {
    const ops = [
      op(0, { op: 'create', queue: 'q', value: 30 }, ok, 0, 1),
      op(1, { op: 'set', queue: 'q', value: 45 }, undefined, 2, Number.POSITIVE_INFINITY),
      op(2, { op: 'get', queue: 'q' }, value(45), 10, 11),
      op(2, { op: 'get', queue: 'q' }, value(30), 20, 21),
    ];
    expect(checkLinearizability(queueMetadataModel, ops, budget).verdict).toBe('not-linearizable');
  });

  it('models CreateQueue on an existing queue with other attributes as QueueAlreadyExists', () => {
    const good = [
      op(0, { op: 'create', queue: 'q', value: 30 }, ok, 0, 1),
      op(0, { op: 'create', queue: 'q', value: 45 }, { kind: 'already-exists' }, 2, 3),
      op(0, { op: 'create', queue: 'q', value: 30 }, ok, 4, 5),
    ];
    const bad = [
      op(0, { op: 'create', queue: 'q', value: 30 }, ok, 0, 1),
      op(0, { op: 'create', queue: 'q', value: 45 }, ok, 2, 3),
    ];
    expect(checkLinearizability(queueMetadataModel, good, budget).verdict).toBe('linearizable');
    expect(checkLinearizability(queueMetadataModel, bad, budget).verdict).toBe('not-linearizable');
  });

  it('models CreateQueue with equal attributes on an existing queue as ok, and rejects it where the queue must differ', () => {
    // The no-write answer: a create that meets an equal queue says ok and changes nothing.
    const good = [
      op(0, { op: 'create', queue: 'q', value: 30 }, ok, 0, 1),
      op(1, { op: 'create', queue: 'q', value: 30 }, ok, 2, 3),
      op(0, { op: 'get', queue: 'q' }, value(30), 4, 5),
    ];
    expect(checkLinearizability(queueMetadataModel, good, budget).verdict).toBe('linearizable');
    // Answered from a stale view: the set to 60 had completed, so the equal-attribute create must fail.
    const stale = [
      op(0, { op: 'create', queue: 'q', value: 30 }, ok, 0, 1),
      op(0, { op: 'set', queue: 'q', value: 60 }, ok, 2, 3),
      op(1, { op: 'create', queue: 'q', value: 30 }, ok, 4, 5),
    ];
    expect(checkLinearizability(queueMetadataModel, stale, budget).verdict).toBe('not-linearizable');
  });

  it('models GetQueueUrl and ListQueues as reads of whether the queue exists', () => {
    const listed = (...names: string[]): MetadataOutput => ({ kind: 'listed', names });
    const good = [
      op(0, { op: 'get-url', queue: 'q' }, missing, 0, 1),
      op(0, { op: 'list', queue: 'q' }, listed(), 2, 3),
      op(0, { op: 'create', queue: 'q', value: 30 }, ok, 4, 5),
      op(0, { op: 'get-url', queue: 'q' }, ok, 6, 7),
      op(0, { op: 'list', queue: 'q' }, listed('q'), 8, 9),
    ];
    expect(checkLinearizability(queueMetadataModel, good, budget).verdict).toBe('linearizable');
    const afterDelete = [
      op(0, { op: 'create', queue: 'q', value: 30 }, ok, 0, 1),
      op(0, { op: 'delete', queue: 'q' }, ok, 2, 3),
    ];
    expect(
      checkLinearizability(queueMetadataModel, [...afterDelete, op(1, { op: 'get-url', queue: 'q' }, ok, 4, 5)], budget)
        .verdict,
    ).toBe('not-linearizable');
    expect(
      checkLinearizability(
        queueMetadataModel,
        [...afterDelete, op(1, { op: 'list', queue: 'q' }, listed('q'), 4, 5)],
        budget,
      ).verdict,
    ).toBe('not-linearizable');
    // A listing that names another queue is wrong whatever the state.
    expect(
      checkLinearizability(
        queueMetadataModel,
        [
          op(0, { op: 'create', queue: 'q', value: 30 }, ok, 0, 1),
          op(1, { op: 'list', queue: 'q' }, listed('q', 'q2'), 2, 3),
        ],
        budget,
      ).verdict,
    ).toBe('not-linearizable');
  });

  it('checks each queue on its own and blames only the broken one', () => {
    const ops = [
      op(0, { op: 'create', queue: 'a', value: 1 }, ok, 0, 1),
      op(1, { op: 'create', queue: 'b', value: 2 }, ok, 0, 1),
      op(0, { op: 'get', queue: 'a' }, value(1), 2, 3),
      op(1, { op: 'get', queue: 'b' }, missing, 2, 3),
    ];
    const result = checkLinearizability(queueMetadataModel, ops, budget);
    expect(result.verdict).toBe('not-linearizable');
    expect(result.partitions.map((p) => [p.key, p.verdict])).toEqual([
      ['a', 'linearizable'],
      ['b', 'not-linearizable'],
    ]);
  });

  it('answers unknown, not valid, when the step budget runs out', () => {
    const ops: Op[] = [op(0, { op: 'create', queue: 'q', value: 0 }, ok, 0, 1)];
    for (let i = 1; i <= 40; i++) ops.push(op(i, { op: 'set', queue: 'q', value: i }, ok, 2, 100));
    ops.push(op(99, { op: 'get', queue: 'q' }, value(1), 101, 102));
    const result = checkLinearizability(queueMetadataModel, ops, { ...budget, stepsMax: 50 });
    expect(result.verdict).toBe('unknown');
    expect(result.valid).toBe('unknown');
    expect(result.unknownReason).toMatch(/budget/);
  });

  it('decides many concurrent writes quickly thanks to the state cache', () => {
    // 10 concurrent sets then a read of the first one's value, which must therefore come last:
    // without memoization the search tries up to 10! (3.6 million) orders; with it, at most one
    // visit per (set of linearized operations, state), a few tens of thousands of steps.
    const ops: Op[] = [op(0, { op: 'create', queue: 'q', value: 0 }, ok, 0, 1)];
    for (let i = 1; i <= 10; i++) ops.push(op(i, { op: 'set', queue: 'q', value: i }, ok, 2, 100));
    ops.push(op(99, { op: 'get', queue: 'q' }, value(1), 101, 102));
    const result = checkLinearizability(queueMetadataModel, ops, budget);
    expect(result.verdict).toBe('linearizable');
    expect(result.partitions[0]?.steps).toBeLessThan(200_000);
  });

  it('agrees with a brute-force search on small random histories', () => {
    const prng = new SeededPrng(7);
    for (let round = 0; round < 200; round++) {
      const ops = randomHistory(prng, 5);
      const fast = checkLinearizability(queueMetadataModel, ops, budget).verdict === 'linearizable';
      expect(fast, JSON.stringify(ops)).toBe(bruteForce(ops));
    }
  });
});

function randomHistory(prng: SeededPrng, count: number): Op[] {
  const ops: Op[] = [];
  let state: number | null = null;
  // Random intervals; outputs from a random sequential run, sometimes corrupted.
  for (let i = 0; i < count; i++) {
    const callMs = prng.intBelow(20);
    const returnMs = prng.nextFloat() < 0.15 ? Number.POSITIVE_INFINITY : callMs + 1 + prng.intBelow(10);
    const kind = prng.intBelow(6);
    const inputs: MetadataInput[] = [
      { op: 'create', queue: 'q', value: prng.intBelow(3) },
      { op: 'delete', queue: 'q' },
      { op: 'set', queue: 'q', value: prng.intBelow(3) },
      { op: 'get', queue: 'q' },
      { op: 'get-url', queue: 'q' },
      { op: 'list', queue: 'q' },
    ];
    const input = inputs[kind] as MetadataInput;
    let output: MetadataOutput | undefined;
    const outcomes: MetadataOutput[] = [
      ok,
      missing,
      { kind: 'already-exists' },
      value(0),
      value(1),
      value(2),
      { kind: 'listed', names: [] },
      { kind: 'listed', names: ['q'] },
    ];
    const next = queueMetadataModel.step(state, input, undefined);
    if (prng.nextFloat() < 0.7) {
      const candidates = outcomes.filter((o) => queueMetadataModel.step(state, input, o) !== undefined);
      output = candidates[prng.intBelow(candidates.length)];
      state = next ?? state;
    } else {
      output = outcomes[prng.intBelow(outcomes.length)];
    }
    ops.push({ process: i, input, output: Number.isFinite(returnMs) ? output : undefined, callMs, returnMs });
  }
  return ops;
}

/** Every permutation consistent with real time, run through the model: the definition itself. */
function bruteForce(ops: readonly Op[]): boolean {
  const used = new Array<boolean>(ops.length).fill(false);
  const search = (state: number | null, placed: number): boolean => {
    if (placed === ops.length) return true;
    for (let i = 0; i < ops.length; i++) {
      const candidate = ops[i];
      if (used[i] || candidate === undefined) continue;
      // candidate may go next only if no unplaced operation returned before it was called.
      const blocked = ops.some((other, j) => j !== i && !used[j] && other.returnMs < candidate.callMs);
      if (blocked) continue;
      const next = queueMetadataModel.step(state, candidate.input, candidate.output);
      if (next === undefined) continue;
      used[i] = true;
      if (search(next, placed + 1)) return true;
      used[i] = false;
    }
    return false;
  };
  return search(null, 0);
}
