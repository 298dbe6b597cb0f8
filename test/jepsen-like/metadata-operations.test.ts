import { describe, expect, it } from 'vitest';
import type { HistoryOp } from '../../jepsen-like/history/history-op.js';
import type { OperationPair } from '../../jepsen-like/history/operation-pairs.js';
import { metadataOperations, metadataOpName } from '../../jepsen-like/linearizability/metadata-operations.js';
import type { MetadataInput } from '../../jepsen-like/linearizability/queue-metadata-model.js';

function pair(
  process: number,
  input: MetadataInput,
  outcome: OperationPair['outcome'],
  completeMs: number,
): OperationPair {
  const invoke: HistoryOp = { index: process * 2, process, type: 'invoke', f: metadataOpName, value: input, timeMs: 0 };
  const completion: HistoryOp | undefined =
    outcome === 'info' && completeMs === Number.POSITIVE_INFINITY
      ? undefined
      : {
          index: process * 2 + 1,
          process,
          type: outcome,
          f: metadataOpName,
          value: outcome === 'ok' ? { kind: 'ok' } : null,
          timeMs: completeMs,
        };
  return {
    process,
    f: metadataOpName,
    invoke,
    outcome,
    completion,
    invokeMs: 0,
    completeMs,
    completeIndex: completion === undefined ? Number.POSITIVE_INFINITY : process * 2 + 1,
  };
}

describe('metadataOperations', () => {
  it('keeps what completed and writes of unknown outcome; leaves out failures and reads of unknown outcome', () => {
    const q = 'jepsen-meta-0';
    const ops = metadataOperations([
      pair(1, { op: 'create', queue: q, value: 30 }, 'ok', 5),
      pair(2, { op: 'set', queue: q, value: 60 }, 'info', 8),
      pair(3, { op: 'delete', queue: q }, 'info', Number.POSITIVE_INFINITY),
      pair(4, { op: 'get', queue: q }, 'info', 9),
      pair(5, { op: 'get-url', queue: q }, 'info', Number.POSITIVE_INFINITY),
      pair(6, { op: 'list', queue: q }, 'info', 9),
      pair(7, { op: 'create', queue: q, value: 90 }, 'fail', 9),
      pair(8, { op: 'get', queue: q }, 'ok', 12),
    ]);
    expect(ops.map((o) => [o.process, o.input.op, o.returnMs])).toEqual([
      [1, 'create', 5],
      [2, 'set', Number.POSITIVE_INFINITY],
      [3, 'delete', Number.POSITIVE_INFINITY],
      [8, 'get', 12],
    ]);
  });
});
