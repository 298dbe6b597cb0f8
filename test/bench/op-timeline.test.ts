// The operation trace's file format, LevelDB's LOG read as timed events, the binning that puts
// the two side by side, and its chart.
import { describe, expect, it } from 'vitest';
import { formatOpTrace, opTraceLine, parseOpTrace, type OpTrace } from '../../bench/load/op-trace.js';
import { parseLevelDbLog } from '../../bench/profile/leveldb-log-events.js';
import { nodeEventLine, parseNodeEvents } from '../../bench/profile/node-events.js';
import { binOps, summarizeTimeline } from '../../bench/profile/op-timeline-bins.js';
import { renderTimelineChart } from '../../bench/report/svg-timeline-chart.js';
import { xmlProblems } from './xml-well-formed.js';

/** LevelDB stamps its LOG in local time: the same wall-clock reading as `new Date(…)` here. */
function stamp(epochMs: number): string {
  const d = new Date(epochMs);
  const two = (n: number) => String(n).padStart(2, '0');
  const micros = String(Math.round((epochMs % 1000) * 1000)).padStart(6, '0');
  return `${d.getFullYear()}/${two(d.getMonth() + 1)}/${two(d.getDate())}-${two(d.getHours())}:${two(d.getMinutes())}:${two(d.getSeconds())}.${micros}`;
}

const t0 = new Date(2026, 11, 7, 1, 44, 40).getTime();

function levelDbLog(lines: ReadonlyArray<readonly [number, string]>): string {
  return lines.map(([atMs, message]) => `${stamp(t0 + atMs)} 7f2acf7fe6c0 ${message}`).join('\n');
}

function trace(ops: ReadonlyArray<readonly [number, number]>, windowMs = 1_000): OpTrace {
  const lines = ops.map(([startMs, durationMs]) => `${t0 + startMs}\tconsume\t${durationMs}\t10`);
  return parseOpTrace(formatOpTrace(t0, t0 + windowMs, lines));
}

/** A trace of these operations, binned by 250 ms beside one database's LOG of these lines (slow: over 100 ms). */
function binnedBesideLog(ops: ReadonlyArray<readonly [number, number]>, log: ReadonlyArray<readonly [number, string]>) {
  const t = trace(ops);
  const events = parseLevelDbLog(levelDbLog(log));
  const bins = binOps(t, { binMs: 250, slowMs: 100, levelDb: [{ database: 'n1.state', events }] });
  return { t, events, bins };
}

describe('the operation trace file', () => {
  it('reads back what was written, in start order, with the window', () => {
    const lines = [opTraceLine(200, 'consume', 41.5, 10), opTraceLine(100, 'produce', 3, 1)];
    const read = parseOpTrace(formatOpTrace(1_000, 2_000, lines));
    expect(read.windowStartEpochMs).toBe(1_000);
    expect(read.windowEndEpochMs).toBe(2_000);
    expect(read.ops.map((op) => [op.kind, op.durationMs, op.messages])).toEqual([
      ['produce', 3, 1],
      ['consume', 41.5, 10],
    ]);
    expect((read.ops[1]?.startEpochMs ?? 0) - (read.ops[0]?.startEpochMs ?? 0)).toBeCloseTo(100, 0);
  });

  it('refuses a file without its window line, and names the line that is not an operation', () => {
    expect(() => parseOpTrace('1\tconsume\t2\t3\n')).toThrow(/line 1: expected "# window/);
    expect(() => parseOpTrace('# window 1 2\n1\tconsume\t2\t3\n1\treceive\t2\t3\n')).toThrow(/line 3/);
    expect(() => parseOpTrace('# window 1 2\n1\tconsume\t-2\t3\n')).toThrow(/line 2/);
    expect(() => parseOpTrace('# window 1 2\n1\tconsume\t2\t1.5\n')).toThrow(/line 2/);
  });
});

describe("LevelDB's LOG as events", () => {
  it('pairs each flush and compaction with its end, and keeps manual compactions as instants', () => {
    const events = parseLevelDbLog(
      levelDbLog([
        [0, 'Level-0 table #26: started'],
        [182, 'Level-0 table #26: 5080319 bytes OK'],
        [190, 'Delete type=0 #19'],
        [600, 'Compacting 1@1 + 5@2 files'],
        [680, 'Generated table #27@1: 54177 keys, 2233635 bytes'],
        [906, 'Compacted 1@1 + 5@2 files => 9457713 bytes'],
        [907, 'compacted to: files[ 0 0 5 0 0 0 0 ]'],
        [
          2_000,
          "Manual compaction at level-0 from '\\x02q' @ 72057594037927935 : 1 .. '\\x02r' @ 0 : 0; will stop at (end)",
        ],
        [2_500, 'Level-0 table #33: started'],
      ]),
    );
    expect(
      events.map((e) => [e.kind, Math.round(e.startEpochMs - t0), Math.round(e.endEpochMs - t0), e.detail]),
    ).toEqual([
      ['flush', 0, 182, '#26: 5080319 bytes'],
      ['compaction', 600, 906, '1@1 + 5@2 files => 9457713 bytes'],
      ['manual-compaction', 2_000, 2_000, 'level 0'],
    ]);
  });

  it('ignores lines that are not stamped (a LOG cut mid-line) and events whose start it never saw', () => {
    expect(parseLevelDbLog('garbage\nLevel-0 table #1: 100 bytes OK\n')).toEqual([]);
    expect(parseLevelDbLog(levelDbLog([[5, 'Level-0 table #9: 100 bytes OK']]))).toEqual([]);
  });
});

describe('an operation trace in bins', () => {
  it('counts, ranks and marks slow operations per bin, from the window start (warm-up bins are negative)', () => {
    const bins = binOps(
      trace([
        [-100, 5],
        [10, 40],
        [20, 50],
        [30, 300],
        [260, 45],
      ]),
      { binMs: 250, slowMs: 100 },
    );
    expect(bins.map((b) => [b.fromMs, b.ops, b.messages, b.p50Ms, b.maxMs, b.slowOps])).toEqual([
      [-250, 1, 10, 5, 5, 0],
      [0, 3, 30, 50, 300, 1],
      [250, 1, 10, 45, 45, 0],
    ]);
  });

  it('lays LevelDB work beside the bins it overlapped, and says how many slow operations had it beside them', () => {
    const { t, bins } = binnedBesideLog(
      [
        [10, 40],
        [300, 400],
        [310, 420],
        [700, 45],
      ],
      [
        [280, 'Compacting 1@1 + 4@2 files'],
        [520, 'Compacted 1@1 + 4@2 files => 7595755 bytes'],
      ],
    );
    expect(bins.map((b) => b.events.map((e) => `${e.database} ${e.event.kind}`))).toEqual([
      [],
      ['n1.state compaction'],
      ['n1.state compaction'],
    ]);
    expect(summarizeTimeline(t, bins)).toEqual({
      opsInWindow: 4,
      slowOpsInWindow: 2,
      slowOpsBesideLevelDb: 2,
      binsBesideLevelDb: 2,
      slowOpsBesidePauses: 0,
      binsWithPauses: 0,
      binsInWindow: 3,
    });
  });

  it('names the main-thread pauses of 10 ms or more that began in each bin, and the slow operations beside them', () => {
    const t = trace([
      [10, 40],
      [300, 400],
      [700, 45],
    ]);
    const events = parseNodeEvents(
      [
        nodeEventLine({ kind: 'gc-minor', startEpochMs: t0 + 20, durationMs: 4 }),
        nodeEventLine({ kind: 'stall', startEpochMs: t0 + 280, durationMs: 62 }),
        'cut mid-li',
        nodeEventLine({ kind: 'gc-minor', startEpochMs: t0 + 560, durationMs: 18 }),
      ].join('\n'),
    );
    expect(events.map((e) => e.kind)).toEqual(['gc-minor', 'stall', 'gc-minor']);
    const bins = binOps(t, { binMs: 250, slowMs: 100, nodeEvents: [{ node: 'n1', events }] });
    expect(bins.map((b) => b.pauses.map((p) => `${p.node} ${p.event.kind}`))).toEqual([
      [],
      ['n1 stall'],
      ['n1 gc-minor'],
    ]);
    const summary = summarizeTimeline(t, bins);
    expect([summary.slowOpsBesidePauses, summary.binsWithPauses]).toEqual([1, 2]);
  });

  it('draws well-formed SVG with a line per statistic and a band per event of each lane', () => {
    const { events, bins } = binnedBesideLog(
      [
        [10, 40],
        [300, 400],
        [700, 45],
      ],
      [
        [280, 'Level-0 table #3: started'],
        [400, 'Level-0 table #3: 9 bytes OK'],
      ],
    );
    const svg = renderTimelineChart({
      title: 'raftq-1 <consume> & more',
      binMs: 250,
      windowMs: 1_000,
      windowStartEpochMs: t0,
      bins,
      lanes: [
        {
          name: 'n1.state',
          bands: events.map((e) => ({
            startEpochMs: e.startEpochMs,
            endEpochMs: e.endEpochMs,
            color: '#000',
            title: `${e.kind} ${e.detail}`,
          })),
        },
        {
          name: 'pid 1 pauses',
          bands: [{ startEpochMs: t0 + 5_000, endEpochMs: t0 + 5_050, color: '#f00', title: 'off the chart' }],
        },
      ],
    });
    expect(xmlProblems(svg)).toEqual([]);
    expect(svg.match(/<polyline/g)).toHaveLength(3);
    expect(svg.match(/<title>flush #3: 9 bytes<\/title>/g)).toHaveLength(1);
    // A band outside the chart's time range is not drawn; its lane still is.
    expect(svg).not.toContain('off the chart');
    expect(svg).toContain('>pid 1 pauses</text>');
    expect(svg).toContain('raftq-1 &lt;consume&gt; &amp; more');
  });
});
