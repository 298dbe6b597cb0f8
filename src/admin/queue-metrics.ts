/**
 * Per-queue metrics on the node's /metrics, computed at scrape time from the local replica (no
 * leader round trip; every node answers, with what it has applied):
 *   raftq_queues                                   live queues
 *   raftq_queue_messages{queue,state}              visible | inflight | delayed, exact counts
 *   raftq_queue_oldest_message_age_seconds{queue}
 *   raftq_queue_dead_lettered_total{queue}         messages this node's receives moved to the DLQ
 *   raftq_queue_redrive_skipped_total{queue}       receives whose DLQ was missing or of the wrong type
 *   raftq_queue_empty_receives_total{queue}        ReceiveMessage calls on this node that answered nothing
 *   raftq_queue_index_builds_total                 in-memory queue indexes this node built (first receive, new leader)
 *   raftq_queue_index_build_rows_total             rows those builds scanned
 *   raftq_queue_index_build_seconds_total          time those builds took, start to end
 *   raftq_queue_txn_retries_total{operation,reason} transaction attempts built again (conflict, too-old, …)
 *
 * Cardinality: the first `queuesMax` queues in name order (`--metrics-queues-max`) get a series of
 * their own; the others are summed into queue="(other)" (their oldest age is the largest). A name
 * can never be "(other)": SQS queue names have no parentheses.
 */
import { Counter, Gauge, type Registry } from 'prom-client';
import type { IndexBuildTotals, QueueActivityCounts, QueueService, QueueSummary } from '../queue/queue-service.js';

export const otherQueuesLabel = '(other)';

interface QueueFigures {
  visible: number;
  inFlight: number;
  delayed: number;
  oldestMessageAgeSeconds: number;
}

interface Snapshot {
  readonly queueCount: number;
  readonly figures: Map<string, QueueFigures>;
  readonly activity: Map<string, QueueActivityCounts>;
}

export function registerQueueMetrics(
  registry: Registry,
  queueService: QueueService,
  options: { queuesMax: number; onError?: (error: unknown) => void },
): void {
  // A scrape collects every metric at once (prom-client starts them together): they share the
  // read in progress, and the next scrape reads afresh.
  let inProgress: Promise<Snapshot> | undefined;
  const snapshot = (): Promise<Snapshot> => {
    if (inProgress === undefined) {
      const taken = takeSnapshot(queueService, options.queuesMax);
      inProgress = taken;
      taken.then(
        () => (inProgress = undefined),
        (error: unknown) => {
          inProgress = undefined;
          options.onError?.(error);
        },
      );
    }
    return inProgress;
  };
  const registers = [registry];
  new Gauge({
    name: 'raftq_queues',
    help: 'Live queues',
    registers,
    async collect() {
      this.reset();
      this.set((await snapshot()).queueCount);
    },
  });
  new Gauge({
    name: 'raftq_queue_messages',
    help: 'Messages in a queue by state: visible (receivable now), inflight (received, not yet deleted), delayed (not yet visible since sent); as ApproximateNumberOfMessages, …NotVisible, …Delayed',
    labelNames: ['queue', 'state'],
    registers,
    async collect() {
      this.reset();
      for (const [queue, figures] of (await snapshot()).figures) {
        this.set({ queue, state: 'visible' }, figures.visible);
        this.set({ queue, state: 'inflight' }, figures.inFlight);
        this.set({ queue, state: 'delayed' }, figures.delayed);
      }
    },
  });
  new Gauge({
    name: 'raftq_queue_oldest_message_age_seconds',
    help: 'Age of the oldest message in a queue (0 when it is empty), as ApproximateAgeOfOldestMessage',
    labelNames: ['queue'],
    registers,
    async collect() {
      this.reset();
      for (const [queue, figures] of (await snapshot()).figures) this.set({ queue }, figures.oldestMessageAgeSeconds);
    },
  });
  const activityCounter = (name: string, help: string, field: keyof QueueActivityCounts): void => {
    new Counter({
      name,
      help,
      labelNames: ['queue'],
      registers,
      async collect() {
        this.reset();
        for (const [queue, counts] of (await snapshot()).activity) this.inc({ queue }, counts[field]);
      },
    });
  };
  const indexBuildCounter = (name: string, help: string, field: keyof IndexBuildTotals): void => {
    new Counter({
      name,
      help,
      registers,
      collect() {
        this.reset();
        this.inc(queueService.indexBuildTotals[field]);
      },
    });
  };
  indexBuildCounter(
    'raftq_queue_index_builds_total',
    "In-memory queue indexes this node built to their end: on a partition's first receive here, after a snapshot replaced this node's state, and when an index with nothing ready grew old",
    'builds',
  );
  indexBuildCounter(
    'raftq_queue_index_build_rows_total',
    'Rows (vis, state and FIFO group rows) the index builds of this node scanned',
    'rowsScanned',
  );
  indexBuildCounter(
    'raftq_queue_index_build_seconds_total',
    "Time the index builds of this node took, from start to end; a standard queue's receives are served from its head before its build ends",
    'seconds',
  );
  new Counter({
    name: 'raftq_queue_txn_retries_total',
    help: "Transaction attempts of queue operations on this node that did not settle and were built again, by operation (SendMessage, ReceiveMessage, DeleteMessage, …) and reason: conflict (a key it read or wrote changed first), too-old, clock-skew, or stale-answer / stale-error (a local view's answer derived again on a linearizable one)",
    labelNames: ['operation', 'reason'],
    registers,
    collect() {
      this.reset();
      for (const { operation, reason, count } of queueService.txnRetries()) this.inc({ operation, reason }, count);
    },
  });
  activityCounter(
    'raftq_queue_dead_lettered_total',
    "Messages that receives on this node moved to the queue's dead-letter queue (maxReceiveCount reached)",
    'deadLettered',
  );
  activityCounter(
    'raftq_queue_redrive_skipped_total',
    "Receives on this node that could not move a message to the queue's dead-letter queue because it is missing or of the wrong type (the message stays)",
    'redriveSkipped',
  );
  activityCounter(
    'raftq_queue_empty_receives_total',
    'ReceiveMessage calls on this node that answered no message, as NumberOfEmptyReceives',
    'emptyReceives',
  );
}

async function takeSnapshot(queueService: QueueService, queuesMax: number): Promise<Snapshot> {
  const summaries = await queueService.queueSummaries({ linearizable: false });
  const exported = new Set(summaries.slice(0, queuesMax).map((summary) => summary.name));
  const labelOf = (name: string): string => (exported.has(name) ? name : otherQueuesLabel);
  const figures = new Map<string, QueueFigures>();
  for (const summary of summaries) addFigures(figures, labelOf(summary.name), summary);
  const activity = new Map<string, QueueActivityCounts>();
  for (const [name, counts] of queueService.activityByQueue()) {
    const label = labelOf(name);
    const sum = activity.get(label) ?? { deadLettered: 0, redriveSkipped: 0, emptyReceives: 0 };
    activity.set(label, {
      deadLettered: sum.deadLettered + counts.deadLettered,
      redriveSkipped: sum.redriveSkipped + counts.redriveSkipped,
      emptyReceives: sum.emptyReceives + counts.emptyReceives,
    });
  }
  return { queueCount: summaries.length, figures, activity };
}

function addFigures(figures: Map<string, QueueFigures>, label: string, summary: QueueSummary): void {
  const sum = figures.get(label) ?? { visible: 0, inFlight: 0, delayed: 0, oldestMessageAgeSeconds: 0 };
  sum.visible += summary.visible;
  sum.inFlight += summary.inFlight;
  sum.delayed += summary.delayed;
  sum.oldestMessageAgeSeconds = Math.max(sum.oldestMessageAgeSeconds, summary.oldestMessageAgeSeconds);
  figures.set(label, sum);
}
