import { describe, expect, it } from 'vitest';
import { nemesisFamilies } from '../../jepsen-like/nemesis/fault-spec.js';
import { defaultRunOptions, parseRunOptions, RunUsageError } from '../../jepsen-like/runner/run-options.js';

describe('runner options', () => {
  it('reads the documented flags', () => {
    const o = parseRunOptions(
      [
        '--time',
        '30',
        '--nemesis',
        'partition,kill',
        '--workload',
        'fifo',
        '--seed',
        '9',
        '--nodes',
        '5',
        '--ops-min',
        '21',
      ],
      () => 1,
    );
    expect(o).toMatchObject({
      timeSeconds: 30,
      opsPerWorkloadMin: 21,
      nemesis: ['partition', 'kill'],
      workloads: ['fifo'],
      seed: 9,
      nodes: 5,
    });
  });

  it('draws a seed when none is given, and takes every family for --nemesis all', () => {
    const o = parseRunOptions(['--nemesis', 'all'], () => 1234);
    expect(o.seed).toBe(1234);
    expect(o.nemesis).toEqual(nemesisFamilies);
    expect(o.workloads).toEqual(defaultRunOptions.workloads);
  });

  it('refuses unknown families, workloads and cluster sizes with a reason', () => {
    expect(() => parseRunOptions(['--nemesis', 'meteor'], () => 1)).toThrow(RunUsageError);
    expect(() => parseRunOptions(['--workload', 'kafka'], () => 1)).toThrow(/unknown "kafka"/);
    expect(() => parseRunOptions(['--nodes', '4'], () => 1)).toThrow(/3 or 5/);
    expect(() => parseRunOptions(['--fault-min', '9', '--fault-max', '2'], () => 1)).toThrow(/fault-min/);
  });

  it('takes a failpoint, no nemesis at all, and how often faults overlap', () => {
    const o = parseRunOptions(
      ['--failpoint', 'drop-acked-send', '--nemesis', 'none', '--overlap-one-in', '2'],
      () => 1,
    );
    expect(o).toMatchObject({ failpoint: 'drop-acked-send', nemesis: [], overlapOneIn: 2 });
    expect(parseRunOptions([], () => 1).failpoint).toBeUndefined();
    expect(() => parseRunOptions(['--failpoint', 'lose-all'], () => 1)).toThrow(/unknown "lose-all"/);
  });
});
