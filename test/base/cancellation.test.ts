import { describe, expect, it } from 'vitest';
import { LazyCancellation } from '../../src/base/cancellation.js';

describe('LazyCancellation', () => {
  it('aborts a signal made before the abort, with its reason, once', () => {
    const cancellation = new LazyCancellation();
    const signal = cancellation.signal;
    const heard: unknown[] = [];
    signal.addEventListener('abort', () => heard.push(signal.reason));
    expect(signal.aborted).toBe(false);
    const reason = new Error('client went away');
    cancellation.abort(reason);
    cancellation.abort(new Error('deadline'));
    expect(signal.aborted).toBe(true);
    expect(heard).toEqual([reason]);
    expect(cancellation.signal).toBe(signal);
  });

  it('makes a signal asked for after the abort already aborted, with the first reason', () => {
    const cancellation = new LazyCancellation();
    const reason = new Error('deadline');
    cancellation.abort(reason);
    cancellation.abort(new Error('server closing'));
    expect(cancellation.signal.aborted).toBe(true);
    expect(cancellation.signal.reason).toBe(reason);
  });
});
