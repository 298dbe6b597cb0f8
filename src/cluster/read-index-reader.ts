/**
 * ReadIndex from any node: the commit index the leader confirms now, below which a linearizable
 * read may be served once applied. On the leader, reads that queue between two turns of the Ready
 * loop share one round of RawNode.readIndex (ReadIndexRounds); on a follower it is a ReadIndex call
 * to the leader. Leadership moving or an unreachable leader means asking again, within the bound.
 */
import { delay } from '../base/delay.js';
import type { Scheduler } from '../base/scheduler.js';
import { raftLimits } from '../base/limits.js';
import { ReadIndexDroppedError } from '../raft/errors.js';
import type { RawNode } from '../raft/raw-node.js';
import { NotLeaderError, ReadIndexTimeoutError } from './errors.js';
import type { NodeTransport } from './node-transport.js';
import type { NodeMetrics } from './node-metrics.js';
import { ReadIndexRounds } from './read-index-rounds.js';

export interface ReadIndexReaderParts {
  readonly nodeId: string;
  readonly groupId: number;
  readonly metrics: NodeMetrics;
  readonly raw: RawNode;
  readonly transport: () => NodeTransport;
  /** The leader's id, waiting up to `timeoutMs` for one to be known. */
  readonly waitForLeader: (timeoutMs: number) => Promise<string>;
  /** The leader this node believes in now, or ''. */
  readonly leaderHint: () => string;
  /** Wakes the Ready loop, which issues the queued round. */
  readonly kick: () => void;
  /** The node's timers and monotonic clock (the runtime's). */
  readonly scheduler: Scheduler;
}

export class ReadIndexReader {
  private readonly rounds = new ReadIndexRounds();

  constructor(private readonly parts: ReadIndexReaderParts) {}

  /** The commit index as the leader confirms it now (ReadIndex), on any node. */
  async readIndex(timeoutMs: number): Promise<number> {
    const { scheduler } = this.parts;
    const startedAt = scheduler.monotonicMs();
    const deadlineMs = startedAt + timeoutMs;
    for (;;) {
      const remainingMs = deadlineMs - scheduler.monotonicMs();
      if (remainingMs <= 0) throw new ReadIndexTimeoutError(this.parts.nodeId, timeoutMs);
      const leader = await this.parts.waitForLeader(Math.min(remainingMs, raftLimits.leaderWaitMs.value));
      try {
        const index =
          leader === this.parts.nodeId
            ? await this.localReadIndex(remainingMs)
            : await this.remoteReadIndex(leader, remainingMs);
        this.parts.metrics.readIndexSeconds.observe((scheduler.monotonicMs() - startedAt) / 1000);
        return index;
      } catch (error) {
        if (error instanceof ReadIndexTimeoutError) throw error;
        // Leadership moved or the leader was unreachable: ask again, within the deadline.
        await delay(Math.min(50, Math.max(0, deadlineMs - scheduler.monotonicMs())), scheduler);
      }
    }
  }

  /** A round on this node, which must lead (the ReadIndex call of a follower lands here too). */
  localReadIndex(timeoutMs: number): Promise<number> {
    return new Promise<number>((resolve, reject) => {
      const cancelTimer = this.parts.scheduler.after(timeoutMs, () =>
        reject(new ReadIndexTimeoutError(this.parts.nodeId, timeoutMs)),
      );
      this.rounds.enqueue({
        resolve: (index) => {
          cancelTimer();
          resolve(index);
        },
        reject: (error) => {
          cancelTimer();
          reject(error);
        },
      });
      this.parts.kick();
    });
  }

  /** Issues one round for every read that queued since the last. Loop only. */
  issueRounds(): void {
    const round = this.rounds.issue();
    if (round === null) return;
    try {
      this.parts.raw.readIndex(round.context);
    } catch (error) {
      if (!(error instanceof ReadIndexDroppedError)) throw error;
      this.rounds.fail(round.context, new NotLeaderError(this.parts.nodeId, this.parts.leaderHint(), { cause: error }));
    }
  }

  /** A Ready's read state answers the round issued with `context`. */
  complete(context: Uint8Array, index: number): void {
    this.rounds.complete(context, index);
  }

  failAll(error: Error): void {
    this.rounds.failAll(error);
  }

  private async remoteReadIndex(leader: string, timeoutMs: number): Promise<number> {
    const answer = await this.parts
      .transport()
      .call(leader, 'readIndex', { groupId: this.parts.groupId, from: this.parts.nodeId }, timeoutMs);
    if (!answer.isLeader) throw new NotLeaderError(leader, answer.leaderHint ?? '');
    return Number(answer.readIndex);
  }
}
