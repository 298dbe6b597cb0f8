import { describe, expect, it } from 'vitest';
import { BenchUsageError } from '../../bench/bench-options.js';
import {
  parseSqsBenchOptions,
  sqsFullConcurrencies,
  sqsQuickConcurrencies,
  sqsQuickTiming,
} from '../../bench/sqs/sqs-bench-options.js';
import {
  formatSqsMarkdown,
  formatSqsTable,
  renderSqsCharts,
  renderSqsSection,
  replaceSqsSection,
  requestsPerSecond,
  sqsGeneratedEnd,
  sqsGeneratedStart,
} from '../../bench/sqs/sqs-report.js';
import { DocMarkersMissingError } from '../../bench/report/generated-block.js';
import { cellOf, sqsWorkloadNames, workloadOfCell } from '../../bench/sqs/sqs-workloads.js';
import { benchResult, measurement } from './fixtures.js';
import { xmlProblems } from './xml-well-formed.js';

describe('npm run bench:sqs options', () => {
  it('runs every workload on one node and then three, at the full concurrencies, by default', () => {
    const options = parseSqsBenchOptions([], '/results');
    expect(options.nodeCounts).toEqual([1, 3]);
    expect(options.workloads).toEqual([...sqsWorkloadNames]);
    expect(options.concurrencies).toEqual([...sqsFullConcurrencies]);
    expect(options.messageBytes).toBe(1024);
    expect(options.resultsDir).toBe('/results');
    expect(options.isWritingDocs).toBe(false);
  });

  it('--quick shortens the windows and the concurrency list; explicit flags win', () => {
    const quick = parseSqsBenchOptions(['--quick'], '/r');
    expect(quick.timing).toBe(sqsQuickTiming);
    expect(quick.concurrencies).toEqual([...sqsQuickConcurrencies]);
    const narrowed = parseSqsBenchOptions(
      ['--quick', '--nodes=3', '--workloads', 'send', '--concurrency', '4,16', '--size', '100', '--write-docs'],
      '/r',
    );
    expect(narrowed).toMatchObject({
      nodeCounts: [3],
      workloads: ['send'],
      concurrencies: [4, 16],
      messageBytes: 100,
      isWritingDocs: true,
    });
  });

  it('refuses cluster sizes, workloads and numbers it cannot run', () => {
    expect(() => parseSqsBenchOptions(['--nodes', '2'], '/r')).toThrow(BenchUsageError);
    expect(() => parseSqsBenchOptions(['--workloads', 'purge'], '/r')).toThrow(/unknown workload/);
    expect(() => parseSqsBenchOptions(['--concurrency', '0'], '/r')).toThrow(/positive integers/);
    expect(() => parseSqsBenchOptions(['--size'], '/r')).toThrow(/needs a value/);
    expect(() => parseSqsBenchOptions(['--fast'], '/r')).toThrow(/unknown option/);
  });
});

describe('the SQS workloads', () => {
  it('map to cells of the shared load generator and back', () => {
    expect(cellOf('send', 1024, 8)).toEqual({ workload: 'produce', messageBytes: 1024, batchSize: 1, concurrency: 8 });
    expect(cellOf('send-batch', 1024, 8)).toEqual({
      workload: 'produce',
      messageBytes: 1024,
      batchSize: 10,
      concurrency: 8,
    });
    expect(cellOf('receive-delete', 1024, 8)).toEqual({
      workload: 'consume',
      messageBytes: 1024,
      batchSize: 10,
      concurrency: 8,
    });
    for (const name of sqsWorkloadNames) expect(workloadOfCell(cellOf(name, 100, 1))?.name).toBe(name);
    expect(
      workloadOfCell({ workload: 'produce-consume', messageBytes: 100, batchSize: 10, concurrency: 1 }),
    ).toBeUndefined();
  });
});

describe('the SQS bench report', () => {
  const send = measurement('raftq-1', cellOf('send', 1024, 32), 800);
  const receive = measurement('raftq-3', cellOf('receive-delete', 1024, 32), 400, {
    clientCpuShare: 0.9,
    isClientBound: true,
  });
  const failed = measurement('raftq-3', cellOf('send', 1024, 1), 0, {
    status: 'failed',
    reason: 'prefill stored nothing',
  });

  it('counts requests: one per send, two per receive-and-delete round', () => {
    // The fixture measures 100 operations in a 4 s window.
    expect(requestsPerSecond(send)).toBe(25);
    expect(requestsPerSecond(receive)).toBe(50);
  });

  it('puts the client CPU beside every figure and marks a client-bound one', () => {
    const table = formatSqsTable([send, receive, failed]);
    expect(table).toMatch(/1 +send +1KiB +32 +800 +25 +1\.00 +5\.00 .* 13%/);
    expect(table).toContain('90% bound');
    expect(table).toContain('prefill stored nothing');
    expect(formatSqsMarkdown([send])).toContain('| 1 | send | 1KiB | 32 | 800 | 25 | 1.00 | 5.00 |');
  });

  it('draws well-formed charts with a line per cluster size and workload', () => {
    const { throughputSvg, latencySvg } = renderSqsCharts([
      send,
      measurement('raftq-1', cellOf('send', 1024, 1), 300),
      receive,
    ]);
    expect(xmlProblems(throughputSvg)).toEqual([]);
    expect(xmlProblems(latencySvg)).toEqual([]);
    expect(throughputSvg).toContain('raftq-1 send');
    expect(throughputSvg).toContain('raftq-3 receive-delete');
    expect(throughputSvg.match(/<path /g)?.length).toBe(2);
  });

  it('replaces only its own block of docs/BENCHMARKS.md, and refuses a document without it', () => {
    const doc = [
      '# Benchmarks',
      '## Side by side',
      '<!-- side-by-side:generated:start -->',
      'theirs',
      '<!-- side-by-side:generated:end -->',
      '## SQS',
      sqsGeneratedStart,
      'old',
      sqsGeneratedEnd,
      'after',
      '',
    ].join('\n');
    const section = renderSqsSection(benchResult([send]), 'bench/results/sqs-x.json', 'npm run bench:sqs -- --quick');
    const updated = replaceSqsSection(doc, section, 'docs/BENCHMARKS.md');
    expect(updated).toContain('theirs');
    expect(updated).not.toContain('\nold\n');
    expect(updated).toContain('`npm run bench:sqs -- --quick`');
    expect(updated).toContain('bench/results/sqs-x.json');
    expect(updated).toContain(`${sqsGeneratedEnd}\nafter`);
    expect(() => replaceSqsSection('# Benchmarks\n', section, 'docs/BENCHMARKS.md')).toThrow(DocMarkersMissingError);
  });
});
