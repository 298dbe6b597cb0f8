import { describe, expect, it } from 'vitest';
import { raftqLimits } from '../../src/base/limits.js';
import { resolveConsumerOptions, type ConsumeOptions } from '../../src/client/consumer-options.js';
import { deadLetterCauseOf } from '../../src/client/dead-letter-cause-of.js';
import {
  ClientOptionsError,
  consume,
  createProducer,
  deadLetters,
  doNotRetry,
  isNotRetryable,
} from '../../src/client/index.js';
import { retryDelayMsFor, retryDelaySecondsFor } from '../../src/client/retry-delay.js';

/** What the library refuses or clamps before it sends anything, and the pure rules it applies. */

const base: ConsumeOptions = {
  queueUrl: 'http://127.0.0.1:1/000000000000/q',
  handler: () => {},
  handlerIsIdempotent: true,
  signal: new AbortController().signal,
};

function refusal(options: Partial<Record<keyof ConsumeOptions, unknown>>): ClientOptionsError {
  try {
    resolveConsumerOptions({ ...base, ...options } as ConsumeOptions);
  } catch (error) {
    if (error instanceof ClientOptionsError) return error;
    throw error;
  }
  throw new Error(`options ${JSON.stringify(options)} were accepted`);
}

describe('consume() options', () => {
  it('refuses a missing or false handlerIsIdempotent, synchronously, before anything is sent', () => {
    const { handlerIsIdempotent: _omitted, ...withoutPromise } = base;
    expect(() => consume(withoutPromise as ConsumeOptions)).toThrow(ClientOptionsError);
    expect(refusal({ handlerIsIdempotent: false }).option).toBe('handlerIsIdempotent');
    expect(refusal({ handlerIsIdempotent: 'yes' }).option).toBe('handlerIsIdempotent');
  });

  it('refuses a zero visibility timeout, which reads both as "redeliver at once" and as "never redeliver"', () => {
    const error = refusal({ visibilityTimeoutSeconds: 0 });
    expect(error.option).toBe('visibilityTimeoutSeconds');
    expect(error.message).toContain('never redeliver');
  });

  it('refuses a visibility timeout that is negative, fractional or past 12 hours', () => {
    for (const value of [-1, 1.5, 43_201, Number.NaN])
      expect(refusal({ visibilityTimeoutSeconds: value }).option).toBe('visibilityTimeoutSeconds');
    expect(resolveConsumerOptions({ ...base, visibilityTimeoutSeconds: 43_200 }).visibilityTimeoutSeconds).toBe(43_200);
  });

  it('leaves the visibility timeout to the queue when it is not given', () => {
    expect(resolveConsumerOptions(base).visibilityTimeoutSeconds).toBeUndefined();
  });

  it('clamps the harmless zeros: no retry delay, a constant delay, parallelism one', () => {
    const policy = resolveConsumerOptions({ ...base, retryDelayMs: 0, retryDelayMsMax: 0, parallelism: 0 });
    expect(policy.retryDelayMs).toBe(0);
    expect(policy.retryDelayMsMax).toBeUndefined();
    expect(policy.parallelism).toBe(1);
  });

  it('refuses a delay ceiling with no delay to grow from, or below the delay', () => {
    expect(refusal({ retryDelayMsMax: 5_000 }).option).toBe('retryDelayMsMax');
    expect(refusal({ retryDelayMs: 0, retryDelayMsMax: 5_000 }).option).toBe('retryDelayMsMax');
    expect(refusal({ retryDelayMs: 2_000, retryDelayMsMax: 1_000 }).option).toBe('retryDelayMsMax');
  });

  it('checks every bound up front', () => {
    expect(refusal({ retryDelayMs: -1 }).option).toBe('retryDelayMs');
    expect(refusal({ retryDelayMs: 43_200_001 }).option).toBe('retryDelayMs');
    expect(refusal({ retryDelayMs: 1_000, retryDelayMsMax: 43_200_001 }).option).toBe('retryDelayMsMax');
    expect(refusal({ parallelism: raftqLimits.consumerParallelismMax.value + 1 }).option).toBe('parallelism');
    expect(refusal({ parallelism: 2.5 }).option).toBe('parallelism');
    expect(refusal({ gracePeriodMs: -1 }).option).toBe('gracePeriodMs');
    expect(refusal({ handler: 'not a function' }).option).toBe('handler');
    expect(refusal({ queueUrl: '' }).option).toBe('queueUrl');
    expect(refusal({ signal: undefined }).option).toBe('signal');
  });

  it('refuses a producer linger out of bounds and a dead-letter listing past its maximum', async () => {
    expect(() => createProducer({ queueUrl: base.queueUrl, lingerMs: -1 })).toThrow(ClientOptionsError);
    expect(() =>
      createProducer({ queueUrl: base.queueUrl, lingerMs: raftqLimits.producerLingerMsMax.value + 1 }),
    ).toThrow(ClientOptionsError);
    await expect(
      deadLetters({ queueUrl: base.queueUrl, max: raftqLimits.deadLettersListedMax.value + 1 }),
    ).rejects.toBeInstanceOf(ClientOptionsError);
  });
});

describe('retry delays', () => {
  it('are constant without a ceiling', () => {
    expect([1, 2, 3, 10].map((n) => retryDelayMsFor({ retryDelayMs: 1_500 }, n))).toEqual([1_500, 1_500, 1_500, 1_500]);
  });

  it('double from retryDelayMs with each delivery and stop at the ceiling', () => {
    const policy = { retryDelayMs: 1_000, retryDelayMsMax: 5_000 };
    expect([1, 2, 3, 4, 5, 100].map((n) => retryDelayMsFor(policy, n))).toEqual([
      1_000, 2_000, 4_000, 5_000, 5_000, 5_000,
    ]);
  });

  it('become whole seconds of visibility, rounded up, never past 12 hours', () => {
    expect(retryDelaySecondsFor({ retryDelayMs: 0 }, 1)).toBe(0);
    expect(retryDelaySecondsFor({ retryDelayMs: 1 }, 1)).toBe(1);
    expect(retryDelaySecondsFor({ retryDelayMs: 1_001 }, 1)).toBe(2);
    expect(retryDelaySecondsFor({ retryDelayMs: 43_200_000, retryDelayMsMax: 43_200_000 }, 9)).toBe(43_200);
  });
});

describe('doNotRetry and the dead-letter cause', () => {
  it('marks an error, and the mark is found through cause links', () => {
    const marked = doNotRetry(new TypeError('bad payload'));
    expect(isNotRetryable(marked)).toBe(true);
    expect(isNotRetryable(new Error('wrapped', { cause: marked }))).toBe(true);
    expect(isNotRetryable(new Error('plain'))).toBe(false);
    expect(isNotRetryable('a string')).toBe(false);
  });

  it("records the wrapped error's name, code and message, never its stack or its own causes", () => {
    const secret = new Error('password=hunter2');
    const error = Object.assign(new RangeError('amount out of range', { cause: secret }), { code: 'E_AMOUNT' });
    const cause = deadLetterCauseOf(doNotRetry(error));
    expect(cause).toEqual({ name: 'RangeError', code: 'E_AMOUNT', message: 'amount out of range' });
    expect(JSON.stringify(cause)).not.toContain('hunter2');
    expect(JSON.stringify(cause)).not.toContain('at ');
  });

  it("prefers an error's publicMessage to its message", () => {
    const error = Object.assign(new Error('row 17 of customers (alice@example.com) failed'), {
      publicMessage: 'a customer row failed',
    });
    expect(deadLetterCauseOf(error).message).toBe('a customer row failed');
  });

  it('describes a thrown non-Error by its type only, and doNotRetry() of nothing as NotRetryable', () => {
    expect(deadLetterCauseOf({ card: '4111' })).toEqual({
      name: 'NonErrorThrown',
      message: 'The handler threw a value of type object instead of an Error',
    });
    expect(deadLetterCauseOf(doNotRetry(undefined)).name).toBe('NotRetryable');
  });

  it('truncates what exceeds the bounds the queue accepts', () => {
    const cause = deadLetterCauseOf(new Error('x'.repeat(5_000)));
    expect(cause.message).toHaveLength(raftqLimits.deadLetterCauseMessageCharsMax.value);
  });
});
