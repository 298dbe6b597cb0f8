import type { OperationPair } from '../history/operation-pairs.js';
import type { LinearizableOperation } from './model.js';
import type { MetadataInput, MetadataOutput } from './queue-metadata-model.js';

/** The history function name of metadata operations; the invoke value is a MetadataInput. */
export const metadataOpName = 'metadata';

/** The operations that only read the register: one whose answer is unknown constrains nothing. */
const readOps: ReadonlySet<MetadataInput['op']> = new Set(['get', 'get-url', 'list']);

/**
 * Turns the metadata workload's operations into what the linearizability checker reads. A failed
 * operation definitely did not happen and is left out; an info one (or one that never completed)
 * may have happened at any time after its call, with an unknown answer, except a read: it changes
 * nothing and its answer is unknown, so any history is linearizable with it exactly when it is
 * without it, and it is left out. Kept in, each such read was one more operation for the search to
 * place anywhere after its call: a 16-second kill and pause run with 87 unknown operations among
 * 203 ran out of the search's 5,000,000 steps.
 */
export function metadataOperations(
  pairs: readonly OperationPair[],
): LinearizableOperation<MetadataInput, MetadataOutput>[] {
  const ops: LinearizableOperation<MetadataInput, MetadataOutput>[] = [];
  for (const pair of pairs) {
    if (pair.f !== metadataOpName || pair.outcome === 'fail') continue;
    const input = pair.invoke.value as MetadataInput;
    if (pair.outcome !== 'ok' && readOps.has(input.op)) continue;
    if (pair.outcome === 'ok') {
      ops.push({
        process: pair.process,
        input,
        output: pair.completion?.value as MetadataOutput,
        callMs: pair.invokeMs,
        returnMs: pair.completeMs,
      });
    } else {
      ops.push({
        process: pair.process,
        input,
        output: undefined,
        callMs: pair.invokeMs,
        returnMs: Number.POSITIVE_INFINITY,
      });
    }
  }
  return ops;
}
