import { consume, type ConsumeOptions } from '../../../src/client/index.js';

/** A consume() loop a test started and will stop. */
export interface RunningConsumer {
  /** consume()'s own promise: it resolves once the consumer has stopped and drained. */
  readonly finished: Promise<void>;
  /** Aborts the consumer's signal without waiting, for a test that looks at the draining. */
  abort(): void;
  /** Aborts the consumer's signal and waits until consume() resolves. */
  stop(): Promise<void>;
}

/**
 * Starts consume() with its own abort signal. Every handler in these tests may run twice for one
 * message, so it is declared idempotent here once rather than in each test.
 */
export function startConsumer(options: Omit<ConsumeOptions, 'signal' | 'handlerIsIdempotent'>): RunningConsumer {
  const controller = new AbortController();
  const finished = consume({ ...options, signal: controller.signal, handlerIsIdempotent: true });
  return {
    finished,
    abort: () => controller.abort(),
    stop: async () => {
      controller.abort();
      await finished;
    },
  };
}

/** Repeats a read until it returns something. Each read is a round trip to the node (a receive long-polls), so the loop yields between tries; the caller bounds it with within(). */
export async function pollUntilNonEmpty<T>(read: () => Promise<T[]>): Promise<T[]> {
  for (;;) {
    const items = await read();
    if (items.length > 0) return items;
  }
}
