import { describe, expect, it } from 'vitest';
import {
  DocMarkersMissingError,
  generatedEnd,
  generatedStart,
  renderGeneratedSection,
  replaceGeneratedSection,
} from '../../bench/report/benchmarks-doc.js';
import { computeRatios } from '../../bench/report/ratio-table.js';
import { benchResult, measurement, produce1k } from './fixtures.js';

describe('the generated block of docs/BENCHMARKS.md', () => {
  const doc = [
    '# Benchmarks',
    '',
    '## Other section',
    'kept',
    '',
    '## Side by side',
    'prose',
    generatedStart,
    'old table',
    generatedEnd,
    'after',
    '',
  ].join('\n');

  it('replaces only what lies between the markers', () => {
    const updated = replaceGeneratedSection(doc, 'new table');
    expect(updated).toContain('## Other section\nkept');
    expect(updated).toContain(`prose\n${generatedStart}\nnew table\n${generatedEnd}\nafter`);
    expect(updated).not.toContain('old table');
    expect(replaceGeneratedSection(updated, 'new table')).toBe(updated);
  });

  it('refuses a document without the markers rather than appending somewhere', () => {
    expect(() => replaceGeneratedSection('# Benchmarks\n', 'x')).toThrow(DocMarkersMissingError);
  });

  it('the generated block names the systems, their durability, skips with reasons, and the ratios', () => {
    const cells = [measurement('raftq-3', produce1k, 6_000), measurement('rabbitmq', produce1k, 4_000)];
    const text = renderGeneratedSection(
      { ...benchResult(cells), ratios: computeRatios(cells, ['raftq-3']) },
      'bench/results/x.json',
    );
    expect(text).toContain('bench/results/x.json');
    expect(text).toContain('skipped: apt-get install etcd-server failed');
    expect(text).toContain('| produce-1KiB-b10-c32 | raftq-3 | 1.50× |');
    expect(text).toContain('fsync on a majority');
    expect(text).toContain('load average ran from 1.5 to 1.5');
  });
});
