/**
 * The replicated horizon H: transactions with startTsUs < H are rejected as too-old, and garbage
 * collection may remove a deletion marker that is a key's newest version only when it is at or
 * below H. H is a pure function of the applied history, so every replica computes the same H at
 * the same index, and OCC decisions never depend on local collection progress.
 *
 * Any monotonic H is safe: a removed marker d ≤ H(at collection) ≤ H(at validation) ≤ startTsUs
 * of every txn that still validates, so no conflict is hidden. H only trades liveness against
 * space: a larger H keeps fewer markers and rejects more txns.
 *
 * Why not simply lastCommitTs − history: after an idle period, the first commit would jump H past
 * every view taken during the idle time, and every txn in flight would be refused although
 * nothing it read has changed. Instead H is the newest *commit timestamp* that is at least
 * `history` older than lastCommitTs: a view at or after it is always accepted. Keeping every
 * commit timestamp is too much state, so the tracker keeps checkpoints — a commit timestamp
 * every history/16 of commit time — and H is the newest checkpoint at or below
 * lastCommitTs − history. It lags the exact value by at most history/16, is a short list (a
 * system row), and travels with snapshots.
 */
import { assert } from '../base/assert.js';
import { ByteReader } from './byte-reader.js';
import { ByteWriter } from './byte-writer.js';

const checkpointsPerHistory = 16;

export class HorizonTracker {
  private constructor(
    /** Commit timestamps, ascending; the first is at or below the horizon once one is. */
    readonly checkpoints: readonly number[],
    readonly historyUs: number,
  ) {}

  static empty(historyUs: number): HorizonTracker {
    return new HorizonTracker([], historyUs);
  }

  /** H when the last committed txn has `lastCommitTs`. */
  horizonAt(lastCommitTs: number): number {
    const limitTs = lastCommitTs - this.historyUs;
    let horizon = 0;
    for (const checkpoint of this.checkpoints) {
      if (checkpoint > limitTs) break;
      horizon = checkpoint;
    }
    return horizon;
  }

  /** The tracker after a txn committed at `commitTsUs` (unchanged unless a checkpoint is due). */
  afterCommit(commitTsUs: number): HorizonTracker {
    const last = this.checkpoints[this.checkpoints.length - 1];
    assert(
      last === undefined || commitTsUs > last,
      () => `commit timestamps grow: ${commitTsUs} after checkpoint ${last}`,
    );
    if (last !== undefined && commitTsUs - last < this.historyUs / checkpointsPerHistory) return this;
    // Keep the checkpoints above the new horizon and the newest one at or below it (the horizon).
    const limitTs = commitTsUs - this.historyUs;
    const kept = [...this.checkpoints, commitTsUs];
    let firstKept = 0;
    while (firstKept + 1 < kept.length && (kept[firstKept + 1] as number) <= limitTs) firstKept++;
    return new HorizonTracker(kept.slice(firstKept), this.historyUs);
  }

  encode(): Uint8Array {
    const writer = new ByteWriter(8 + this.checkpoints.length * 8);
    writer.varint(this.checkpoints.length);
    let previous = 0;
    for (const checkpoint of this.checkpoints) {
      writer.varint(checkpoint - previous);
      previous = checkpoint;
    }
    return writer.finish();
  }

  static decode(bytes: Uint8Array, historyUs: number): HorizonTracker {
    const reader = new ByteReader(bytes);
    const count = reader.varint();
    const checkpoints: number[] = [];
    let previous = 0;
    for (let i = 0; i < count; i++) {
      previous += reader.varint();
      checkpoints.push(previous);
    }
    assert(reader.isAtEnd, 'the horizon row has trailing bytes');
    return new HorizonTracker(checkpoints, historyUs);
  }
}
