/**
 * Where a receive may start scanning a partition's vis rows. The head of a busy queue is a
 * stream of deleted rows (every claim and delete removes one), which the store skips one by one
 * until garbage collection drops them; scanning from visibleAtMs 0 on every receive would pay for
 * all of them each time. A hint H says: no live vis row of this partition has visibleAtMs < H.
 *
 * It is kept true on this replica by two rules:
 * - a scan that registered before taking its view and found its first live row at F (or none at
 *   or before now, F = now + 1) may raise H to min(F, the lowest visibleAtMs of any vis key applied
 *   since it registered) — rows applied before it registered are in its view;
 * - every applied vis key below H (seen through executor.onApplied) lowers H to it at once.
 * This relies on readView() returning a view that includes every batch whose onApplied listeners
 * have already run, which is how the executors apply. Rows that arrive without onApplied (a
 * snapshot installed on this replica) are covered by age: a hint older than
 * raftqLimits.receiveScanHintAgeMsMax since its last full scan is not used, so the next receive
 * scans from 0 and sets it afresh. Hints live in memory only: a restarted node starts from 0.
 */
import { raftqLimits } from '../base/limits.js';
import { decodeKey } from '../storage/key-codec.js';
import type { TxnExecutor } from '../storage/txn.js';

export class ScanRecorder {
  /** Lowest visibleAtMs of a vis key applied since registration, per partition id. */
  readonly lowestApplied = new Map<string, number>();

  note(id: string, visibleAtMs: number): void {
    const lowest = this.lowestApplied.get(id);
    if (lowest === undefined || visibleAtMs < lowest) this.lowestApplied.set(id, visibleAtMs);
  }
}

const hintsMax = 65_536;

export class VisibilityScanHints {
  private readonly hints = new Map<string, { hintMs: number; fullScanAtMs: number }>();
  private readonly recorders = new Set<ScanRecorder>();
  private readonly unsubscribe: () => void;

  constructor(executor: TxnExecutor) {
    this.unsubscribe = executor.onApplied((keys) => this.onApplied(keys));
  }

  static idOf(queueName: string, generation: number, partition: number): string {
    return `${queueName}\u0000${generation}\u0000${partition}`;
  }

  begin(): ScanRecorder {
    const recorder = new ScanRecorder();
    this.recorders.add(recorder);
    return recorder;
  }

  end(recorder: ScanRecorder): void {
    this.recorders.delete(recorder);
  }

  /** Where a scan of this partition may start at `nowMs`: 0 when there is no fresh hint. */
  startMs(id: string, nowMs: number): number {
    const hint = this.hints.get(id);
    if (hint === undefined || nowMs - hint.fullScanAtMs > raftqLimits.receiveScanHintAgeMsMax.value) return 0;
    return hint.hintMs;
  }

  /**
   * After a scan that started at `fromMs` and whose first live row was at `firstLiveMs`: raise
   * the hint if that is safe. A scan from 0 sets it outright and restarts its age.
   */
  raise(recorder: ScanRecorder, id: string, fromMs: number, firstLiveMs: number, nowMs: number): void {
    const candidate = Math.min(firstLiveMs, recorder.lowestApplied.get(id) ?? Number.POSITIVE_INFINITY);
    const hint = this.hints.get(id);
    if (fromMs === 0) {
      if (hint === undefined && this.hints.size >= hintsMax) this.hints.clear();
      this.hints.set(id, { hintMs: candidate, fullScanAtMs: nowMs });
    } else if (hint !== undefined && candidate > hint.hintMs) {
      hint.hintMs = candidate;
    }
  }

  close(): void {
    this.unsubscribe();
  }

  private onApplied(keys: readonly Uint8Array[]): void {
    if (this.hints.size === 0 && this.recorders.size === 0) return;
    for (const key of keys) {
      // Only queue keys start with the encoded element "q" (tag 0x02, 'q', terminator).
      if (key[0] !== 0x02 || key[1] !== 0x71 || key[2] !== 0x00) continue;
      const tuple = decodeKey(key);
      // ("q", name, "g", gen, "vis", partition, visibleAtMs, order, messageId)
      if (tuple[0] !== 'q' || tuple[2] !== 'g' || tuple[4] !== 'vis') continue;
      const id = VisibilityScanHints.idOf(String(tuple[1]), Number(tuple[3]), Number(tuple[5]));
      const visibleAtMs = Number(tuple[6]);
      const hint = this.hints.get(id);
      if (hint !== undefined && visibleAtMs < hint.hintMs) hint.hintMs = visibleAtMs;
      for (const recorder of this.recorders) recorder.note(id, visibleAtMs);
    }
  }
}
