/**
 * LevelDB range compaction of the state over ranges that deletions emptied, on every node (local,
 * not replicated). MVCC garbage collection removes dead versions, but LevelDB keeps a deletion
 * record of each removed row until a compaction reaches it, and every scan over the range steps
 * over those records: a queue head that is a stream of deletions would drag an ever-growing tail
 * through every receive. So a range is compacted:
 * - when the reaper deleted a generation's tombstone (the whole generation is empty), and
 * - when stateCompactionDeletesMin rows of one generation were deleted since its last compaction;
 * each stateCompactionDelayMs after it was marked, so that the MVCC horizon and a collection pass
 * have removed the versions first, and at most one range per stateCompactionIntervalMs.
 */
import { raftLimits } from '../base/limits.js';
import type { KeyRange } from '../storage/txn.js';
import { physicalBounds } from '../storage/version-key.js';
import type { StateKeyClass } from './state-census.js';
import type { StateStore } from './state-store.js';

export interface StateCompactorOptions {
  /** The key range of a queue generation named by its id (the queue layer's layout). */
  readonly generationRange: (generationId: string) => KeyRange;
  readonly nowMs: () => number;
  readonly onCompacted?: (event: { generationId: string; durationMs: number }) => void;
  readonly onFailed?: (error: unknown) => void;
}

interface Mark {
  readonly markedAtMs: number;
}

export class StateCompactor {
  /** Generations due for compaction, by id, in marking order (a Map keeps insertion order). */
  private readonly marks = new Map<string, Mark>();
  /** Deletes applied per generation since its last mark. */
  private readonly deletesByGeneration = new Map<string, number>();
  private state: StateStore | null = null;
  private isCompacting = false;
  private lastCompactionAtMs = Number.NEGATIVE_INFINITY;
  compactionsDone = 0;

  constructor(private readonly options: StateCompactorOptions) {}

  /** The state database to compact (at start and after a snapshot install). */
  useState(state: StateStore): void {
    this.state = state;
  }

  /** Called by the census for every applied row that lost its value. */
  noteRowRemoved(keyClass: StateKeyClass): void {
    const id = keyClass.generationId;
    if (id === undefined) return;
    if (keyClass.family === 'tombstone') {
      this.mark(id);
      this.deletesByGeneration.delete(id);
      return;
    }
    const deletes = (this.deletesByGeneration.get(id) ?? 0) + 1;
    if (deletes < raftLimits.stateCompactionDeletesMin.value) {
      this.deletesByGeneration.set(id, deletes);
      return;
    }
    this.deletesByGeneration.delete(id);
    this.mark(id);
  }

  get pendingCount(): number {
    return this.marks.size;
  }

  private mark(generationId: string): void {
    if (this.marks.has(generationId) || this.marks.size >= raftLimits.stateCompactionRangesMax.value) return;
    this.marks.set(generationId, { markedAtMs: this.options.nowMs() });
  }

  /** Compacts the oldest range that is due, if any and if the last compaction was long enough ago. Returns whether it did. */
  async maybeCompact(): Promise<boolean> {
    const nowMs = this.options.nowMs();
    const state = this.state;
    if (
      state === null ||
      this.isCompacting ||
      nowMs - this.lastCompactionAtMs < raftLimits.stateCompactionIntervalMs.value
    )
      return false;
    const [first] = this.marks;
    if (first === undefined) return false;
    const [generationId, mark] = first;
    if (nowMs - mark.markedAtMs < raftLimits.stateCompactionDelayMs.value) return false;
    this.marks.delete(generationId);
    this.isCompacting = true;
    this.lastCompactionAtMs = nowMs;
    try {
      const bounds = physicalBounds(this.options.generationRange(generationId));
      await state.engine.compactRange(bounds.gte, bounds.lt);
      this.compactionsDone++;
      this.options.onCompacted?.({ generationId, durationMs: this.options.nowMs() - nowMs });
      return true;
    } catch (error) {
      // A state closed by a snapshot install meanwhile: the new state is compacted on its own marks.
      this.options.onFailed?.(error);
      return false;
    } finally {
      this.isCompacting = false;
    }
  }
}
