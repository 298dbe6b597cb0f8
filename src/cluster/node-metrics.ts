/**
 * The node's Prometheus metrics (served on the admin port at /metrics). One registry per node, so
 * that several nodes in one test process never share counters.
 */
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import { RaftMessageCounts } from './raft-message-counts.js';

const latencyBucketsSeconds = [
  0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5,
];

export class NodeMetrics {
  readonly registry = new Registry();
  readonly term = new Gauge({ name: 'raftq_raft_term', help: 'Current Raft term', registers: [this.registry] });
  readonly role = new Gauge({
    name: 'raftq_raft_role',
    help: '1 for the role this node has now, 0 for the others',
    labelNames: ['role'],
    registers: [this.registry],
  });
  readonly commitIndex = new Gauge({
    name: 'raftq_raft_commit_index',
    help: 'Highest log index known to be committed',
    registers: [this.registry],
  });
  readonly appliedIndex = new Gauge({
    name: 'raftq_raft_applied_index',
    help: 'Highest log index applied to the state',
    registers: [this.registry],
  });
  readonly lastIndex = new Gauge({
    name: 'raftq_raft_last_index',
    help: 'Last index of the local log',
    registers: [this.registry],
  });
  readonly logBytes = new Gauge({
    name: 'raftq_raft_log_bytes',
    help: 'Bytes of log held since the last compaction',
    registers: [this.registry],
  });
  readonly proposals = new Counter({
    name: 'raftq_proposals_total',
    help: 'Transactions proposed by this node as leader, by result',
    labelNames: ['result'],
    registers: [this.registry],
  });
  readonly proposedEntries = new Counter({
    name: 'raftq_proposed_entries_total',
    help: 'Raft entries proposed (each carries a batch of transactions)',
    registers: [this.registry],
  });
  readonly forwardedProposals = new Counter({
    name: 'raftq_forwarded_proposals_total',
    help: 'Transactions this node forwarded to the leader, by result',
    labelNames: ['result'],
    registers: [this.registry],
  });
  readonly forwardedOps = new Counter({
    name: 'raftq_forwarded_ops_total',
    help: 'Queue operations this node forwarded to the leader, by result',
    labelNames: ['result'],
    registers: [this.registry],
  });
  readonly forwardedOpSeconds = new Histogram({
    name: 'raftq_forwarded_op_seconds',
    help: 'Time from forwarding a queue operation to the leader to its answer, for operations that came back with a result (a long poll counts its wait); beside raftq_served_forwarded_op_seconds on the leader, what the link and the two event loops add',
    buckets: latencyBucketsSeconds,
    registers: [this.registry],
  });
  readonly servedForwardedOps = new Counter({
    name: 'raftq_served_forwarded_ops_total',
    help: 'Queue operations followers forwarded to this node, by result',
    labelNames: ['result'],
    registers: [this.registry],
  });
  readonly servedForwardedOpSeconds = new Histogram({
    name: 'raftq_served_forwarded_op_seconds',
    help: 'Time from the arrival of an operation a follower forwarded to its reply, for operations this leader ran (a long poll counts its wait)',
    buckets: latencyBucketsSeconds,
    registers: [this.registry],
  });
  readonly readyTurns = new Counter({
    name: 'raftq_ready_turns_total',
    help: 'Turns of the Ready loop that handled at least one Ready',
    registers: [this.registry],
  });
  readonly raftMessagesSent = new Counter({
    name: 'raftq_raft_messages_sent_total',
    help: 'Raft messages handed to the transport, by kind (an append without entries is app-empty)',
    labelNames: ['kind'],
    registers: [this.registry],
  });
  readonly raftMessagesReceived = new Counter({
    name: 'raftq_raft_messages_received_total',
    help: 'Raft messages received from peers, by kind (an append without entries is app-empty)',
    labelNames: ['kind'],
    registers: [this.registry],
  });
  readonly sentByKind = new RaftMessageCounts(this.raftMessagesSent);
  readonly receivedByKind = new RaftMessageCounts(this.raftMessagesReceived);
  readonly fsyncs = new Counter({
    name: 'raftq_fsyncs_total',
    help: 'Synced writes of the Raft log (one per Ready with something to persist)',
    registers: [this.registry],
  });
  readonly fsyncSeconds = new Histogram({
    name: 'raftq_fsync_seconds',
    help: 'Latency of the synced log write of one Ready',
    buckets: latencyBucketsSeconds,
    registers: [this.registry],
  });
  readonly applySeconds = new Histogram({
    name: 'raftq_apply_seconds',
    help: 'Latency of applying the committed entries of one Ready',
    buckets: latencyBucketsSeconds,
    registers: [this.registry],
  });
  readonly gcStepSeconds = new Histogram({
    name: 'raftq_state_gc_step_seconds',
    help: 'Time one MVCC garbage-collection step took to remove what it chose, from asking for the apply lock (an apply in progress is waited for) to the end of its removal batch; it reads and decides before, without the lock',
    buckets: latencyBucketsSeconds,
    registers: [this.registry],
  });
  readonly appliedTxns = new Counter({
    name: 'raftq_applied_txns_total',
    help: 'Transactions applied, by outcome',
    labelNames: ['outcome'],
    registers: [this.registry],
  });
  readonly snapshotSends = new Counter({
    name: 'raftq_snapshot_sends_total',
    help: 'Snapshots streamed to followers, by result',
    labelNames: ['result'],
    registers: [this.registry],
  });
  readonly snapshotInstalls = new Counter({
    name: 'raftq_snapshot_installs_total',
    help: 'Snapshots received and installed',
    registers: [this.registry],
  });
  readonly snapshotsTaken = new Counter({
    name: 'raftq_snapshots_taken_total',
    help: 'Local snapshots taken (followed by log compaction)',
    registers: [this.registry],
  });
  readonly readIndexSeconds = new Histogram({
    name: 'raftq_read_index_seconds',
    help: 'Latency of confirming a read index',
    buckets: latencyBucketsSeconds,
    registers: [this.registry],
  });
  readonly droppedRaftMessages = new Counter({
    name: 'raftq_peer_dropped_messages_total',
    help: 'Raft messages dropped because a peer send queue was full',
    labelNames: ['peer'],
    registers: [this.registry],
  });
  readonly clockOffsetSeconds = new Gauge({
    name: 'raftq_cluster_clock_offset_seconds',
    help: "Offset of the cluster clock from this host's wall clock",
    registers: [this.registry],
  });
  readonly sqsRequests = new Counter({
    name: 'raftq_sqs_requests_total',
    help: 'SQS requests answered by this node, by action and result code (OK, or the AWS error code)',
    labelNames: ['action', 'code'],
    registers: [this.registry],
  });
  readonly sqsRequestSeconds = new Histogram({
    name: 'raftq_sqs_request_duration_seconds',
    help: 'Time from a whole SQS request read to its answer, by action (a long poll counts its wait)',
    labelNames: ['action'],
    buckets: [...latencyBucketsSeconds, 5, 10, 20, 30],
    registers: [this.registry],
  });
  /** The transport's running totals of dropped messages, per peer, last seen: the counter grows by the difference. */
  private readonly droppedSeen = new Map<string, number>();

  /** `isProcessMetricsOn` false: no process-wide metrics (their event-loop monitor outlives the node). */
  constructor(options: { isProcessMetricsOn?: boolean } = {}) {
    if (options.isProcessMetricsOn ?? true) collectDefaultMetrics({ register: this.registry, prefix: 'raftq_' });
  }

  /** `total`: the peer link's running count of dropped messages (it starts again from 0 on a new link). */
  noteDroppedRaftMessages(peer: string, total: number): void {
    const seen = this.droppedSeen.get(peer) ?? 0;
    const grown = total >= seen ? total - seen : total;
    this.droppedSeen.set(peer, total);
    if (grown > 0) this.droppedRaftMessages.inc({ peer }, grown);
  }

  /** One answered SQS request (sqs-request-handler.ts's observer). `action` is 'unknown' when the request named none. */
  noteSqsRequest(action: string, code: string, durationSeconds: number): void {
    this.sqsRequests.inc({ action, code });
    this.sqsRequestSeconds.observe({ action }, durationSeconds);
  }

  setRole(role: string): void {
    for (const name of ['leader', 'follower', 'candidate', 'learner'])
      this.role.set({ role: name }, name === role ? 1 : 0);
  }
}
