/**
 * ApproximateNumberOfMessages / NotVisible / Delayed by bounded scans of every partition (docs/TRAPS.md, trap 18).
 * A message's vis row stays where the send put it (message-store.ts), so the vis rows say which
 * messages exist and which were never received and are still delayed; the state rows say which
 * received messages are in flight now. Visible is the rest, less the messages past their retention
 * period that the reaper has not removed yet (the retention start their vis row carries; vis rows
 * of the oldest layout carry none, so such messages count until the reaper removes them). Exact while the
 * queue has at most raftqLimits.approximateCountRowsMax rows of each kind; beyond that the scan
 * stops and the counts are lower bounds (`isExact` false). No counter rows are kept: a counter
 * every send, receive and delete wrote would make all of them conflict with one another.
 */
import { raftqLimits } from '../base/limits.js';
import type { KeyRange, ReadView } from '../storage/txn.js';
import { keySuccessor } from '../storage/key-codec.js';
import { parseMessageRowKey, type GenerationKeys } from './layout/key-layout.js';
import { decodeVisibilityState, retentionStartMsOfVisibilityValue } from './layout/vis-row.js';
import { decodeReceiveState } from './layout/receive-state.js';

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
  retentionSeconds: number,
  rowsMax = raftqLimits.approximateCountRowsMax.value,
): Promise<MessageCounts> {
  let present = 0;
  let inFlight = 0;
  let delayed = 0;
  let expired = 0;
  let isExact = true;
  let budget = rowsMax;
  // Expired at nowMs: retention started before this cutoff.
  const cutoffMs = nowMs - retentionSeconds * 1000 + 1;
  for (let partition = 0; partition < partitionCount && isExact; partition++) {
    const visScan = await scanBounded(view, keys.visibilityPrefix(partition), budget, (key, value) => {
      // A future vis row of a never-received message is delayed; every other message is visible or in flight.
      if (visibleAtOfVisKey(key) > nowMs && decodeVisibilityState(value) === 'pending') delayed++;
      else present++;
      const retentionStartMs = retentionStartMsOfVisibilityValue(value);
      if (retentionStartMs !== undefined && retentionStartMs < cutoffMs) expired++;
      return true;
    });
    const stateScan = await scanBounded(view, keys.receiveStatePrefix(partition), budget, (_key, value) => {
      if (decodeReceiveState(value).state.visibleAtMs > nowMs) inFlight++;
      return true;
    });
    budget -= Math.max(visScan.rows, stateScan.rows);
    isExact = visScan.isComplete && stateScan.isComplete;
  }
  const visible = Math.max(0, present - inFlight - expired);
  return { visible, inFlight, delayed, isExact };
}

/** Received messages not yet visible again, counting at most `countMax` + 1 (enough to decide OverLimit). */
export async function countInFlight(
  view: ReadView,
  keys: GenerationKeys,
  partitionCount: number,
  nowMs: number,
  countMax: number,
): Promise<number> {
  let inFlight = 0;
  for (let partition = 0; partition < partitionCount && inFlight <= countMax; partition++) {
    await scanBounded(view, keys.receiveStatePrefix(partition), Number.MAX_SAFE_INTEGER, (_key, value) => {
      if (decodeReceiveState(value).state.visibleAtMs > nowMs) inFlight++;
      return inFlight <= countMax;
    });
  }
  return inFlight;
}

function visibleAtOfVisKey(key: Uint8Array): number {
  const row = parseMessageRowKey(key);
  return row?.family === 'vis' ? row.visibleAtMs : 0;
}
