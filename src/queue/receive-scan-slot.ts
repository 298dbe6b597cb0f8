/**
 * Where in the head of a standard queue a node's receives start claiming. Receives on one node
 * keep apart by reserving what they look at; receives on different nodes meet only at OCC, and a
 * lost race costs a whole Raft round. So each node takes a slot (its index among the voters) and
 * starts within the first page of visible rows at `slot × wanted`, wrapping around the page: with
 * three nodes asking for ten messages each, they claim rows 0–9, 10–19 and 20–29 of the head and do
 * not meet. The rest of the page is still visited (after the wrap), so a node never answers empty
 * while the page holds messages it could take (docs/TRAPS.md, trap 11). FIFO queues always start at the head:
 * their order is decided by the group index, and a group's head must go first.
 */
import { assert } from '../base/assert.js';

export interface ReceiveScanSlot {
  /** This node's slot, 0 ≤ slot < slotCount. */
  readonly slot: number;
  readonly slotCount: number;
}

export const singleScanSlot: ReceiveScanSlot = { slot: 0, slotCount: 1 };

/** The slot of `nodeId` among `voterIds` (every node sees the same voters); a non-voter takes slot 0. */
export function receiveScanSlotOf(nodeId: string, voterIds: readonly string[]): ReceiveScanSlot {
  const sorted = [...voterIds].sort();
  const slot = sorted.indexOf(nodeId);
  return slot < 0 ? singleScanSlot : { slot, slotCount: sorted.length };
}

/**
 * receiveScanSlotOf for a node whose voters are asked on every receive: the slot is worked out
 * again only when the voter list changes (a membership change hands out a new array), not per
 * receive on the gateway's path.
 */
export function cachedReceiveScanSlot(nodeId: string, votersNow: () => readonly string[]): () => ReceiveScanSlot {
  let lastVoters: readonly string[] | undefined;
  let lastSlot = singleScanSlot;
  return () => {
    const voters = votersNow();
    if (voters !== lastVoters) {
      lastVoters = voters;
      lastSlot = receiveScanSlotOf(nodeId, voters);
    }
    return lastSlot;
  };
}

/** The index in a page of `pageRows` rows where a receive wanting `wantedCount` messages starts. */
export function firstPageOffset(scanSlot: ReceiveScanSlot, wantedCount: number, pageRows: number): number {
  assert(
    Number.isInteger(scanSlot.slot) && scanSlot.slot >= 0 && scanSlot.slot < scanSlot.slotCount,
    () => `receive scan slot ${scanSlot.slot} of ${scanSlot.slotCount}`,
  );
  if (scanSlot.slotCount <= 1 || pageRows === 0) return 0;
  return (scanSlot.slot * wantedCount) % pageRows;
}

/** The page's rows from `offset` to its end, then from its start to `offset`. */
export function rotatedRows<T>(rows: readonly T[], offset: number): readonly T[] {
  return offset === 0 ? rows : [...rows.slice(offset), ...rows.slice(0, offset)];
}
