import { assert } from '../base/assert.js';

/**
 * The append messages in flight to one follower, oldest first, each remembered by the last index
 * it carried and its size. The leader stops sending when either the count or the bytes reach
 * their limit, and frees slots as acknowledgements arrive.
 */
export class Inflights {
  private readonly lastIndexes: number[] = [];
  private readonly sizesBytes: number[] = [];
  private bytesInFlight = 0;

  constructor(
    readonly messagesMax: number,
    readonly bytesMax: number,
  ) {}

  add(lastIndex: number, sizeBytes: number): void {
    assert(!this.isFull(), 'inflights: add while full');
    const previous = this.lastIndexes[this.lastIndexes.length - 1];
    assert(previous === undefined || lastIndex > previous, () => `inflights: ${lastIndex} not after ${previous}`);
    this.lastIndexes.push(lastIndex);
    this.sizesBytes.push(sizeBytes);
    this.bytesInFlight += sizeBytes;
  }

  /** Frees every message whose last index is <= `index` (the follower acknowledged it). */
  freeLE(index: number): void {
    let n = 0;
    while (n < this.lastIndexes.length && (this.lastIndexes[n] as number) <= index) {
      this.bytesInFlight -= this.sizesBytes[n] as number;
      n++;
    }
    if (n === 0) return;
    this.lastIndexes.splice(0, n);
    this.sizesBytes.splice(0, n);
  }

  /** Frees the oldest message: a heartbeat response proved the follower alive, so probe onward. */
  freeFirstOne(): void {
    const first = this.lastIndexes[0];
    if (first !== undefined) this.freeLE(first);
  }

  isFull(): boolean {
    return this.lastIndexes.length >= this.messagesMax || this.bytesInFlight >= this.bytesMax;
  }

  count(): number {
    return this.lastIndexes.length;
  }

  bytes(): number {
    return this.bytesInFlight;
  }

  reset(): void {
    this.lastIndexes.length = 0;
    this.sizesBytes.length = 0;
    this.bytesInFlight = 0;
  }
}
