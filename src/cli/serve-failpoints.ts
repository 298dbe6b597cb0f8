/**
 * Failpoints: bugs put in on purpose, so that the fault-injection harness (jepsen-like/) can show
 * it still catches real ones. Off unless `raftq serve --test-failpoint NAME` names one, which is
 * refused unless every listener is on loopback (serve-options.ts): a production node never runs
 * one.
 *
 * - drop-acked-send: every tenth standard-queue send is acknowledged with a made-up message id
 *   and never applied.
 * - fifo-reorder: a receive that returns two messages of one FIFO group returns them swapped.
 * - stale-read: receives are answered from this node's own applied state (not a linearizable
 *   view), and the claims they make are never proposed: the replica ignores the leader and the
 *   log, so what it hands out stays visible to everyone else.
 * - node-assert: some seconds after it starts serving, the node fails an assertion and exits
 *   (once per data directory, so a restarted node does not fail again).
 */
import { randomUUID } from 'node:crypto';
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Logger } from 'pino';
import { assert } from '../base/assert.js';
import type { ClusterNode } from '../cluster/cluster-node.js';
import {
  QueueService,
  type EntryFailure,
  type QueueServiceOptions,
  type ReceivedMessage,
  type ReceiveOptions,
  type SendEntry,
  type SendResult,
} from '../queue/queue-service.js';
import type { TxnExecutor } from '../storage/txn.js';
import type { FailpointName } from './failpoint-names.js';

const droppedSendEvery = 10;
const nodeAssertAfterMs = 6_000;

/** The queue service the SQS gateway serves from, with `failpoint`'s bug in it. */
export function failpointQueueService(
  options: QueueServiceOptions,
  failpoint: FailpointName,
  node: ClusterNode,
): QueueService {
  switch (failpoint) {
    case 'drop-acked-send':
      return new DropAckedSendQueueService(options);
    case 'fifo-reorder':
      return new FifoReorderQueueService(options);
    case 'stale-read':
      return new StaleReadQueueService(options, node);
    case 'node-assert':
      return new QueueService(options);
  }
}

class DropAckedSendQueueService extends QueueService {
  private sendCount = 0;

  override async sendMessages(
    name: string,
    entries: SendEntry[],
    context: { senderId: string },
  ): Promise<Array<SendResult | EntryFailure>> {
    const dropped = new Set<number>();
    entries.forEach((entry, i) => {
      if (entry.messageGroupId === undefined && ++this.sendCount % droppedSendEvery === 0) dropped.add(i);
    });
    const kept = entries.filter((_, i) => !dropped.has(i));
    const results = kept.length === 0 ? [] : await super.sendMessages(name, kept, context);
    let next = 0;
    return entries.map((entry, i) =>
      dropped.has(i)
        ? { entryId: entry.entryId, messageId: randomUUID() }
        : (results[next++] as SendResult | EntryFailure),
    );
  }
}

class FifoReorderQueueService extends QueueService {
  override async receiveMessages(name: string, options: ReceiveOptions): Promise<ReceivedMessage[]> {
    const messages = await super.receiveMessages(name, options);
    const firstOfGroup = new Map<string, number>();
    for (const [i, m] of messages.entries()) {
      const group = m.attributes['MessageGroupId'];
      if (group === undefined) continue;
      const first = firstOfGroup.get(group);
      if (first === undefined) {
        firstOfGroup.set(group, i);
        continue;
      }
      const swapped = [...messages];
      swapped[first] = m;
      swapped[i] = messages[first] as ReceivedMessage;
      return swapped;
    }
    return messages;
  }
}

/** stale-read: one receive in this many is served from a stale view that commits nothing. */
const staleReceiveEvery = 4;

class StaleReadQueueService extends QueueService {
  private readonly stale: QueueService;

  constructor(options: QueueServiceOptions, node: ClusterNode) {
    super(options);
    // Reads at whatever this replica has applied; commits that report success and propose nothing.
    const ignoresLeader: TxnExecutor = {
      readView: () => node.readView({ linearizable: false }),
      commit: async (txn) => ({ kind: 'committed', commitTsUs: txn.startTsUs + 1 }),
      nowMs: () => node.nowMs(),
      onApplied: (listener) => node.onApplied(listener),
    };
    this.stale = new QueueService({ ...options, executor: ignoresLeader });
  }

  private receiveCount = 0;

  /**
   * Every few receives read stale and claim nothing; the rest are real. All of them would let the
   * node's consumers spin without Raft on the same messages, and the history outgrow the checkers.
   */
  override receiveMessages(name: string, options: ReceiveOptions): Promise<ReceivedMessage[]> {
    if (++this.receiveCount % staleReceiveEvery === 0) return this.stale.receiveMessages(name, options);
    return super.receiveMessages(name, options);
  }

  override close(): void {
    this.stale.close();
    super.close();
  }
}

/** node-assert: fails an assertion outside any handler, which ends the process as a real one would. */
export function armNodeAssert(dataDir: string, logger: Logger): void {
  const marker = join(dataDir, 'failpoint-node-assert.fired');
  if (existsSync(marker)) return;
  const timer = setTimeout(() => {
    writeFileSync(marker, `${new Date().toISOString()}\n`);
    logger.flush?.();
    assert(false, 'failpoint node-assert: an invariant of this node does not hold');
  }, nodeAssertAfterMs);
  timer.unref();
}
