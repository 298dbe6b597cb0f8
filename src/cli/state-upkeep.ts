/**
 * The node's upkeep of its state, wired from the queue layer's knowledge into the runtime:
 * - on the leader only, every reaperIntervalMs: one reaper sweep, then one step of the message
 *   move tasks (LeaderTask: started on becoming leader, aborted on losing it); at once again while
 *   the sweep leaves expired messages behind (retention keeps up with any expiry rate);
 * - on every node: the queue indexes dropped when a snapshot install replaces the state (the
 *   queue service cannot hear of that through applied writes);
 * - on every node: the census of live rows per key family and of versions (maintained on apply),
 *   and LevelDB compaction of the ranges deletions emptied; MVCC garbage collection itself runs in
 *   the node (ClusterNode's collection timer).
 * Everything is reported on the node's /metrics (StateMetrics).
 */
import type { Logger } from 'pino';
import type { ClusterNode } from '../cluster/cluster-node.js';
import { LeaderTask } from '../cluster/leader-task.js';
import { StateCensus } from '../cluster/state-census.js';
import { StateCompactor } from '../cluster/state-compactor.js';
import { StateMetrics } from '../cluster/state-metrics.js';
import type { StateStore } from '../cluster/state-store.js';
import { classifyStateKey, generationRangeOf } from '../queue/layout/key-family.js';
import { reapedRowsByFamily, type QueueService } from '../queue/queue-service.js';
import { reaperTestHoldFromEnv } from './reaper-test-hold.js';

export interface StateUpkeepOptions {
  readonly node: ClusterNode;
  readonly queueService: QueueService;
  readonly reaperIntervalMs: number;
  readonly logger: Logger;
}

export interface StateUpkeep {
  readonly metrics: StateMetrics;
  readonly census: StateCensus;
  close(): Promise<void>;
}

/** Longest a stopping node waits for the reaper sweep in progress. */
const closeWaitMsMax = 1_000;
/** How often the node looks for a range that is due for compaction (the compactor rate-limits itself). */
const compactionCheckIntervalMs = 1_000;

export function startStateUpkeep(options: StateUpkeepOptions): StateUpkeep {
  const { node, queueService, logger } = options;
  let state: StateStore | null = null;
  let metrics: StateMetrics | null = null;
  const compactor = new StateCompactor({
    generationRange: generationRangeOf,
    // The node's host clock (injected; uncorrected): the compactor spaces its work on this node's time.
    nowMs: () => node.clock.wallMs(),
    onCompacted: ({ generationId, durationMs }) => {
      metrics?.compactionSeconds.observe(durationMs / 1000);
      logger.debug({ generationId, durationMs }, 'compacted an emptied range of the state');
    },
    onFailed: (error) => logger.warn({ err: error }, 'state range compaction failed'),
  });
  const census = new StateCensus({
    classify: classifyStateKey,
    onRowRemoved: (keyClass) => compactor.noteRowRemoved(keyClass),
    onScanFailed: (error) =>
      logger.warn(
        { err: error },
        'counting the rows of the state failed; state row metrics stay empty until the next count',
      ),
  });
  const unobserve = node.observeState({
    onApplied: (changes) => census.onApplied(changes),
    onStateOpened: (opened) => {
      // First, while no view of the new state can have been taken yet (the node calls this as it adopts it).
      queueService.stateReplaced();
      state = opened;
      census.onStateOpened(opened);
      compactor.useState(opened);
    },
  });
  const stateMetrics = new StateMetrics(node.metrics.registry, { census, compactor, state: () => state });
  metrics = stateMetrics;
  const { scheduler } = node;
  const stopCompactionTimer = scheduler.every(compactionCheckIntervalMs, () => void compactor.maybeCompact());

  const testHold = reaperTestHoldFromEnv(process.env);
  const leaderTask = new LeaderTask(node, {
    intervalMs: options.reaperIntervalMs,
    scheduler,
    run: async (signal) => {
      if (testHold !== undefined && !testHold.allowsSweep()) return;
      const startedMs = scheduler.monotonicMs();
      const report = await queueService.sweepReaper({ signal });
      testHold?.noteSweep();
      stateMetrics.reaperTickSeconds.observe((scheduler.monotonicMs() - startedMs) / 1000);
      for (const [family, rows] of Object.entries(reapedRowsByFamily(report)))
        if (rows > 0) stateMetrics.reapedRows.inc({ family }, rows);
      stateMetrics.reaperSweeps.inc({ result: report.isComplete ? 'complete' : 'aborted' });
      if (!signal.aborted) await queueService.stepMoveTasks();
      return { hasMoreWork: report.hasExpiredBacklog || report.hasTombstonedBacklog };
    },
    onError: (error) => {
      stateMetrics.reaperSweeps.inc({ result: 'failed' });
      logger.debug({ err: error }, 'reaper sweep ended early');
    },
  });
  leaderTask.start();

  return {
    metrics: stateMetrics,
    census,
    close: async () => {
      stopCompactionTimer();
      unobserve();
      // The sweep in progress is aborted and ends after its transaction; shutdown does not wait
      // longer than that for it (a commit with no leader could otherwise hold it for seconds).
      let cancelTimer: (() => void) | undefined;
      await Promise.race([
        leaderTask.stop(),
        new Promise<void>((resolve) => (cancelTimer = scheduler.after(closeWaitMsMax, resolve))),
      ]);
      cancelTimer?.();
    },
  };
}
