import { describe, expect, it } from 'vitest';
import { runSeed } from './run-seeds.js';

describe('the liveness check', () => {
  it('passes when the healed cluster settles within its bound', () => {
    expect(runSeed(2, { isKeepingTrace: false }).violation).toBeNull();
  });

  it('fails a run whose healed cluster cannot settle within its bound', () => {
    const result = runSeed(2, { isKeepingTrace: false, overrides: { livenessTicksMax: 1 } });
    expect(result.violation?.invariant).toBe('liveness');
    expect(result.violation?.message).toMatch(/1 ticks after healing/);
  });
});
