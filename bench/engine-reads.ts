// `npm run bench:engine-reads`: what a point read of a versioned key costs the main thread, by how
// it reaches LevelDB, on a database of --keys message-sized rows (default 1,000,000 of 350 bytes,
// the shape of a backlog's data rows past the newest-version cache). Reads --reads keys (default
// 50,000) in batches of ten, as a receive does, each read shape in turn:
// - an iterator per key, bounded to the key's versions, one after the other (MvccStore.getAt);
// - the same, the batch's ten at once;
// - one iterator, a seek and a one-entry read per key (values-at.ts);
// - the seeks alone, without the reads (what the synchronous seek costs);
// - getMany of the exact version keys (what a read that knew each version's timestamp would cost).
// For each: microseconds of the main thread's CPU per read (/proc/self/task/PID/stat, Linux only),
// of the whole process's (LevelDB's and libuv's threads too), and of wall time. Options: --dir DIR
// (keep the database there and reuse it in a later run), --keys N, --reads N, --rounds N (default 2).
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import type { EngineEntry, EngineWrite } from '../src/storage/engine.js';
import { compareBytes, encodeKey } from '../src/storage/key-codec.js';
import { LevelEngine } from '../src/storage/level-engine.js';
import { encodeVersionKey, userSpaceStart, versionsEnd } from '../src/storage/version-key.js';
import { procCpuTicks, procTicksPerSecond } from './profile/proc-stat.js';

const { values } = parseArgs({
  options: {
    dir: { type: 'string' },
    keys: { type: 'string', default: '1000000' },
    reads: { type: 'string', default: '50000' },
    rounds: { type: 'string', default: '2' },
  },
});
const keyCount = Number(values.keys);
const readCount = Number(values.reads);
const rounds = Number(values.rounds);
const batchKeys = 10;
const valueBytes = 350;
/** Every row's one version, and the timestamp reads are made at (above all of them). */
const versionTs = (i: number): number => 1_000_000 + i;
const readTs = 1_000_000 + keyCount + 1;

const logicalKey = (i: number): Uint8Array =>
  encodeKey(['q', 'orders', 1, 'data', 0, `m-${String(i).padStart(9, '0')}-4e5f-a1b2-c3d4e5f60718`]);

type ReadShape = (
  engine: LevelEngine,
  batch: readonly number[],
) => Promise<Array<EngineEntry | Uint8Array | undefined>>;

async function boundedRead(engine: LevelEngine, key: Uint8Array): Promise<EngineEntry | undefined> {
  const iterator = engine.iterator({ gte: encodeVersionKey(key, readTs), lt: versionsEnd(key) });
  try {
    return (await iterator.next(1))[0];
  } finally {
    await iterator.close();
  }
}

const shapes: ReadonlyArray<readonly [string, ReadShape]> = [
  [
    'iterator per key, in turn',
    async (engine, batch) => {
      const found: Array<EngineEntry | undefined> = [];
      for (const i of batch) found.push(await boundedRead(engine, logicalKey(i)));
      return found;
    },
  ],
  [
    'iterator per key, ten at once',
    (engine, batch) => Promise.all(batch.map((i) => boundedRead(engine, logicalKey(i)))),
  ],
  [
    'one iterator, seek and read per key',
    async (engine, batch) => {
      const iterator = engine.iterator({ gte: userSpaceStart });
      const found: Array<EngineEntry | undefined> = [];
      try {
        for (const i of batch) {
          iterator.seek(encodeVersionKey(logicalKey(i), readTs));
          found.push((await iterator.next(1))[0]);
        }
      } finally {
        await iterator.close();
      }
      return found;
    },
  ],
  [
    'one iterator, seeks alone',
    async (engine, batch) => {
      const iterator = engine.iterator({ gte: userSpaceStart });
      try {
        for (const i of batch) iterator.seek(encodeVersionKey(logicalKey(i), readTs));
      } finally {
        await iterator.close();
      }
      return batch.map(() => Uint8Array.of(1));
    },
  ],
  [
    'getMany of exact version keys',
    (engine, batch) => engine.getMany(batch.map((i) => encodeVersionKey(logicalKey(i), versionTs(i)))),
  ],
];

async function fill(engine: LevelEngine): Promise<void> {
  const value = new Uint8Array(valueBytes).fill(7);
  const perBatch = 2_000;
  for (let at = 0; at < keyCount; at += perBatch) {
    const writes: EngineWrite[] = [];
    for (let i = at; i < Math.min(keyCount, at + perBatch); i++)
      writes.push({ kind: 'put', key: encodeVersionKey(logicalKey(i), versionTs(i)), value });
    await engine.write(writes, { sync: false });
    if (at % 100_000 === 0)
      process.stderr.write(`\r  filled ${at.toLocaleString('en-US')} / ${keyCount.toLocaleString('en-US')}`);
  }
  process.stderr.write('\n');
}

/** Deterministic batches of distinct keys, in key order within each (as the readers sort them). */
function batches(): number[][] {
  let state = 0x2545f491;
  const next = (): number => {
    state = (Math.imul(state, 1_103_515_245) + 12_345) >>> 0;
    return state % keyCount;
  };
  const all: number[][] = [];
  for (let b = 0; b < readCount / batchKeys; b++) {
    const batch = [...new Set(Array.from({ length: batchKeys }, next))];
    all.push(batch.sort((x, y) => compareBytes(logicalKey(x), logicalKey(y))));
  }
  return all;
}

const mainThreadStat = `/proc/${process.pid}/task/${process.pid}/stat`;

async function main(): Promise<void> {
  const dir = values.dir ?? mkdtempSync(join(tmpdir(), 'raftq-bench-engine-reads-'));
  const isFilled = values.dir !== undefined && existsSync(join(dir, 'CURRENT'));
  const engine = await LevelEngine.open(dir, { writeBufferSizeBytes: 32 * 1_048_576 });
  try {
    if (!isFilled) {
      process.stderr.write(`engine-reads: filling ${dir} with ${keyCount.toLocaleString('en-US')} rows\n`);
      await fill(engine);
    }
    const work = batches();
    const reads = work.reduce((sum, batch) => sum + batch.length, 0);
    process.stdout.write(`${reads.toLocaleString('en-US')} reads in batches of up to ${batchKeys}, µs per read:\n`);
    for (let round = 1; round <= rounds; round++) {
      for (const [name, read] of shapes) {
        const ticksBefore = procCpuTicks(mainThreadStat);
        const cpuBefore = process.cpuUsage();
        const startedMs = performance.now();
        for (const batch of work) {
          const found = await read(engine, batch);
          if (found.some((entry) => entry === undefined)) throw new Error(`${name}: a row was not found`);
        }
        const wallUs = (performance.now() - startedMs) * 1000;
        const cpu = process.cpuUsage(cpuBefore);
        const mainUs = ((procCpuTicks(mainThreadStat) - ticksBefore) / procTicksPerSecond) * 1e6;
        process.stdout.write(
          `  round ${round}  ${name.padEnd(36)} main thread ${(mainUs / reads).toFixed(1).padStart(5)}` +
            `  process ${((cpu.user + cpu.system) / reads).toFixed(1).padStart(5)}  wall ${(wallUs / reads).toFixed(1).padStart(5)}\n`,
        );
      }
    }
  } finally {
    await engine.close();
    if (values.dir === undefined) rmSync(dir, { recursive: true, force: true });
  }
}

await main();
