import { describe, expect, it } from 'vitest';
import { parseFixedRateOptions } from '../../bench/fixed-rate-options.js';

describe('bench:fixed-rate options', () => {
  it('default to three nodes producing 600 msgs/s one at a time, clients spread over every node', () => {
    const options = parseFixedRateOptions([]);
    expect(options).toMatchObject({ nodes: 3, workload: 'produce', ratePerSecond: 600, batchSize: 1, onlyNode: null });
  });

  it('take a rate, a batch, a workload and a node, the leader named as node 0', () => {
    const options = parseFixedRateOptions([
      '--nodes',
      '1',
      '--rate',
      '800',
      '--batch',
      '10',
      '--workload',
      'produce-consume',
      '--only-node',
      'leader',
    ]);
    expect(options).toMatchObject({ nodes: 1, ratePerSecond: 800, batchSize: 10, workload: 'produce-consume' });
    expect(options.onlyNode).toBe(0);
    expect(parseFixedRateOptions(['--only-node', '2']).onlyNode).toBe(2);
  });

  it('refuse what they cannot run', () => {
    expect(() => parseFixedRateOptions(['--rate', '0'])).toThrow(/positive integer/);
    expect(() => parseFixedRateOptions(['--batch', '11'])).toThrow(/at most 10/);
    expect(() => parseFixedRateOptions(['--workload', 'consume'])).toThrow(/unknown workload/);
    expect(() => parseFixedRateOptions(['--only-node', 'follower'])).toThrow(/positive integer/);
    expect(() => parseFixedRateOptions(['--speed', '3'])).toThrow(/unknown option/);
  });
});
