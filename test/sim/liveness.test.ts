import { describe, expect, it } from 'vitest';
import { runSeed } from './run-seeds.js';

describe('the liveness check', () => {
  it('passes when the healed cluster settles within its bound', () => {
    expect(runSeed(2, { isKeepingTrace: false }).violation).toBeNull();
  });

  it('fails a run whose healed cluster cannot settle within its bound (here: no tick at all)', () => {
    // Fresh proposals are made only once a leader is known after healing, so no cluster can
    // have them applied everywhere before a single tick has passed.
    const result = runSeed(2, { isKeepingTrace: false, overrides: { livenessTicksMax: 0 } });
    expect(result.violation?.invariant).toBe('liveness');
    expect(result.violation?.message).toMatch(/0 ticks after healing/);
  });
});
