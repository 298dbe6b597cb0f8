// `npm run bench:key-codec`: ns per key for what the message path does with keys: encode a data,
// state and vis row key (GenerationKeys) and parse a vis and a data row key (parseMessageRowKey),
// on UUID message ids. Options: --keys N (distinct keys per round, default 10000), --rounds N
// (default 50), --dist DIR (time the key layout of another build, e.g. another checkout's dist/,
// so two versions can be compared in one sitting).
import { resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { existsSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import type * as KeyLayout from '../src/queue/layout/key-layout.js';

const { values } = parseArgs({
  options: {
    keys: { type: 'string', default: '10000' },
    rounds: { type: 'string', default: '50' },
    dist: { type: 'string' },
  },
});
const keyCount = Number(values.keys);
const rounds = Number(values.rounds);

async function keyLayout(): Promise<typeof KeyLayout> {
  if (values.dist === undefined) return import('../src/queue/layout/key-layout.js');
  // Builds before the queue's layout folder kept the file one level up.
  const moved = resolve(values.dist, 'src/queue/layout/key-layout.js');
  const path = existsSync(moved) ? moved : resolve(values.dist, 'src/queue/key-layout.js');
  return import(pathToFileURL(path).href) as Promise<typeof KeyLayout>;
}

/** Deterministic UUID-shaped ids: the bench compares builds, so both must see the same keys. */
function messageIds(count: number): string[] {
  const ids: string[] = [];
  let state = 0x9e3779b9;
  const hex = (digits: number) => {
    let text = '';
    for (let i = 0; i < digits; i++) {
      state = (Math.imul(state, 1_103_515_245) + 12_345) >>> 0;
      text += ((state >>> 16) & 0xf).toString(16);
    }
    return text;
  };
  for (let i = 0; i < count; i++) ids.push(`${hex(8)}-${hex(4)}-4${hex(3)}-a${hex(3)}-${hex(12)}`);
  return ids;
}

/** Best ns per call over the rounds (the least disturbed by other work on the machine). */
function nsPerCall(run: () => number): number {
  let best = Number.POSITIVE_INFINITY;
  let sink = 0;
  for (let round = 0; round < rounds; round++) {
    const start = performance.now();
    sink += run();
    best = Math.min(best, ((performance.now() - start) * 1e6) / keyCount);
  }
  if (sink === -1) console.log(sink);
  return best;
}

async function main(): Promise<void> {
  const { GenerationKeys, parseMessageRowKey } = await keyLayout();
  const ids = messageIds(keyCount);
  const nowMs = 1_764_000_000_000;
  const keysOf = () => new GenerationKeys('bench-queue-0001', 3);
  const visKeys = ids.map((id, i) => keysOf().visibility(i % 4, nowMs + i, BigInt(i) << 20n, id));
  const dataKeys = ids.map((id, i) => keysOf().data(i % 4, id));
  /** ns per key of `encode`, with one GenerationKeys per ten keys, as the queue layer makes one per loaded queue. */
  const perRequest = (encode: (keys: KeyLayout.GenerationKeys, i: number, id: string) => Uint8Array) =>
    nsPerCall(() => {
      let total = 0;
      let keys = keysOf();
      for (let i = 0; i < keyCount; i++) {
        if (i % 10 === 0) keys = keysOf();
        total += encode(keys, i, ids[i] as string).length;
      }
      return total;
    });
  const results: Array<[string, number]> = [
    ['data key encode', perRequest((keys, i, id) => keys.data(i % 4, id))],
    ['state key encode', perRequest((keys, i, id) => keys.receiveState(i % 4, id))],
    ['vis key encode', perRequest((keys, i, id) => keys.visibility(i % 4, nowMs + i, BigInt(i) << 20n, id))],
    [
      'parseMessageRowKey (vis)',
      nsPerCall(() => {
        let total = 0;
        for (const key of visKeys) total += parseMessageRowKey(key)?.partition ?? 0;
        return total;
      }),
    ],
    [
      'parseMessageRowKey (data)',
      nsPerCall(() => {
        let total = 0;
        for (const key of dataKeys) total += parseMessageRowKey(key)?.partition ?? 0;
        return total;
      }),
    ],
  ];
  console.log(`key layout of ${values.dist ?? 'this build'}: ${keyCount} keys, best of ${rounds} rounds`);
  for (const [name, ns] of results) console.log(`  ${name.padEnd(28)} ${ns.toFixed(0).padStart(6)} ns/key`);
}

await main();
