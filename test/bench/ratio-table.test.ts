import { describe, expect, it } from 'vitest';
import {
  computeRatios,
  formatRatio,
  formatRatioMarkdown,
  formatRatioTable,
  geometricMeanRatio,
} from '../../bench/report/ratio-table.js';
import { consume1k, measurement, produce1k } from './fixtures.js';

describe('the raftq ÷ peer ratio table', () => {
  const cells = [
    measurement('raftq-1', produce1k, 9_000),
    measurement('raftq-3', produce1k, 6_000),
    measurement('rabbitmq', produce1k, 4_000),
    measurement('etcd', produce1k, 2_000),
    measurement('raftq-3', consume1k, 3_000),
    measurement('rabbitmq', consume1k, 6_000),
  ];

  it('divides each raftq configuration by each peer, cell by cell', () => {
    const rows = computeRatios(cells, ['raftq-1', 'raftq-3']);
    const ratio = (cellKey: string, subject: string, peer: string): number | null | undefined =>
      rows.find((r) => r.cellKey === cellKey && r.subject === subject && r.peer === peer)?.ratio;
    expect(ratio('produce-1KiB-b10-c32', 'raftq-3', 'rabbitmq')).toBeCloseTo(1.5);
    expect(ratio('produce-1KiB-b10-c32', 'raftq-3', 'etcd')).toBeCloseTo(3);
    expect(ratio('produce-1KiB-b10-c32', 'raftq-1', 'rabbitmq')).toBeCloseTo(2.25);
    expect(ratio('consume-1KiB-b10-c32', 'raftq-3', 'rabbitmq')).toBeCloseTo(0.5);
  });

  it('never divides raftq by raftq, and has no row where either side has no measurement', () => {
    const rows = computeRatios(cells, ['raftq-1', 'raftq-3']);
    expect(rows.some((r) => r.peer.startsWith('raftq'))).toBe(false);
    // raftq-1 has no consume measurement, etcd none of consume: no such rows.
    expect(rows.some((r) => r.cellKey.startsWith('consume') && (r.subject === 'raftq-1' || r.peer === 'etcd'))).toBe(
      false,
    );
    expect(rows).toHaveLength(5);
  });

  it('a failed side gives no ratio rather than zero or infinity', () => {
    const rows = computeRatios(
      [
        measurement('raftq-3', produce1k, 5_000),
        measurement('rabbitmq', produce1k, 0, { status: 'failed', reason: 'did not start' }),
      ],
      ['raftq-3'],
    );
    expect(rows).toHaveLength(1);
    expect(rows[0]?.ratio).toBeNull();
    expect(formatRatioTable(rows)).toContain('—');
  });

  it('carries the client-bound mark of either side into the row and the table', () => {
    const rows = computeRatios(
      [
        measurement('raftq-1', produce1k, 20_000, { isClientBound: true, clientCpuShare: 0.95 }),
        measurement('noop-http', produce1k, 30_000),
      ],
      ['raftq-1'],
    );
    expect(rows[0]?.isClientBound).toBe(true);
    expect(formatRatioTable(rows)).toContain('0.667×*');
  });

  it('sums a pair up as the geometric mean of its ratios', () => {
    const rows = computeRatios(
      [
        measurement('raftq-3', produce1k, 8_000),
        measurement('rabbitmq', produce1k, 2_000),
        measurement('raftq-3', consume1k, 1_000),
        measurement('rabbitmq', consume1k, 4_000),
      ],
      ['raftq-3'],
    );
    expect(geometricMeanRatio(rows)).toBeCloseTo(1); // √(4 × 0.25)
    expect(geometricMeanRatio([])).toBeNull();
  });

  it('prints a column per peer and a row per cell and raftq configuration, in text and Markdown', () => {
    const rows = computeRatios(cells, ['raftq-1', 'raftq-3']);
    const text = formatRatioTable(rows).split('\n');
    expect(text[0]).toMatch(/cell\s+raftq\s+÷ rabbitmq\s+÷ etcd/);
    expect(text.find((l) => l.startsWith('produce-1KiB-b10-c32') && l.includes('raftq-3'))).toMatch(/1\.50×\s+3\.00×/);
    const markdown = formatRatioMarkdown(rows);
    expect(markdown).toContain('| produce-1KiB-b10-c32 | raftq-3 | 1.50× | 3.00× |');
    expect(markdown.split('\n')[1]).toBe('| --- | --- | ---: | ---: |');
  });

  it('formats ratios with fewer digits as they grow', () => {
    expect(formatRatio(0.12345)).toBe('0.123×');
    expect(formatRatio(1.2345)).toBe('1.23×');
    expect(formatRatio(12.345)).toBe('12×');
    expect(formatRatio(null)).toBe('—');
  });
});
