// `npm run bench:storage`: throughput of the MVCC store on classic-level, through the same apply
// step the cluster uses: puts/s with and without sync, with and without group commit, scan rows/s,
// the CPU a row costs LevelDB at three batch sizes, and a queue-like range after put+delete churn,
// before and after garbage collection and a LevelDB compaction, so the cost of dead versions is
// visible. Prints progress to stderr and a Markdown
// table to stdout. Options: --cycles N (churn cycles, default 100000), --quick (a tenth of everything).
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { encodeKey, prefixRange } from '../src/storage/key-codec.js';
import { LevelEngine } from '../src/storage/level-engine.js';
import { MvccStore } from '../src/storage/mvcc-store.js';
import { applyEntries, type ApplyEntry } from '../src/storage/txn-apply.js';
import type { KeyRange, Txn } from '../src/storage/txn.js';

interface Row {
  readonly name: string;
  readonly count: number;
  readonly unit: string;
  readonly seconds: number;
  readonly note: string;
}

const args = process.argv.slice(2);
const isQuick = args.includes('--quick');
const scale = isQuick ? 0.1 : 1;
const cyclesArg = args.indexOf('--cycles');
const churnCycles = cyclesArg >= 0 ? Number(args[cyclesArg + 1]) : Math.round(100_000 * scale);
const rows: Row[] = [];
const baseDir = mkdtempSync(join(tmpdir(), 'raftq-bench-storage-'));
const value = new Uint8Array(256).fill(7);
const startUnixMs = 1_700_000_000_000;

function progress(message: string): void {
  process.stderr.write(`[bench:storage] ${message}\n`);
}

/** A stamp clock in µs that moves 1 ms per entry, so commit time resembles a busy node's. */
class StampClock {
  private stampUs = startUnixMs * 1000;
  next(): number {
    this.stampUs += 1000;
    return this.stampUs;
  }
  jumpMs(ms: number): void {
    this.stampUs += ms * 1000;
  }
  get nowMs(): number {
    return Math.floor(this.stampUs / 1000);
  }
}

async function openStore(name: string): Promise<{ engine: LevelEngine; store: MvccStore }> {
  const engine = await LevelEngine.open(join(baseDir, name));
  return { engine, store: await MvccStore.open(engine) };
}

let txnSerial = 0;
function putTxn(store: MvccStore, nowMs: number, key: Uint8Array, body: Uint8Array): Txn {
  return {
    txnId: `b${txnSerial++}`,
    startTsUs: store.lastCommitTs,
    nowMs,
    readKeys: [],
    writes: [{ kind: 'put', key, value: body }],
  };
}

function deleteTxn(store: MvccStore, nowMs: number, key: Uint8Array): Txn {
  return {
    txnId: `b${txnSerial++}`,
    startTsUs: store.lastCommitTs,
    nowMs,
    readKeys: [key],
    writes: [{ kind: 'delete', key }],
  };
}

async function applyBatch(store: MvccStore, clock: StampClock, txns: Txn[], sync: boolean): Promise<void> {
  const entry: ApplyEntry = { index: store.appliedIndex + 1, leaderStampTsUs: clock.next(), txns };
  const result = await applyEntries(store, [entry], { sync });
  if (result.outcomes[0]?.some((o) => o.kind !== 'committed'))
    throw new Error(`a benchmark txn did not commit: ${JSON.stringify(result.outcomes[0])}`);
}

async function measurePuts(name: string, total: number, txnsPerBatch: number, sync: boolean): Promise<MvccStore> {
  const { store } = await openStore(name);
  const clock = new StampClock();
  progress(`${name}: ${total} puts, ${txnsPerBatch} per batch, sync=${sync}`);
  const started = performance.now();
  let lastReport = started;
  for (let done = 0; done < total; done += txnsPerBatch) {
    const txns: Txn[] = [];
    for (let i = done; i < Math.min(total, done + txnsPerBatch); i++)
      txns.push(putTxn(store, clock.nowMs, encodeKey(['bench', name, i]), value));
    await applyBatch(store, clock, txns, sync);
    if (performance.now() - lastReport > 2000) {
      lastReport = performance.now();
      progress(`  ${done + txns.length}/${total}`);
    }
  }
  const seconds = (performance.now() - started) / 1000;
  rows.push({
    name: `put (${txnsPerBatch} txn${txnsPerBatch > 1 ? 's' : ''} of one 256 B put per batch, ${sync ? 'synced' : 'not synced'})`,
    count: total,
    unit: 'puts',
    seconds,
    note: '',
  });
  return store;
}

/**
 * What a row costs LevelDB itself, under the MVCC store: engine batches of random 40-byte keys and
 * 60-byte values (a version row's size on the message path), not synced, at three batch sizes.
 * The CPU is the whole process's (LevelDB writes on libuv's threads), so per row it includes each
 * batch's fixed cost spread over its rows: the two figures the queue layer's rows per message and
 * batches per Ready multiply.
 */
async function measureEngineRows(): Promise<void> {
  const engine = await LevelEngine.open(join(baseDir, 'engine-rows'));
  const rowsTotal = Math.round(120_000 * scale);
  for (const rowsPerBatch of [6, 60, 600]) {
    progress(`engine rows: ${rowsTotal} puts in batches of ${rowsPerBatch}`);
    const batches = Array.from({ length: Math.ceil(rowsTotal / rowsPerBatch) }, () =>
      Array.from({ length: rowsPerBatch }, () => ({
        kind: 'put' as const,
        key: new Uint8Array(randomBytes(40)),
        value: new Uint8Array(randomBytes(60)),
      })),
    );
    const cpuBefore = process.cpuUsage();
    const started = performance.now();
    for (const batch of batches) await engine.write(batch, { sync: false });
    const cpu = process.cpuUsage(cpuBefore);
    const rowsWritten = batches.length * rowsPerBatch;
    rows.push({
      name: `engine rows: LevelDB batches of ${rowsPerBatch} puts (40 B keys, 60 B values, not synced)`,
      count: rowsWritten,
      unit: 'rows',
      seconds: (performance.now() - started) / 1000,
      note: `CPU ${((cpu.user + cpu.system) / rowsWritten).toFixed(1)} µs per row`,
    });
  }
  await engine.close();
}

async function measureScan(
  label: string,
  store: MvccStore,
  range: KeyRange,
  options: { reverse: boolean; pageRows: number },
): Promise<number> {
  const started = performance.now();
  let count = 0;
  let cursor = range;
  for (;;) {
    const page = await store.scanAt(cursor, store.lastCommitTs, { limit: options.pageRows, reverse: options.reverse });
    count += page.length;
    const last = page[page.length - 1];
    if (page.length < options.pageRows || last === undefined) break;
    const after = new Uint8Array(last.key.length + 1);
    after.set(last.key);
    cursor = options.reverse ? { gte: range.gte, lt: last.key } : { gte: after, lt: range.lt };
  }
  const seconds = (performance.now() - started) / 1000;
  rows.push({ name: label, count, unit: 'rows', seconds, note: '' });
  return count;
}

/**
 * The time a receive-like scan takes (the first `limit` live rows of the range): the first one,
 * which reads every dead row, and the repeats, which start past the dead run the store remembered.
 */
async function measureHeadScan(
  label: string,
  store: MvccStore,
  range: KeyRange,
  limit: number,
  repeats: number,
  note: string,
): Promise<void> {
  const scanOnce = async () => {
    const found = await store.scanAt(range, store.lastCommitTs, { limit });
    if (found.length !== limit) throw new Error(`head scan found ${found.length} rows, expected ${limit}`);
  };
  const coldStarted = performance.now();
  await scanOnce();
  rows.push({
    name: `${label}, first scan`,
    count: 1,
    unit: 'scans',
    seconds: (performance.now() - coldStarted) / 1000,
    note,
  });
  const started = performance.now();
  for (let i = 0; i < repeats; i++) await scanOnce();
  rows.push({
    name: `${label}, repeated (dead run remembered)`,
    count: repeats,
    unit: 'scans',
    seconds: (performance.now() - started) / 1000,
    note: '',
  });
}

async function collectAll(store: MvccStore): Promise<{ removed: number; live: number; seconds: number }> {
  const started = performance.now();
  let removed = 0;
  let live = 0;
  for (;;) {
    const step = await store.collectGarbage();
    removed += step.deadVersions;
    live += step.liveVersions;
    if (step.isPassComplete) break;
  }
  return { removed, live, seconds: (performance.now() - started) / 1000 };
}

async function measureChurn(): Promise<void> {
  const { engine, store } = await openStore('churn');
  const clock = new StampClock();
  const visRow = (seq: number) => encodeKey(['q', 'bench', 'g', 1, 'vis', 0, startUnixMs, seq]);
  const range = prefixRange(['q', 'bench', 'g', 1, 'vis', 0]);
  const backlog = 1_000;
  const perBatch = 100;
  progress(
    `churn: ${churnCycles} put+delete cycles on one queue's visibility range, then ${backlog} live rows behind them`,
  );
  const started = performance.now();
  let lastReport = started;
  for (let done = 0; done < churnCycles; done += perBatch) {
    const end = Math.min(churnCycles, done + perBatch);
    const puts: Txn[] = [];
    for (let seq = done; seq < end; seq++) puts.push(putTxn(store, clock.nowMs, visRow(seq), value.subarray(0, 64)));
    await applyBatch(store, clock, puts, false);
    const deletes: Txn[] = [];
    for (let seq = done; seq < end; seq++) deletes.push(deleteTxn(store, clock.nowMs, visRow(seq)));
    await applyBatch(store, clock, deletes, false);
    if (performance.now() - lastReport > 2000) {
      lastReport = performance.now();
      progress(`  ${end}/${churnCycles} cycles`);
    }
  }
  const churnSeconds = (performance.now() - started) / 1000;
  rows.push({
    name: 'churn: put then delete of one visibility row (100 txns per batch, not synced)',
    count: churnCycles * 2,
    unit: 'txns',
    seconds: churnSeconds,
    note: '',
  });
  const live: Txn[] = [];
  for (let seq = churnCycles; seq < churnCycles + backlog; seq++)
    live.push(putTxn(store, clock.nowMs, visRow(seq), value.subarray(0, 64)));
  await applyBatch(store, clock, live, false);

  const headRepeats = Math.max(20, Math.round(200 * scale));
  const describe = async (stage: string) => {
    const size = await engine.approximateSizeBytes(range.gte, range.lt);
    progress(`churn: measuring ${stage} (LevelDB estimates ${(size / 1_048_576).toFixed(1)} MiB for the range)`);
    // Fresh stores over the same engine: nothing remembered from an earlier scan or stage.
    await measureScan(
      `full scan of the range (${backlog} live rows behind the churned ones) ${stage}`,
      await MvccStore.open(engine),
      range,
      { reverse: false, pageRows: 1000 },
    );
    await measureHeadScan(
      `receive-like scan (first 10 live rows) ${stage}`,
      await MvccStore.open(engine),
      range,
      10,
      headRepeats,
      `range ≈ ${(size / 1_048_576).toFixed(1)} MiB on disk`,
    );
  };
  await describe('with every version');
  // Collection within the history: the hidden values go, the deletion markers stay.
  let gc = await collectAll(store);
  progress(`churn: GC inside the history removed ${gc.removed} versions in ${gc.seconds.toFixed(2)} s`);
  rows.push({
    name: 'GC pass inside the history (values under markers)',
    count: gc.removed,
    unit: 'versions removed',
    seconds: gc.seconds,
    note: `${gc.live} live`,
  });
  await describe('after GC, markers kept');
  // Move the horizon past the churn (one commit 2 × the history later), then collect the markers.
  clock.jumpMs(20_000);
  await applyBatch(store, clock, [putTxn(store, clock.nowMs, encodeKey(['bench', 'tick', 1]), value)], false);
  clock.jumpMs(20_000);
  await applyBatch(store, clock, [putTxn(store, clock.nowMs, encodeKey(['bench', 'tick', 2]), value)], false);
  gc = await collectAll(store);
  progress(`churn: GC past the horizon removed ${gc.removed} versions in ${gc.seconds.toFixed(2)} s`);
  rows.push({
    name: 'GC pass past the horizon (deletion markers)',
    count: gc.removed,
    unit: 'versions removed',
    seconds: gc.seconds,
    note: `${gc.live} live`,
  });
  await describe('after GC of markers');
  const compactStarted = performance.now();
  await engine.compactRange(Uint8Array.of(0x00), Uint8Array.of(0xff));
  rows.push({
    name: 'LevelDB compactRange of the whole state',
    count: 1,
    unit: 'compactions',
    seconds: (performance.now() - compactStarted) / 1000,
    note: '',
  });
  await describe('after GC and compactRange');
  await engine.close();
}

function formatRate(row: Row): string {
  const rate = row.count / row.seconds;
  return rate >= 100 ? Math.round(rate).toLocaleString('en-US') : rate.toFixed(1);
}

function printTable(): void {
  const lines = [
    `Load average (1 min) at start ${loadAtStart.toFixed(1)}, at end ${loadavg()[0]?.toFixed(1)}; ${isQuick ? '--quick' : 'full run'}, ${churnCycles} churn cycles.`,
    '',
    '| measurement | count | time (s) | rate | per op | note |',
    '|---|---:|---:|---:|---:|---|',
  ];
  for (const row of rows) {
    const perOpUs = (row.seconds * 1e6) / row.count;
    const perOp = perOpUs >= 1000 ? `${(perOpUs / 1000).toFixed(2)} ms` : `${perOpUs.toFixed(1)} µs`;
    lines.push(
      `| ${row.name} | ${row.count.toLocaleString('en-US')} ${row.unit} | ${row.seconds.toFixed(2)} | ${formatRate(row)} ${row.unit}/s | ${perOp} | ${row.note} |`,
    );
  }
  process.stdout.write(`${lines.join('\n')}\n`);
}

const loadAtStart = loadavg()[0] ?? 0;

async function main(): Promise<void> {
  progress(`data in ${baseDir}${isQuick ? ' (quick)' : ''}`);
  try {
    for (const [name, total, perBatch, sync] of [
      ['sync-single', 2_000, 1, true],
      ['nosync-single', 20_000, 1, false],
      ['sync-grouped', 100_000, 100, true],
    ] as const) {
      await (await measurePuts(name, Math.round(total * scale), perBatch, sync)).engine.close();
    }
    const store = await measurePuts('nosync-grouped', Math.round(100_000 * scale), 100, false);
    progress('scans of the 100k-row range');
    const range = prefixRange(['bench', 'nosync-grouped']);
    await measureScan('scan forward, pages of 1000 (one version per key)', store, range, {
      reverse: false,
      pageRows: 1000,
    });
    await measureScan('scan reverse, pages of 1000 (one version per key)', store, range, {
      reverse: true,
      pageRows: 1000,
    });
    await store.engine.close();
    await measureEngineRows();
    await measureChurn();
    printTable();
  } finally {
    rmSync(baseDir, { recursive: true, force: true });
  }
}

await main();
