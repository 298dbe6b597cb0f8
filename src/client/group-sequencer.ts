/**
 * The order consume() runs messages in. Every message it holds is in a lane: a FIFO message in
 * the lane of its group, any other message in a lane of its own. A lane runs its messages one
 * after another in SequenceNumber order; lanes run side by side, and the consumer counts lanes
 * against its parallelism.
 *
 * A FIFO receive hands back a group's head together with its successors. Running them at once,
 * or running a successor while the head waits for its retry, would break the order the queue
 * promises. So when a message does not complete (its handler failed, its delete kept failing, or
 * its lease was lost while it waited), the lane's messages that have not started go back to the
 * queue unprocessed: the queue then delivers the group again from the message that did not
 * complete.
 *
 * Pure bookkeeping: running a message and sending messages back are the caller's.
 */

export interface SequencedMessage {
  /** The lane key: a FIFO message's group. undefined: a lane of its own. */
  readonly groupId: string | undefined;
  /** Order within the group. undefined: the order it was added in. */
  readonly sequenceNumber: bigint | undefined;
}

export interface GroupSequencerHooks<T> {
  /** Runs one message; resolves true when it completed and its group may go on. Never rejects. */
  run(message: T): Promise<boolean>;
  /** Sends back messages that will not run (never started). Never rejects. */
  release(messages: readonly T[]): Promise<void>;
  /** A lane ended: a slot of the consumer's parallelism is free. */
  laneEnded(): void;
}

interface Lane<T> {
  /** Not started yet, in the order they will run. */
  readonly waiting: T[];
}

export class GroupSequencer<T extends SequencedMessage> {
  private readonly lanes = new Map<string | number, Lane<T>>();
  /** Lanes and releases under way, which settled() waits for. */
  private readonly pending = new Set<Promise<void>>();
  private ungroupedLaneNumber = 0;
  private isStopped = false;

  constructor(private readonly hooks: GroupSequencerHooks<T>) {}

  /** Lanes holding messages, running or waiting: what counts against the consumer's parallelism. */
  get laneCount(): number {
    return this.lanes.size;
  }

  /** Adds received messages to their lanes; a lane that was not running starts. After stop(), they are released. */
  add(messages: readonly T[]): void {
    if (this.isStopped) {
      this.track(this.hooks.release(messages));
      return;
    }
    for (const message of messages) {
      const key = message.groupId ?? this.ungroupedLaneNumber++;
      const lane = this.lanes.get(key);
      if (lane !== undefined) {
        lane.waiting.push(message);
        lane.waiting.sort(bySequenceNumber);
      } else {
        const created: Lane<T> = { waiting: [message] };
        this.lanes.set(key, created);
        this.track(this.drive(key, created));
      }
    }
  }

  /**
   * Starts nothing more: every message not started is released at once (one call for all lanes);
   * running ones finish. Later add()s release what they are given.
   */
  stop(): void {
    if (this.isStopped) return;
    this.isStopped = true;
    const notStarted = [...this.lanes.values()].flatMap((lane) => lane.waiting.splice(0));
    if (notStarted.length > 0) this.track(this.hooks.release(notStarted));
  }

  /** Resolves when every lane has ended and every release has been answered. */
  async settled(): Promise<void> {
    while (this.pending.size > 0) await Promise.all(this.pending);
  }

  private async drive(key: string | number, lane: Lane<T>): Promise<void> {
    try {
      while (!this.isStopped) {
        const next = lane.waiting.shift();
        if (next === undefined) break;
        const isCompleted = await this.hooks.run(next);
        if (!isCompleted) {
          const notStarted = lane.waiting.splice(0);
          if (notStarted.length > 0) await this.hooks.release(notStarted);
        }
      }
    } finally {
      this.lanes.delete(key);
      this.hooks.laneEnded();
    }
  }

  private track(work: Promise<void>): void {
    this.pending.add(work);
    // The hooks never reject; if one did, settled() rejects with it (and so does consume()).
    const forget = () => void this.pending.delete(work);
    work.then(forget, forget);
  }
}

/** Ascending SequenceNumber; messages without one keep the order they came in (the sort is stable). */
function bySequenceNumber(a: SequencedMessage, b: SequencedMessage): number {
  if (a.sequenceNumber === undefined || b.sequenceNumber === undefined) return 0;
  return a.sequenceNumber < b.sequenceNumber ? -1 : a.sequenceNumber > b.sequenceNumber ? 1 : 0;
}
