import { describe, expect, it } from 'vitest';
import { BenchUsageError, parseBenchOptions, quickTiming } from '../../bench/bench-options.js';
import { cellKey, expandMatrix, fullMatrix, quickMatrix } from '../../bench/cell-spec.js';
import { systemCatalog } from '../../bench/systems/system-catalog.js';

describe('bench options and the matrix', () => {
  it('runs every system and the full matrix by default', () => {
    const options = parseBenchOptions([], '/r');
    expect(options.systems).toEqual(systemCatalog.map((s) => s.id));
    expect(options.matrix).toEqual(fullMatrix);
    expect(options.resultsDir).toBe('/r');
  });

  it('--quick picks the reduced matrix and timing; --systems selects', () => {
    const options = parseBenchOptions(['--quick', '--systems', 'raftq-1,etcd'], '/r');
    expect(options.matrix).toEqual(quickMatrix);
    expect(options.timing).toEqual(quickTiming);
    expect(options.systems).toEqual(['raftq-1', 'etcd']);
    expect(parseBenchOptions(['--systems=nats'], '/r').systems).toEqual(['nats']);
  });

  it('refuses an unknown system or option with a usage error', () => {
    expect(() => parseBenchOptions(['--systems', 'kafka'], '/r')).toThrow(BenchUsageError);
    expect(() => parseBenchOptions(['--fast'], '/r')).toThrow(/unknown option --fast/);
    expect(() => parseBenchOptions(['--concurrency', '0'], '/r')).toThrow(/positive integers/);
  });

  it('the full matrix has every workload at 100 B, 1 KiB and 64 KiB with batches of 1 and 10, each cell once', () => {
    const cells = expandMatrix(fullMatrix);
    expect(new Set(cells.map((c) => c.messageBytes))).toEqual(new Set([100, 1024, 65_536]));
    expect(new Set(cells.map((c) => c.batchSize))).toEqual(new Set([1, 10]));
    expect(new Set(cells.map((c) => c.workload))).toEqual(new Set(['produce', 'consume', 'produce-consume']));
    expect(new Set(cells.map(cellKey)).size).toBe(cells.length);
    expect(cells).toHaveLength(3 * 3 * 2 * 3);
  });

  it('--concurrency and --sizes override the matrix axes', () => {
    const options = parseBenchOptions(['--quick', '--concurrency', '1,8', '--sizes', '100'], '/r');
    const cells = expandMatrix(options.matrix);
    expect(new Set(cells.map((c) => c.concurrency))).toEqual(new Set([1, 8]));
    expect(cells.every((c) => c.messageBytes === 100)).toBe(true);
  });

  it('every system states its durability, and the NATS one says it is weaker', () => {
    for (const system of systemCatalog) expect(system.durability.length).toBeGreaterThan(10);
    expect(systemCatalog.find((s) => s.id === 'nats')?.durability).toMatch(
      /weaker durability: 2\.9 syncs about once a minute/,
    );
  });
});

describe('the quick matrix', () => {
  it('keeps batch 1 for produce only, and --batch-sizes brings the others back', () => {
    const quick = expandMatrix(parseBenchOptions(['--quick'], '/r').matrix).map(cellKey);
    expect(quick).toEqual([
      'produce-1KiB-b1-c32',
      'produce-1KiB-b10-c32',
      'consume-1KiB-b10-c32',
      'produce-consume-1KiB-b10-c32',
    ]);
    const withBatch1 = expandMatrix(parseBenchOptions(['--quick', '--batch-sizes', '1'], '/r').matrix).map(cellKey);
    expect(withBatch1).toEqual(['produce-1KiB-b1-c32', 'consume-1KiB-b1-c32', 'produce-consume-1KiB-b1-c32']);
  });
});
