/**
 * Garbage collection of old versions, a bounded step at a time: where the pass is (the next key to
 * read and the state of the key it stopped inside) and what it has removed. Which versions go is
 * decided by version-gc.ts; the watermarks it decides against come from the store (mvcc-store.ts).
 */
import { readRangeWithinBytes, type Engine } from './engine.js';
import type { GarbageLedger } from './garbage-ledger.js';
import type { LedgerStepPlan } from './ledger-collection.js';
import { keySuccessor } from './key-codec.js';
import {
  bothFreesAt,
  initialGcKeyState,
  neverFreed,
  planVersionGc,
  type GcFreesAt,
  type GcKeyState,
  type GcPlan,
} from './version-gc.js';
import { userSpaceStart } from './version-key.js';

export interface GcStepReport {
  /** A step of a pass over the keyspace, or of the garbage ledger (garbage-ledger.ts). */
  readonly kind: 'pass' | 'ledger';
  readonly rowsExamined: number;
  readonly liveVersions: number;
  readonly deadVersions: number;
  readonly deletionMarkersRemoved: number;
  readonly watermarkTs: number;
  readonly horizonTs: number;
  /**
   * True when this step reached the end of the keyspace (the next step starts a new pass); of a
   * ledger step, when nothing else in the ledger is due.
   */
  readonly isPassComplete: boolean;
}

/** Collection counters since the store was opened, for metrics. */
export interface GcStats {
  readonly passesCompleted: number;
  readonly versionsRemoved: number;
  readonly deletionMarkersRemoved: number;
  /**
   * Bytes of rows (keys and values) the steps read: a pass reads every row whole, live values
   * included, so with large values this is where collection's cost is.
   */
  readonly bytesRead: number;
  /** Live and dead versions seen over the last complete pass (dead = removed by it). */
  readonly lastPass: { readonly liveVersions: number; readonly deadVersions: number } | undefined;
}

export interface GcStepBounds {
  readonly rowsMax: number;
  /** Bytes of rows (keys and values) a step reads at most: live values are read too. */
  readonly bytesMax: number;
  /** The read watermark W: versions hidden below it by a newer one go. */
  readonly watermarkTs: number;
  /** The replicated horizon H: a newest deletion marker at or below it goes. */
  readonly horizonTs: number;
  /** Garbage made after this commit timestamp is the garbage ledger's to remove (planVersionGc). */
  readonly trackedAfterTs: number;
}

/** What one step read and decided, before anything is removed (VersionCollector.plan). */
export interface GcStepPlan {
  /** Where the step started reading: the plan is only good while the pass is still there. */
  readonly resumeAt: Uint8Array;
  readonly rowsExamined: number;
  /** Bytes of the rows read, keys and values. */
  readonly bytesExamined: number;
  readonly decisions: GcPlan;
  readonly nextResumeAt: Uint8Array;
  readonly isPassComplete: boolean;
  readonly watermarkTs: number;
  readonly horizonTs: number;
}

export class VersionCollector {
  private resumeAt: Uint8Array = userSpaceStart;
  private keyState: GcKeyState = initialGcKeyState;
  private statsValue: GcStats = {
    passesCompleted: 0,
    versionsRemoved: 0,
    deletionMarkersRemoved: 0,
    bytesRead: 0,
    lastPass: undefined,
  };
  private passCounts = { liveVersions: 0, deadVersions: 0 };
  /** When what this pass has kept so far could go. */
  private passFreesAt: GcFreesAt = neverFreed;
  /** When what the last complete pass kept could go; undefined until a pass completes. */
  private lastPassFreesAtValue: GcFreesAt | undefined = undefined;

  constructor(private readonly engine: Engine) {}

  get stats(): GcStats {
    return this.statsValue;
  }

  /** The next step starts a pass at the beginning of the keyspace. */
  get isAtPassStart(): boolean {
    return this.resumeAt === userSpaceStart;
  }

  /**
   * The least watermark and horizon at which something the last complete pass kept becomes
   * removable (GcPlan.freesAt over the pass); undefined until a pass completes. Below both, and
   * with no write since that pass started, another pass would find nothing to remove.
   */
  get lastPassFreesAt(): GcFreesAt | undefined {
    return this.lastPassFreesAtValue;
  }

  /**
   * Reads up to rowsMax rows from where the last step stopped and decides what may go: the first
   * half of a step, which changes nothing and may run while applies do (mvcc-store.ts says why
   * that is safe). The rows come from one engine iterator, so from one consistent state.
   */
  async plan(bounds: GcStepBounds): Promise<GcStepPlan> {
    const { rowsMax, bytesMax, watermarkTs, horizonTs, trackedAfterTs } = bounds;
    const resumeAt = this.resumeAt;
    const {
      entries: rows,
      bytes,
      isCut,
    } = await readRangeWithinBytes(this.engine, { gte: resumeAt }, { entriesMax: rowsMax, bytesMax });
    const isPassComplete = rows.length < rowsMax && !isCut;
    const plan = planVersionGc(rows, this.keyState, watermarkTs, horizonTs, {
      isEndOfKeyspace: isPassComplete,
      trackedAfterTs,
    });
    const last = rows[rows.length - 1];
    return {
      resumeAt,
      rowsExamined: rows.length,
      bytesExamined: bytes,
      decisions: plan,
      nextResumeAt: isPassComplete || last === undefined ? userSpaceStart : keySuccessor(last.key),
      isPassComplete,
      watermarkTs,
      horizonTs,
    };
  }

  /**
   * The second half: deletes what the plan chose, in one engine batch, and moves the pass on;
   * `onRemoved` hears, once they are gone, of the deleted physical keys that may have been their
   * key's newest version (GcPlan.removedBases; every other removal was older than a version that
   * stays). The plan must be this
   * collector's latest, made where the last step stopped.
   */
  async finish(plan: GcStepPlan, onRemoved: (physicalKeys: readonly Uint8Array[]) => void): Promise<GcStepReport> {
    if (plan.resumeAt !== this.resumeAt) throw new Error('a garbage-collection plan was finished out of turn');
    const { decisions, isPassComplete } = plan;
    if (decisions.removals.length > 0) {
      await this.engine.write(
        decisions.removals.map((key) => ({ kind: 'delete', key })),
        { sync: false },
      );
      onRemoved(decisions.removedBases);
    }
    this.passFreesAt = bothFreesAt(this.passFreesAt, decisions.freesAt);
    if (isPassComplete) {
      this.lastPassFreesAtValue = this.passFreesAt;
      this.passFreesAt = neverFreed;
    }
    this.countStep(decisions, plan.bytesExamined, isPassComplete);
    this.resumeAt = plan.nextResumeAt;
    this.keyState = isPassComplete ? initialGcKeyState : decisions.state;
    return {
      kind: 'pass',
      rowsExamined: plan.rowsExamined,
      liveVersions: decisions.liveVersions,
      deadVersions: decisions.deadVersions,
      deletionMarkersRemoved: decisions.deletionMarkersRemoved,
      watermarkTs: plan.watermarkTs,
      horizonTs: plan.horizonTs,
      isPassComplete,
    };
  }

  /**
   * Removes what a ledger step chose, in one engine batch, and its entries from the ledger; nothing
   * when the ledger started over since the step was planned (its entries may be a pass's now).
   */
  async finishLedgerStep(
    plan: LedgerStepPlan,
    ledger: GarbageLedger,
    onRemoved: (physicalKeys: readonly Uint8Array[]) => void,
  ): Promise<GcStepReport> {
    const isCurrent = plan.take.generation === ledger.generation;
    const markersRemoved = isCurrent ? plan.removedBases.length : 0;
    const versionsRemoved = isCurrent ? plan.removals.length : 0;
    if (isCurrent && versionsRemoved > 0) {
      await this.engine.write(
        plan.removals.map((key) => ({ kind: 'delete', key })),
        { sync: false },
      );
      onRemoved(plan.removedBases);
    }
    if (isCurrent) ledger.release(plan.take);
    const stats = this.statsValue;
    this.statsValue = {
      ...stats,
      versionsRemoved: stats.versionsRemoved + versionsRemoved,
      deletionMarkersRemoved: stats.deletionMarkersRemoved + markersRemoved,
      bytesRead: stats.bytesRead + plan.bytesRead,
    };
    return {
      kind: 'ledger',
      rowsExamined: plan.take.hidden.length + plan.take.markers.length,
      liveVersions: 0,
      deadVersions: versionsRemoved,
      deletionMarkersRemoved: markersRemoved,
      watermarkTs: plan.watermarkTs,
      horizonTs: plan.horizonTs,
      isPassComplete: !ledger.hasDue(plan.watermarkTs, plan.horizonTs),
    };
  }

  private countStep(decisions: GcPlan, bytesExamined: number, isPassComplete: boolean): void {
    const { liveVersions, deadVersions, deletionMarkersRemoved } = decisions;
    this.passCounts = {
      liveVersions: this.passCounts.liveVersions + liveVersions,
      deadVersions: this.passCounts.deadVersions + deadVersions,
    };
    const stats = this.statsValue;
    this.statsValue = {
      passesCompleted: stats.passesCompleted + (isPassComplete ? 1 : 0),
      versionsRemoved: stats.versionsRemoved + deadVersions,
      deletionMarkersRemoved: stats.deletionMarkersRemoved + deletionMarkersRemoved,
      bytesRead: stats.bytesRead + bytesExamined,
      lastPass: isPassComplete ? this.passCounts : stats.lastPass,
    };
    if (isPassComplete) this.passCounts = { liveVersions: 0, deadVersions: 0 };
  }
}
