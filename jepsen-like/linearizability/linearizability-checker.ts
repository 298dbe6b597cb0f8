import { assert } from '../../src/base/assert.js';
import type { LinearizableOperation, Model } from './model.js';

export type LinearizabilityVerdict = 'linearizable' | 'not-linearizable' | 'unknown';

export interface PartitionResult {
  readonly key: string;
  readonly verdict: LinearizabilityVerdict;
  readonly operations: number;
  readonly steps: number;
  /** For a non-linearizable partition: the longest prefix of a linearization the search found, described. */
  readonly longestLinearization?: string[];
  /** For a non-linearizable partition: the operations that could not be placed after that prefix. */
  readonly stuckAt?: string[];
}

export interface LinearizabilityResult {
  readonly verdict: LinearizabilityVerdict;
  readonly valid: boolean | 'unknown';
  readonly operations: number;
  readonly partitions: PartitionResult[];
  /** Why the result is unknown, when it is. */
  readonly unknownReason?: string;
}

export interface SearchBudget {
  /** Search steps (call entries tried) over all partitions before giving up with 'unknown'. */
  readonly stepsMax: number;
  /** Wall time for the whole check, measured by `nowMs`. */
  readonly timeMsMax: number;
  readonly nowMs: () => number;
}

interface Entry {
  kind: 'call' | 'return';
  opId: number;
  timeMs: number;
  /** For a call: its return entry. */
  match: Entry | undefined;
  prev: Entry | undefined;
  next: Entry | undefined;
}

/**
 * Checks a history against a sequential model, after Wing & Gong as refined by Lowe and by
 * Porcupine: partition the operations by key (linearizability is compositional, Herlihy & Wing
 * §3.3), then for each partition search depth-first for an order of linearization points
 * consistent with real time — an operation may be linearized only if it was called before every
 * pending operation returned — memoizing (set of linearized operations, model state) so no state
 * of the search is explored twice. Operations with unknown outcomes return at infinity with an
 * unknown output: they may take effect anywhere after their call, or, placed last, not at all.
 */
export function checkLinearizability<S, I, O>(
  model: Model<S, I, O>,
  operations: readonly LinearizableOperation<I, O>[],
  budget: SearchBudget,
): LinearizabilityResult {
  const byKey = new Map<string, LinearizableOperation<I, O>[]>();
  for (const op of operations) {
    const key = model.partitionKey(op.input);
    const list = byKey.get(key) ?? [];
    list.push(op);
    byKey.set(key, list);
  }
  const deadlineMs = budget.nowMs() + budget.timeMsMax;
  let stepsLeft = budget.stepsMax;
  const partitions: PartitionResult[] = [];
  for (const [key, ops] of [...byKey].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
    const result = checkPartition(model, key, ops, { stepsLeft, deadlineMs, nowMs: budget.nowMs });
    stepsLeft -= result.steps;
    partitions.push(result);
  }
  const failed = partitions.some((p) => p.verdict === 'not-linearizable');
  const unknown = partitions.some((p) => p.verdict === 'unknown');
  const verdict: LinearizabilityVerdict = failed ? 'not-linearizable' : unknown ? 'unknown' : 'linearizable';
  return {
    verdict,
    valid: verdict === 'linearizable' ? true : verdict === 'not-linearizable' ? false : 'unknown',
    operations: operations.length,
    partitions,
    ...(verdict === 'unknown'
      ? { unknownReason: 'the search ran out of its step or time budget before deciding' }
      : {}),
  };
}

function checkPartition<S, I, O>(
  model: Model<S, I, O>,
  key: string,
  ops: readonly LinearizableOperation<I, O>[],
  limits: { stepsLeft: number; deadlineMs: number; nowMs: () => number },
): PartitionResult {
  const head = buildEntries(ops);
  const linearized = new Uint32Array(Math.ceil(ops.length / 32) + 1);
  const cache = new Set<string>();
  const stack: { call: Entry; state: S }[] = [];
  let state = model.init();
  let entry = head.next;
  let steps = 0;
  let longest: number[] = [];
  while (head.next !== undefined) {
    if (steps >= limits.stepsLeft || (steps % 1024 === 0 && limits.nowMs() > limits.deadlineMs)) {
      return { key, verdict: 'unknown', operations: ops.length, steps };
    }
    assert(entry !== undefined, 'the entry list ended before every operation was linearized');
    if (entry.kind === 'call') {
      steps++;
      const op = ops[entry.opId];
      assert(op !== undefined);
      const next = model.step(state, op.input, op.output);
      if (next !== undefined) {
        setBit(linearized, entry.opId, true);
        const cacheKey = `${bitsKey(linearized)}|${model.hashState(next)}`;
        if (!cache.has(cacheKey)) {
          cache.add(cacheKey);
          stack.push({ call: entry, state });
          state = next;
          lift(entry);
          if (stack.length > longest.length) longest = stack.map((s) => s.call.opId);
          entry = head.next;
          continue;
        }
        setBit(linearized, entry.opId, false);
      }
      entry = entry.next;
      continue;
    }
    // A return: the operation it ends must have been linearized before now. Backtrack.
    const top = stack.pop();
    if (top === undefined) {
      return {
        key,
        verdict: 'not-linearizable',
        operations: ops.length,
        steps,
        longestLinearization: longest.map((id) => describeOp(model, ops, id)),
        stuckAt: pendingAfter(ops, longest).map((id) => describeOp(model, ops, id)),
      };
    }
    state = top.state;
    setBit(linearized, top.call.opId, false);
    unlift(top.call);
    entry = top.call.next;
  }
  return { key, verdict: 'linearizable', operations: ops.length, steps };
}

function buildEntries<I, O>(ops: readonly LinearizableOperation<I, O>[]): Entry {
  const entries: Entry[] = [];
  ops.forEach((op, opId) => {
    assert(op.returnMs >= op.callMs, `operation ${opId} returns before it is called`);
    const ret: Entry = {
      kind: 'return',
      opId,
      timeMs: op.returnMs,
      match: undefined,
      prev: undefined,
      next: undefined,
    };
    entries.push({ kind: 'call', opId, timeMs: op.callMs, match: ret, prev: undefined, next: undefined }, ret);
  });
  // At equal times calls go first: operations that touch are treated as concurrent.
  entries.sort((a, b) => a.timeMs - b.timeMs || (a.kind === b.kind ? a.opId - b.opId : a.kind === 'call' ? -1 : 1));
  const head: Entry = {
    kind: 'call',
    opId: -1,
    timeMs: Number.NEGATIVE_INFINITY,
    match: undefined,
    prev: undefined,
    next: undefined,
  };
  let last = head;
  for (const e of entries) {
    last.next = e;
    e.prev = last;
    last = e;
  }
  return head;
}

/** Removes a call and its return from the list. */
function lift(call: Entry): void {
  const ret = call.match;
  assert(ret !== undefined && call.prev !== undefined && ret.prev !== undefined);
  call.prev.next = call.next;
  if (call.next !== undefined) call.next.prev = call.prev;
  ret.prev.next = ret.next;
  if (ret.next !== undefined) ret.next.prev = ret.prev;
}

/** Puts a lifted call and its return back, in the reverse order of lift. */
function unlift(call: Entry): void {
  const ret = call.match;
  assert(ret !== undefined && call.prev !== undefined && ret.prev !== undefined);
  ret.prev.next = ret;
  if (ret.next !== undefined) ret.next.prev = ret;
  call.prev.next = call;
  if (call.next !== undefined) call.next.prev = call;
}

function setBit(bits: Uint32Array, index: number, value: boolean): void {
  const word = index >>> 5;
  const mask = 1 << (index & 31);
  bits[word] = value ? (bits[word] ?? 0) | mask : (bits[word] ?? 0) & ~mask;
}

function bitsKey(bits: Uint32Array): string {
  let key = '';
  for (const word of bits) key += `${(word >>> 0).toString(36)},`;
  return key;
}

function describeOp<S, I, O>(model: Model<S, I, O>, ops: readonly LinearizableOperation<I, O>[], id: number): string {
  const op = ops[id];
  assert(op !== undefined);
  const returned = Number.isFinite(op.returnMs) ? op.returnMs.toFixed(1) : '?';
  return `p${op.process} [${op.callMs.toFixed(1)}, ${returned}] ${model.describe(op.input, op.output)}`;
}

/** Operations not in the longest linearization, earliest call first, for the report. */
function pendingAfter<I, O>(ops: readonly LinearizableOperation<I, O>[], linearizedIds: readonly number[]): number[] {
  const done = new Set(linearizedIds);
  return ops
    .map((op, id) => ({ op, id }))
    .filter(({ id }) => !done.has(id))
    .sort((a, b) => a.op.callMs - b.op.callMs)
    .slice(0, 8)
    .map(({ id }) => id);
}
