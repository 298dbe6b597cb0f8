/**
 * ApproximateNumberOfMessages / NotVisible / Delayed by a bounded scan of the vis index of every
 * partition (trap 18). Rows at or before now are visible; later rows are in flight or delayed,
 * which the row's value tells apart. Exact while the queue has at most
 * raftqLimits.approximateCountRowsMax rows; beyond that the scan stops and the counts are lower
 * bounds (`isExact` false). No counter rows are kept: a counter every send, receive and delete
 * wrote would make all of them conflict with one another.
 */
import { raftqLimits } from '../base/limits.js';
import type { KeyRange, ReadView } from '../storage/txn.js';
import { keySuccessor } from '../storage/key-codec.js';
import type { GenerationKeys } from './key-layout.js';
import { decodeVisibilityState } from './message-record.js';

export interface MessageCounts {
  readonly visible: number;
  readonly inFlight: number;
  readonly delayed: number;
  readonly isExact: boolean;
}

const pageRows = 4_096;

/** Calls `visit` for each row of `range` until it returns false or `rowsMax` rows were seen. Returns rows seen. */
export async function scanBounded(
  view: ReadView,
  range: KeyRange,
  rowsMax: number,
  visit: (key: Uint8Array, value: Uint8Array) => boolean,
): Promise<{ rows: number; isComplete: boolean }> {
  let gte = range.gte;
  let rows = 0;
  for (;;) {
    const want = Math.min(pageRows, rowsMax - rows);
    if (want <= 0) return { rows, isComplete: false };
    const page = await view.scan({ gte, lt: range.lt }, { limit: want });
    for (const row of page) {
      rows++;
      if (!visit(row.key, row.value)) return { rows, isComplete: false };
    }
    const last = page[page.length - 1];
    if (last === undefined || page.length < want) return { rows, isComplete: true };
    gte = keySuccessor(last.key);
  }
}

export async function countMessages(
  view: ReadView,
  keys: GenerationKeys,
  partitionCount: number,
  nowMs: number,
  rowsMax = raftqLimits.approximateCountRowsMax.value,
): Promise<MessageCounts> {
  let visible = 0;
  let inFlight = 0;
  let delayed = 0;
  let isExact = true;
  let budget = rowsMax;
  for (let partition = 0; partition < partitionCount; partition++) {
    const visibleScan = await scanBounded(view, keys.visibleRange(partition, nowMs), budget, () => true);
    visible += visibleScan.rows;
    budget -= visibleScan.rows;
    const futureScan = await scanBounded(view, keys.futureRange(partition, nowMs), budget, (_key, value) => {
      if (decodeVisibilityState(value) === 'inflight') inFlight++;
      else delayed++;
      return true;
    });
    budget -= futureScan.rows;
    if (!visibleScan.isComplete || !futureScan.isComplete) {
      isExact = false;
      break;
    }
  }
  return { visible, inFlight, delayed, isExact };
}

/** In-flight messages, counting at most `countMax` + 1 (enough to decide OverLimit). */
export async function countInFlight(view: ReadView, keys: GenerationKeys, partitionCount: number, nowMs: number, countMax: number): Promise<number> {
  let inFlight = 0;
  for (let partition = 0; partition < partitionCount && inFlight <= countMax; partition++) {
    await scanBounded(view, keys.futureRange(partition, nowMs), 2 * (countMax + 1), (_key, value) => {
      if (decodeVisibilityState(value) === 'inflight') inFlight++;
      return inFlight <= countMax;
    });
  }
  return inFlight;
}
