/**
 * A min-priority queue for items that mostly arrive in order: a standard queue's messages join its
 * index in the order they were sent, and a receive's visibility deadlines are "now plus a timeout",
 * later with every receive. An item no earlier than the last one appended joins an ordered run at
 * its end, in O(1); any other goes to a heap. A pop takes the earlier of the two heads. In the
 * common case push and pop cost a comparison or two instead of the two per level of a heap of
 * tens of thousands (a consuming node spent about 2 % of its main thread in the heap's
 * comparisons, docs/BENCHMARKS.md).
 */
import { MinHeap } from './min-heap.js';

/** Popped slots at the run's front beyond which the run is compacted, when they are also half of it. */
const runCompactAfter = 1_024;

export class MostlyOrderedQueue<T> {
  /** Items in order from `runHead` (earlier slots are popped and cleared). */
  private run: Array<T | undefined> = [];
  private runHead = 0;
  private readonly heap: MinHeap<T>;

  constructor(private readonly isBefore: (a: T, b: T) => boolean) {
    this.heap = new MinHeap(isBefore);
  }

  get size(): number {
    return this.run.length - this.runHead + this.heap.size;
  }

  push(item: T): void {
    const { run } = this;
    const last = run[run.length - 1];
    if (this.runHead === run.length || !this.isBefore(item, last as T)) run.push(item);
    else this.heap.push(item);
  }

  peek(): T | undefined {
    const first = this.runFirst();
    const top = this.heap.peek();
    if (first === undefined) return top;
    return top !== undefined && this.isBefore(top, first) ? top : first;
  }

  pop(): T | undefined {
    const first = this.runFirst();
    const top = this.heap.peek();
    if (first === undefined || (top !== undefined && this.isBefore(top, first))) return this.heap.pop();
    const { run } = this;
    run[this.runHead] = undefined;
    this.runHead += 1;
    if (this.runHead === run.length) {
      run.length = 0;
      this.runHead = 0;
    } else if (this.runHead > runCompactAfter && this.runHead * 2 > run.length) {
      this.run = run.slice(this.runHead);
      this.runHead = 0;
    }
    return first;
  }

  clear(): void {
    this.run = [];
    this.runHead = 0;
    this.heap.clear();
  }

  private runFirst(): T | undefined {
    return this.runHead < this.run.length ? this.run[this.runHead] : undefined;
  }
}
