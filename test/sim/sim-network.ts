import type { Prng } from '../../src/base/prng.js';
import type { NodeId, RaftMessage } from '../../src/raft/types.js';
import { MessageType } from '../../src/raft/types.js';
import { NetworkPartition } from './network-partition.js';

/** Seeded misbehaviour of the network; probabilities are per message sent. */
export interface NetworkFaults {
  readonly dropProbability: number;
  readonly duplicateProbability: number;
  /** Chance that a message waits for 1..delayTicksMax ticks instead of being deliverable at once. */
  readonly delayProbability: number;
  readonly delayTicksMax: number;
  /** Chance that the next delivery is a random deliverable message rather than the oldest. */
  readonly reorderProbability: number;
}

export const reliableNetwork: NetworkFaults = {
  dropProbability: 0,
  duplicateProbability: 0,
  delayProbability: 0,
  delayTicksMax: 1,
  reorderProbability: 0,
};

export interface InFlightMessage {
  /** Order of sending, so that "the oldest" is well defined. */
  readonly sequence: number;
  readonly message: RaftMessage;
  readonly deliverAtTick: number;
}

export type SendOutcome = 'sent' | 'dropped' | 'duplicated';

/**
 * The simulated network: messages wait in flight until their delivery tick, then one at a time
 * are handed to the simulation, which steps them into the receiving node. A partition is checked
 * at delivery, so that messages already in flight when a link is cut are lost with it.
 */
export class SimNetwork {
  /** Messages whose delivery tick has come, oldest first. */
  private deliverable: InFlightMessage[] = [];
  /** Messages still delayed, in no particular order. */
  private delayed: InFlightMessage[] = [];
  private nextSequence = 0;
  private nowTick = 0;
  partition: NetworkPartition = NetworkPartition.none();

  constructor(
    private readonly prng: Prng,
    public faults: NetworkFaults,
  ) {}

  send(message: RaftMessage): SendOutcome {
    freezeMessage(message);
    // A snapshot travels over its own stream whose failure the transport reports to the leader
    // (reportSnapshot); a silent drop would leave the leader waiting forever, which no real
    // transport does. Snapshots are lost only to partitions and crashes, which are reported.
    const isDroppable = message.type !== MessageType.Snap;
    if (isDroppable && this.prng.nextFloat() < this.faults.dropProbability) return 'dropped';
    this.enqueue(message);
    if (this.prng.nextFloat() < this.faults.duplicateProbability) {
      this.enqueue(message);
      return 'duplicated';
    }
    return 'sent';
  }

  private enqueue(message: RaftMessage): void {
    const isDelayed = this.prng.nextFloat() < this.faults.delayProbability;
    const delayTicks = isDelayed ? 1 + this.prng.intBelow(this.faults.delayTicksMax) : 0;
    const inFlight = { sequence: this.nextSequence++, message, deliverAtTick: this.nowTick + delayTicks };
    if (delayTicks === 0) this.deliverable.push(inFlight);
    else this.delayed.push(inFlight);
  }

  /** Advances the network clock; messages whose delay has passed become deliverable. */
  tick(): void {
    this.nowTick += 1;
    const stillDelayed: InFlightMessage[] = [];
    const due: InFlightMessage[] = [];
    for (const m of this.delayed) (m.deliverAtTick <= this.nowTick ? due : stillDelayed).push(m);
    this.delayed = stillDelayed;
    if (due.length === 0) return;
    due.sort((a, b) => a.sequence - b.sequence);
    this.deliverable = mergeBySequence(this.deliverable, due);
  }

  get deliverableCount(): number {
    return this.deliverable.length;
  }

  get inFlightCount(): number {
    return this.deliverable.length + this.delayed.length;
  }

  /** Deliverable messages whose receiver is listening (a paused process reads nothing). */
  deliverableCountTo(isListening: (to: NodeId) => boolean): number {
    let count = 0;
    for (const m of this.deliverable) if (isListening(m.message.to)) count += 1;
    return count;
  }

  /**
   * Removes and returns the next message to deliver to a listening receiver: the oldest, or a
   * random one on reorder. Messages to a receiver that is not listening wait, in order.
   */
  takeNext(isListening: (to: NodeId) => boolean = () => true): { message: RaftMessage; isLinkUp: boolean } | null {
    const candidates: number[] = [];
    for (let i = 0; i < this.deliverable.length; i++)
      if (isListening((this.deliverable[i] as InFlightMessage).message.to)) candidates.push(i);
    if (candidates.length === 0) return null;
    const isReordered = candidates.length > 1 && this.prng.nextFloat() < this.faults.reorderProbability;
    const index = candidates[isReordered ? this.prng.intBelow(candidates.length) : 0] as number;
    const [taken] = this.deliverable.splice(index, 1);
    if (taken === undefined) return null;
    const { message } = taken;
    return { message, isLinkUp: this.partition.isLinkUp(message.from, message.to) };
  }

  /** Every message in flight, delayed or not: what a check of messages on the wire looks at. */
  allInFlight(): readonly InFlightMessage[] {
    return [...this.deliverable, ...this.delayed];
  }
}

function mergeBySequence(a: InFlightMessage[], b: InFlightMessage[]): InFlightMessage[] {
  const out: InFlightMessage[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length || j < b.length) {
    const x = a[i];
    const y = b[j];
    if (y === undefined || (x !== undefined && x.sequence < y.sequence)) {
      out.push(x as InFlightMessage);
      i++;
    } else {
      out.push(y);
      j++;
    }
  }
  return out;
}

/**
 * Messages travel by reference, not serialized as over gRPC, so a sender that changed a message
 * (or an entry in it) after sending would change what the receiver sees. Freezing them makes
 * such a change throw instead. Payload bytes cannot be frozen and are left as they are.
 */
function freezeMessage(message: RaftMessage): void {
  if (Object.isFrozen(message)) return;
  for (const entry of message.entries) Object.freeze(entry);
  Object.freeze(message.entries);
  if (message.snapshot !== null) {
    Object.freeze(message.snapshot.meta);
    Object.freeze(message.snapshot);
  }
  Object.freeze(message);
}
