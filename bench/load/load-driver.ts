// What a worker process needs from a protocol: send a batch, receive-and-acknowledge a batch.
// One driver per worker; `slot` is the index of the client slot making the call among the cell's
// producers (for produce) or consumers (for consume), across all workers. Each slot has at most one
// operation in flight.
import type { LoadTarget, QueueRef } from './load-target.js';

export interface ConsumedBatch {
  readonly count: number;
  /** Send times (µs since the epoch) of the messages that carried one. */
  readonly sentAtMicros: readonly number[];
}

export interface DriverOptions {
  readonly target: LoadTarget;
  readonly queue: QueueRef;
  readonly messageBytes: number;
  readonly batchSize: number;
  readonly producerSlots: readonly number[];
  readonly consumerSlots: readonly number[];
  /** Key partitions of a protocol without a queue (etcd): one per consumer slot of the cell. */
  readonly partitions: number;
  /** Long-poll wait of an empty receive, where the protocol has one. */
  readonly receiveWaitSeconds: number;
}

export interface LoadDriver {
  open(): Promise<void>;
  /** Sends one request of batchSize messages; resolves with the number sent, throws on failure. */
  produce(slot: number): Promise<number>;
  /** One receive of up to batchSize messages and the acknowledgement (delete) of what it got. */
  consume(slot: number): Promise<ConsumedBatch>;
  /** Ends any consume() that waits for messages, so a stopping worker does not wait out a long poll. */
  interrupt(): void;
  close(): Promise<void>;
}

export class LoadOperationError extends Error {
  constructor(
    readonly operation: string,
    readonly detail: string,
    options?: { cause?: unknown },
  ) {
    super(`${operation}: ${detail}`, options);
    this.name = 'LoadOperationError';
  }
}
