/**
 * Every limit raftq has, with its unit in its name and the reason it has that value.
 * docs/LIMITS.md is generated from this file (`npm run limits:doc`); edit here, not there.
 *
 * Grouped by owner. A limit that AWS defines carries AWS's current value; one that is ours says
 * what it protects.
 */
export interface Limit {
  readonly value: number;
  readonly unit: string;
  readonly reason: string;
}

function limit(value: number, unit: string, reason: string): Limit {
  return { value, unit, reason };
}

/** SQS limits as AWS defines them today (AWS's service model, shipped as model/sqs-shapes.json, is the authority). */
export const sqsLimits = {
  queueNameLengthMax: limit(
    80,
    'characters',
    'AWS: queue names are 1-80 of [A-Za-z0-9_-], plus ".fifo" for FIFO queues (included in the 80).',
  ),
  messageSizeBytesMax: limit(
    1_048_576,
    'bytes',
    'AWS: largest message body plus attributes, and the default of MaximumMessageSize (1 MiB since 2025).',
  ),
  messageSizeBytesMin: limit(1_024, 'bytes', 'AWS: smallest value the MaximumMessageSize attribute accepts.'),
  batchSizeBytesMax: limit(
    1_048_576,
    'bytes',
    'AWS: total payload of one SendMessageBatch, attributes included (trap 10).',
  ),
  batchEntriesMax: limit(10, 'entries', 'AWS: entries in one *Batch request.'),
  batchEntryIdLengthMax: limit(80, 'characters', 'AWS: batch entry ids are 1-80 of [A-Za-z0-9_-].'),
  receiveMessagesMax: limit(10, 'messages', 'AWS: MaxNumberOfMessages of ReceiveMessage.'),
  receiveWaitSecondsMax: limit(
    20,
    'seconds',
    'AWS: longest long poll (WaitTimeSeconds, ReceiveMessageWaitTimeSeconds).',
  ),
  visibilityTimeoutSecondsMax: limit(
    43_200,
    'seconds',
    'AWS: 12 hours, for VisibilityTimeout and ChangeMessageVisibility.',
  ),
  visibilityTimeoutSecondsDefault: limit(30, 'seconds', 'AWS default of the VisibilityTimeout attribute.'),
  delaySecondsMax: limit(900, 'seconds', 'AWS: 15 minutes, for DelaySeconds on queue and message.'),
  retentionSecondsMin: limit(60, 'seconds', 'AWS: smallest MessageRetentionPeriod.'),
  retentionSecondsMax: limit(1_209_600, 'seconds', 'AWS: 14 days, largest MessageRetentionPeriod.'),
  retentionSecondsDefault: limit(345_600, 'seconds', 'AWS default MessageRetentionPeriod: 4 days.'),
  inFlightMessagesStandardMax: limit(
    120_000,
    'messages',
    'AWS: in-flight messages of a standard queue before OverLimit.',
  ),
  inFlightMessagesFifoMax: limit(120_000, 'messages', 'AWS: in-flight messages of a FIFO queue before OverLimit.'),
  messageAttributesMax: limit(10, 'attributes', 'AWS: message attributes per message.'),
  messageAttributeNameLengthMax: limit(256, 'characters', 'AWS: message attribute names.'),
  messageAttributeTypeLengthMax: limit(
    256,
    'characters',
    'AWS: message attribute data type names, custom suffix included.',
  ),
  deduplicationWindowMs: limit(300_000, 'milliseconds', 'AWS: FIFO deduplication interval of 5 minutes.'),
  receiveRequestAttemptWindowMs: limit(
    300_000,
    'milliseconds',
    'AWS: a ReceiveRequestAttemptId is honoured for 5 minutes.',
  ),
  fifoIdLengthMax: limit(128, 'characters', 'AWS: MessageGroupId, MessageDeduplicationId and ReceiveRequestAttemptId.'),
  purgeCooldownMs: limit(
    60_000,
    'milliseconds',
    'AWS: one PurgeQueue per queue per 60 seconds (PurgeQueueInProgress).',
  ),
  queueRecreateCooldownMs: limit(
    0,
    'milliseconds',
    'AWS waits 60 s before a deleted name can be reused; raftq generations make that unnecessary, so 0.',
  ),
  tagsPerQueueMax: limit(50, 'tags', 'AWS: tags on one queue.'),
  tagKeyLengthMax: limit(128, 'characters', 'AWS: tag keys.'),
  tagValueLengthMax: limit(256, 'characters', 'AWS: tag values.'),
  maxReceiveCountMax: limit(1_000, 'receives', 'AWS: largest maxReceiveCount of a RedrivePolicy.'),
  redriveAllowSourceQueuesMax: limit(10, 'queues', 'AWS: sourceQueueArns of a byQueue RedriveAllowPolicy.'),
  listQueuesResultsMax: limit(1_000, 'queues', 'AWS: MaxResults of ListQueues and ListDeadLetterSourceQueues.'),
  permissionLabelLengthMax: limit(80, 'characters', 'AWS: AddPermission labels.'),
  moveTaskMessagesPerSecondMax: limit(
    500,
    'messages/second',
    'AWS: MaxNumberOfMessagesPerSecond of StartMessageMoveTask.',
  ),
} as const;

/** Limits of raftq's own making: each protects a resource or bounds a cost. */
export const raftqLimits = {
  httpRequestBytesMax: limit(
    2 * 1_048_576 + 65_536,
    'bytes',
    'Largest HTTP body read before parsing: a 1 MiB batch grows under form or JSON escaping; anything larger is refused before it is buffered.',
  ),
  sigV4ClockSkewMsMax: limit(
    900_000,
    'milliseconds',
    'AWS: a SigV4 request dated more than 15 minutes from the server clock is refused (replay window).',
  ),
  sigV4SigningKeysCachedMax: limit(
    1_024,
    'keys',
    'Derived SigV4 signing keys cached per access key, day, region and service; the cache is cleared when full, so memory stays bounded under odd scopes.',
  ),
  presignedUrlExpirySecondsMax: limit(
    604_800,
    'seconds',
    'AWS: X-Amz-Expires of a presigned SigV4 URL is at most 7 days.',
  ),
  gatewayRequestTimeoutMs: limit(
    15_000,
    'milliseconds',
    'Time a request may take beyond its long-poll wait before the gateway answers a retryable 503 (outcome unknown) instead of leaving the client hanging.',
  ),
  gatewayDrainTimeoutMs: limit(
    10_000,
    'milliseconds',
    'Time close() waits for in-flight requests (long polls are woken first) before it drops the remaining connections.',
  ),
  oversizeBodyDiscardBytesMax: limit(
    64 * 1_048_576,
    'bytes',
    'Bytes of a refused oversize body read and thrown away after its 413, so that a client still sending receives the answer instead of a connection reset; a longer body is cut with a reset.',
  ),
  oversizeBodyDiscardMs: limit(
    10_000,
    'milliseconds',
    'Time a refused oversize body is read and thrown away after its 413 before the connection is cut, so that a client trickling a huge body cannot hold it open.',
  ),
  fifoPartitionsMax: limit(
    64,
    'partitions',
    'High-throughput FIFO partitions per queue (power of two); bounds the receive fan-out.',
  ),
  receiveScanRowsMax: limit(
    1_000,
    'rows',
    'Visibility-index rows one receive may examine before it answers with what it found (trap 11 needs more than one page, but not unbounded work).',
  ),
  approximateCountRowsMax: limit(
    100_000,
    'rows',
    'Rows ApproximateNumberOf* may count exactly; beyond it the count is an estimate (trap 18).',
  ),
  reaperRowsPerQueuePerTickMax: limit(
    256,
    'rows',
    'Rows of a live queue the reaper deletes per key family per tick (expired messages, dedup and attempt rows, dangling rows), so one huge queue cannot starve the rest.',
  ),
  reaperTombstonedRowsPerTxnMax: limit(
    1_024,
    'rows',
    'Rows of a purged or deleted generation one reaper transaction deletes: one Raft entry of about 60 KiB of keys, whose apply holds the Ready loop a few milliseconds.',
  ),
  reaperTombstonedRowsPerSweepMax: limit(
    8_192,
    'rows',
    'Rows of purged or deleted generations one reaper sweep deletes, a transaction per tombstone in turn; while rows are left the next sweep starts at once, so a deleted queue of a million messages (two million rows) is cleared in minutes while each sweep still reaches the live queues.',
  ),
  reaperAuditRowsPerQueuePerTickMax: limit(
    64,
    'rows',
    'vis, age, group and state rows per queue per family the reaper checks against their message data in one audit step (one point read each): dangling rows are an anomaly, so the audit is a slow background walk that costs little on a busy leader.',
  ),
  reaperAuditIntervalMs: limit(
    10_000,
    'ms',
    "How often the dangling-row audit of a queue steps (while a step finds none): on a queue being consumed each step walks through the deletion markers consumed messages leave, about 3 % of a consuming leader's main thread when it stepped every tick; a step that finds dangling rows makes the next one due at the next tick.",
  ),
  reaperQueuesPerTickMax: limit(
    64,
    'queues',
    'Queues one reaper tick visits (retention, expired dedup and attempt rows, dangling index rows); the next tick continues with the following queues, so a tick stays short however many queues exist.',
  ),
  reaperTombstonedBytesPerTxnMax: limit(
    4 * 1_048_576,
    'bytes',
    'Bytes (keys and values) one reaper transaction reads from a purged or deleted generation, judged by the mean size of the rows its previous transaction read (the first assumes 64 KiB rows): a generation of 256 KiB messages is read 16 rows at a time, not 1,024.',
  ),
  reaperTombstonedBytesPerSweepMax: limit(
    16 * 1_048_576,
    'bytes',
    'Bytes (keys and values, which the clearing reads) of purged or deleted generations one reaper sweep deletes, whichever of it and reaperTombstonedRowsPerSweepMax comes first: a queue of 256 KiB messages is cleared about 16 MiB a sweep, not 8,192 rows (a GiB) at once.',
  ),
  reaperTombstonesPerTickMax: limit(
    32,
    'tombstones',
    'Tombstoned generations one reaper sweep clears rows of, in turn; the next sweep continues with the following ones, so one huge purged queue cannot hold up the others.',
  ),
  moveTaskRetentionMs: limit(
    1_209_600_000,
    'milliseconds',
    'How long the reaper keeps a finished (completed, cancelled, failed) message move task row after its last step: the longest MessageRetentionPeriod.',
  ),
  moveTasksKeptPerSourceMax: limit(
    10,
    'tasks',
    'Finished move tasks kept per source queue whatever their age: ListMessageMoveTasks shows at most the 10 most recent, so older finished ones are unreachable.',
  ),
  txnIdRetentionMs: limit(
    600_000,
    'milliseconds',
    'How long an applied txn id is remembered so a retry is answered with its first outcome.',
  ),
  clockSkewMsMax: limit(
    5_000,
    'milliseconds',
    'A transaction whose nowMs is further than this from the leader stamp of its entry is rejected.',
  ),
  mvccHistoryMs: limit(
    10_000,
    'milliseconds',
    'Commit-time history every replica keeps: a txn whose startTsUs is older is rejected as too-old (the caller re-reads and retries), reads at older timestamps fail, and a deletion marker lives this long, which bounds the dead rows a scan of a churned queue skips. Must be equal on every replica.',
  ),
  gcRowsPerStepMax: limit(
    1_000,
    'rows',
    'Physical rows one garbage-collection step examines while it holds the apply lock, so collection never stalls applying for long: steps of 10,000 one-KiB rows held it 56 ms (median) to 89 ms while a node consumed, which every request in flight waited out.',
  ),
  gcLedgerEntriesPerStepMax: limit(
    2_048,
    'entries',
    'Entries of the garbage ledger (versions the apply step hid, markers it wrote) one collection step removes at most, in one batch while it holds the apply lock: at one step every garbageCollectionScheduleIntervalMs about 40,000 a second, the six entries each of 6,000 consumed messages a second (steps of 4,096 held the loop 20-30 ms, now and then 100 ms, consuming from a million).',
  ),
  gcLedgerBytesMax: limit(
    64 * 1_048_576,
    'bytes',
    'Bytes the garbage ledger holds at most (about 80 bytes an entry: a key, its timestamps): the garbage of about ten seconds of consuming 30,000 messages a second, since a marker waits mvccHistoryMs. A burst past it (clearing a deleted queue of millions) makes the ledger start over, and passes over the keyspace find that garbage instead.',
  ),
  gcBytesPerStepMax: limit(
    2 * 1_048_576,
    'bytes',
    'Bytes of rows (keys and values) one garbage-collection step reads, beside its row bound: a pass reads every live value too, and with 64 KiB messages 1,000 rows a step read about 100 MiB a second per node (docs/BENCHMARKS.md, the third session of 2026-12-02). Rows of 1 KiB reach the row bound first.',
  ),
  txnIdExpiryRowsPerEntryMax: limit(
    1_024,
    'rows',
    'Expired txn ids one Raft entry deletes; the rest go with later entries (lookups already ignore expired ids), so a burst of expiries never makes one apply batch huge.',
  ),
  deadPrefixesMax: limit(
    64,
    'ranges',
    'Scan starts per replica whose run of deleted keys is remembered so the next scan skips it (a queue head is a stream of deletions); every applied write is checked against each, so the count stays small.',
  ),
  deadPrefixKeysMin: limit(
    32,
    'keys',
    'Deleted keys a scan must skip before its run is remembered: shorter runs cost less to read again than to track.',
  ),
  newestVersionCacheEntriesMax: limit(
    524_288,
    'keys',
    'Keys whose newest version a replica keeps in memory, so point reads and OCC validation of hot keys (queue meta, queued messages) skip LevelDB. When full, deletion markers go first and a new send does not push out older unread messages, so a backlog stays cached from its head, where consumers read (newest-version-cache.ts). A queued message takes two keys.',
  ),
  newestVersionCacheBytesMax: limit(
    256 * 1_048_576,
    'bytes',
    "Memory of that cache: keys, kept values and 450 bytes of bookkeeping per key (measured), the bound that binds first. Holds the head of a backlog of about 120,000 messages of 1 KiB or 190,000 of 256 bytes; sized to fit a node in 1 GiB (deploy/kubernetes's memory limit) beside the heap's other uses.",
  ),
  newestVersionCacheValueBytesMax: limit(
    131_072,
    'bytes',
    "Largest value that cache keeps (a 64 KiB message with room to spare): a larger one still answers version lookups from memory, but its reads go to LevelDB, whole, once for the receive and once for each delete or visibility change, which reads the row for a few header fields. At 16 KiB, consuming 64 KiB messages moved 19 % fewer a second at 29 % more CPU per message (docs/BENCHMARKS.md, 2026-12-06). The cache's byte bound, not this, limits its memory.",
  ),
  absentKeysMax: limit(
    1_048_576,
    'keys',
    "Keys a replica remembers to have no version because a send's new message id implies them (each queued message's receive-state row, until its first receive), so the first receive's validation skips a LevelDB seek for a row that is not there. About 100 bytes each, outside the JavaScript heap (absent-key-set.ts): 1,048,576 covers a backlog of a million messages in roughly 100 MB. When full, later sends go without the hint and their first receive seeks (absent-key-set.ts).",
  ),
  levelDbBlockCacheBytes: limit(
    8 * 1_048_576,
    'bytes',
    "LevelDB's cache of uncompressed table blocks, per database (a node has two: its state and its Raft log), for the reads the newest-version cache does not answer. classic-level's default: 64 MiB was measured against it from a backlog of a million 256-byte messages and of 200,000 (docs/BENCHMARKS.md) without a gain beyond the run-to-run spread.",
  ),
  levelDbStateWriteBufferBytes: limit(
    32 * 1_048_576,
    'bytes',
    "Writes the state database buffers in memory before LevelDB writes them to a table file (twice this while one buffer is being written out). The state's keys are rewritten and deleted at a high rate (every message's rows, then collection), and with classic-level's 4 MiB every few seconds of load flushed a table that overlapped the whole next level: LevelDB's compaction thread took a quarter of a node's CPU. 32 MiB cut that thread's CPU about threefold and a node's CPU per message 6-12 % in consume and produce (docs/BENCHMARKS.md).",
  ),
  levelDbIteratorBatchBytes: limit(
    1_048_576,
    'bytes',
    "Bytes of rows one read of a bulk LevelDB iteration (a garbage-collection step, a Raft log replay) brings back at most; the reader bounds the count too. classic-level's default of 16 KiB, which point reads and short scans keep, returned about 15 one-KiB rows per call: a garbage-collection step of 10,000 rows took some 650 native calls and promise hops on the main thread.",
  ),
  queueTxnAttemptsMax: limit(
    16,
    'attempts',
    'Times a queue operation re-reads and rebuilds its transaction after a conflict before it answers with a retryable error: enough for ten receivers racing for one head, bounded so a hot key cannot spin a request forever.',
  ),
  queueTxnCommitRetriesMax: limit(
    3,
    'attempts',
    'Times one transaction (same txn id) is re-proposed after an outcome-unknown failure; the txn id table makes each repeat safe.',
  ),
  receiveScanPageRows: limit(
    64,
    'rows',
    'Visibility-index rows read per page by one receive; more pages follow up to receiveScanRowsMax.',
  ),
  fifoPartitionsHighThroughput: limit(
    8,
    'partitions',
    'Partitions a high-throughput FIFO queue (FifoThroughputLimit=perMessageGroupId at creation) gets; fixed for the life of the queue.',
  ),
  inFlightCountCacheMs: limit(
    1_000,
    'milliseconds',
    'How long a receive reuses the last bounded count of in-flight messages for the OverLimit check, so a busy queue is not recounted on every receive.',
  ),
  queueIndexReloadAfterMs: limit(
    10_000,
    'milliseconds',
    'How old a queue index (the in-memory index receives take messages from) may grow while it offers nothing before it is rebuilt from the stored rows: bounds how long a message whose rows reached this replica without an applied-write notice can stay hidden.',
  ),
  deadLetterCauseNameCharsMax: limit(
    256,
    'characters',
    'Error name a dead letter records (MoveMessageToDeadLetterQueue refuses longer, the client truncates): a class name, not a story.',
  ),
  deadLetterCauseCodeCharsMax: limit(256, 'characters', 'Error code a dead letter records, bounded like the name.'),
  deadLetterCauseMessageCharsMax: limit(
    1_024,
    'characters',
    'Public error message a dead letter records: enough to act on, small beside a 1 MiB message, so the cause never pushes a copy past the size limit by much.',
  ),
  consumerParallelismMax: limit(
    1_000,
    'messages',
    'Messages one consume() handles at once (on a FIFO queue, groups it holds, each with up to 10 messages waiting their turn): each held message has a lease that is extended on a timer, so the count bounds memory and ChangeMessageVisibility traffic.',
  ),
  consumerLeaseExtensionsPerTimeout: limit(
    3,
    'extensions',
    "A running handler's lease is renewed this many times per visibility timeout, so two renewals can fail or be slow before the message becomes visible to another consumer.",
  ),
  consumerGracePeriodMsDefault: limit(
    30_000,
    'milliseconds',
    'How long a stopping consumer waits for running handlers when gracePeriodMs is not given; past it their messages are abandoned and reappear after their visibility timeout.',
  ),
  consumerGracePeriodMsMax: limit(
    43_200_000,
    'milliseconds',
    'Longest grace period: the 12 hours a lease can be extended to after its receive.',
  ),
  consumerQueueFailuresMax: limit(
    10,
    'failures',
    "Consecutive failed receives (after the SDK's own retries) before consume() gives up and rejects: the queue is down, not blinking.",
  ),
  clientRetryBackoffMsMin: limit(
    100,
    'milliseconds',
    'First wait before the client library repeats a request that failed transiently.',
  ),
  clientRetryBackoffMsMax: limit(
    5_000,
    'milliseconds',
    'Longest wait between repeats of a transiently failed request, so recovery is noticed within seconds.',
  ),
  clientAcknowledgeAttemptsMax: limit(
    3,
    'attempts',
    'Times a consumer repeats a delete, visibility change or dead-letter move that failed transiently; after that the message is left to its visibility timeout (at-least-once).',
  ),
  deadLettersListedDefault: limit(100, 'messages', 'Dead letters deadLetters() returns when max is not given.'),
  deadLettersListedMax: limit(
    1_000,
    'messages',
    'Most dead letters one deadLetters() call (and one replay or delete search) looks at: each is received and hidden while the scan runs.',
  ),
  deadLetterScanVisibilitySeconds: limit(
    30,
    'seconds',
    'How long a dead-letter scan hides what it has read so that the next receive returns other messages; released at once when the scan ends, and by itself if the scanning process dies.',
  ),
  deadLetterScanWaitSeconds: limit(
    1,
    'seconds',
    'Long-poll wait of each dead-letter scan receive: a short poll of AWS may answer empty while messages exist, so the scan ends only on an empty long poll.',
  ),
  producerLingerMsDefault: limit(
    5,
    'milliseconds',
    'How long a producer waits for more messages to fill a batch when lingerMs is not given.',
  ),
  producerLingerMsMax: limit(
    10_000,
    'milliseconds',
    'Longest linger a producer accepts: a send must not wait on a timer for longer than a person notices.',
  ),
  producerBatchesInFlightMax: limit(
    4,
    'batches',
    'SendMessageBatch requests one producer has outstanding; further messages wait and fill the next batches.',
  ),
  producerEntryAttemptsMax: limit(
    5,
    'attempts',
    'Times a producer sends one entry that failed transiently (the same body, attributes and deduplication id each time) before rejecting it.',
  ),
  backupHeaderBytesMax: limit(
    65_536,
    'bytes',
    'Longest header line a restore reads from a backup file: it is a few fields, so anything longer is not a backup.',
  ),
  backupFrameBytesMax: limit(
    268_435_456,
    'bytes',
    'Largest frame a restore accepts from a backup file: frames are snapshot chunks of about a megabyte, so a larger length is damage, refused before it is buffered.',
  ),
} as const;

/** Raft and cluster runtime limits. */
export const raftLimits = {
  tickMs: limit(50, 'milliseconds', 'One Raft tick; elections and heartbeats are counted in ticks.'),
  electionTimeoutTicks: limit(
    10,
    'ticks',
    'Base election timeout (randomized in [base, 2*base)): 0.5-1 s keeps failover under 2 s on a loaded two-core machine.',
  ),
  heartbeatTicks: limit(1, 'ticks', 'Leader heartbeat interval.'),
  inflightMessagesMax: limit(
    256,
    'messages',
    'Append messages in flight to one follower before the leader waits for acknowledgements.',
  ),
  appendBytesMax: limit(
    1_048_576,
    'bytes',
    'Entries bytes per append message (one message may exceed it by one entry).',
  ),
  uncommittedBytesMax: limit(
    64 * 1_048_576,
    'bytes',
    'Uncommitted log bytes a leader accepts before refusing proposals, so a stalled quorum cannot grow memory without bound.',
  ),
  inflightBytesMax: limit(
    32 * 1_048_576,
    'bytes',
    'Entry bytes in flight to one follower before the leader waits for acknowledgements, so a slow follower cannot make the leader buffer without bound.',
  ),
  readyCommittedBytesMax: limit(
    8 * 1_048_576,
    'bytes',
    'Committed entry bytes handed to the runtime in one Ready, so a follower catching up applies in bounded batches instead of one huge one.',
  ),
  snapshotThresholdEntries: limit(
    10_000,
    'entries',
    'Applied entries since the last snapshot that trigger a new snapshot and log compaction.',
  ),
  snapshotChunkBytes: limit(1_048_576, 'bytes', 'Size of one streamed snapshot chunk.'),
  sendQueueMessagesMax: limit(
    4_096,
    'messages',
    'Raft messages queued for one peer link; beyond it messages are dropped (Raft retransmits) rather than growing memory.',
  ),
  proposalBatchTxnsMax: limit(512, 'transactions', 'Transactions carried by one Raft entry.'),
  proposalTimeoutMs: limit(
    10_000,
    'milliseconds',
    'A proposal not committed by then fails with a retryable error (outcome unknown; the txn id makes a retry safe).',
  ),
  proposalBatchBytesMax: limit(
    1_048_576,
    'bytes',
    'Transaction bytes carried by one Raft entry (a single larger txn travels alone), so one entry stays well inside an append message.',
  ),
  forwardedProposalAnswerMarginMs: limit(
    500,
    'milliseconds',
    "How much sooner than proposalTimeoutMs a leader stops waiting on a follower's forwarded txn, so that its answer (the entry index, or outcome unknown) reaches the follower before the follower's call to it times out.",
  ),
  leaderRetryBackoffMsMin: limit(
    20,
    'milliseconds',
    'First wait before a txn or forwarded queue operation whose attempt failed (the leader changed or the call broke) is tried again: short, because the wait for a new leader is separate (leaderWaitMs) and a retry usually finds one already known.',
  ),
  leaderRetryBackoffMsMax: limit(
    160,
    'milliseconds',
    'Longest wait between such attempts (the wait doubles from leaderRetryBackoffMsMin): a leader that keeps failing them is asked a few times a second, not in a tight loop, while the retries still fit many times into proposalTimeoutMs.',
  ),
  followerApplyEntriesMin: limit(
    4,
    'entries',
    'Committed entries a follower holds back before applying them as one step (follower-apply-pacing.ts): under load about one entry arrives per replication cycle, and each apply step has a fixed cost. Nothing is held back while a read on the follower waits, nor by a leader or candidate.',
  ),
  followerApplyDelayMsMax: limit(
    20,
    'milliseconds',
    "Longest a follower holds a committed entry back before applying it (see followerApplyEntriesMin): how far a follower's state may trail its log when nobody reads it.",
  ),
  opBatchBytesMax: limit(
    4 * 1_048_576,
    'bytes',
    "Argument or result bytes of forwarded queue operations in one message of a follower's operation stream (a larger single operation travels alone), well inside grpcMessageBytesMax.",
  ),
  leaderWaitMs: limit(
    3_000,
    'milliseconds',
    'How long a proposal or read waits for a leader to become known before failing with a retryable error: a few election timeouts.',
  ),
  readIndexTimeoutMs: limit(
    5_000,
    'milliseconds',
    'A linearizable read that cannot confirm the commit index by then fails with a retryable error, shorter than a proposal because a read has no side effect to wait out.',
  ),
  grpcMessageBytesMax: limit(
    16 * 1_048_576,
    'bytes',
    'Largest gRPC message between nodes: an append message (appendBytesMax plus one entry of up to a few MiB) or a snapshot chunk with headroom.',
  ),
  peerReconnectBackoffMsMin: limit(50, 'milliseconds', 'First delay before reopening a broken peer stream.'),
  peerReconnectBackoffMsMax: limit(
    1_000,
    'milliseconds',
    'Longest delay between attempts to reopen a peer stream: a restarted node is reached within about a second.',
  ),
  peerKeepaliveMs: limit(
    5_000,
    'milliseconds',
    'HTTP/2 ping interval (and ping timeout) on peer channels, so a silently dead peer is detected in about 10 s.',
  ),
  clockSampleIntervalMs: limit(
    1_000,
    'milliseconds',
    'How often a follower samples the leader clock for its cluster-clock offset.',
  ),
  logMirrorBytesMax: limit(
    256 * 1_048_576,
    'bytes',
    'Log bytes kept since the last snapshot (the in-memory mirror of the log tail); reaching it triggers a snapshot early, so memory stays bounded under large entries.',
  ),
  snapshotCatchUpEntries: limit(
    1_000,
    'entries',
    'Entries kept behind a snapshot when compacting, so a follower that is only a little behind catches up from the log instead of a full snapshot.',
  ),
  garbageCollectionScheduleIntervalMs: limit(
    50,
    'milliseconds',
    "How often a node starts one MVCC garbage-collection step (one in flight at most, none while nothing was applied): each step examines at most gcRowsPerStepMax rows, so the interval bounds collection's share of the apply lock (20,000 rows a second) while versions past mvccHistoryMs still go within seconds.",
  ),
  garbageCollectionPassRestMs: limit(
    500,
    'milliseconds',
    'Least time between the end of one garbage-collection pass over the keyspace and the start of the next: a small keyspace is rescanned at most twice a second, as when steps came every 500 ms, while a large one is walked in small steps at the interval above.',
  ),
  learnerCatchUpEntries: limit(
    64,
    'entries',
    "A learner is promoted to voter once it has acknowledged the leader's log up to the leader's last index when the leader first saw it, answered within the last three election timeouts, and is within this many entries of the leader's last index.",
  ),
  learnerPromotionCheckTicks: limit(
    5,
    'ticks',
    "How often a leader looks for a learner it can promote to voter (250 ms at the default tick): soon enough next to the time a learner takes to catch up, and not every tick, because each look copies the core's status with every member's progress.",
  ),
  snapshotSendTimeoutMs: limit(
    120_000,
    'milliseconds',
    'A snapshot stream that has not finished by then is abandoned and reported as failed, so Raft retries it.',
  ),
  shutdownDrainMs: limit(
    5_000,
    'milliseconds',
    'On SIGTERM, how long the node waits for in-flight requests and a leadership transfer before exiting.',
  ),
  stateCompactionDelayMs: limit(
    30_000,
    'milliseconds',
    'How long after the reaper emptied a range (or deletes piled up in a queue generation) the node compacts it in LevelDB: long enough for the MVCC horizon (mvccHistoryMs) and a garbage-collection pass to remove the deletion markers first.',
  ),
  stateCompactionIntervalMs: limit(
    5_000,
    'milliseconds',
    'Least time between two LevelDB range compactions of the state on one node, so compaction never takes more than a slice of a core.',
  ),
  stateCompactionDeletesMin: limit(
    50_000,
    'deletes',
    'Deletes applied in one queue generation that make it due for a LevelDB range compaction: a busy queue head is a stream of deletions whose LevelDB tombstones every scan would otherwise skip.',
  ),
  stateCompactionRangesMax: limit(
    1_024,
    'ranges',
    'Ranges waiting for a LevelDB compaction on one node; further ones are not queued (LevelDB still compacts them in its own time), so memory stays bounded.',
  ),
} as const;

export const allLimitGroups = { sqs: sqsLimits, raftq: raftqLimits, raft: raftLimits } as const;
