// Prints what a node asked of LevelDB between two snapshots written by level-call-counter.js:
//   node dist/bench/profile/level-call-window.js BEFORE.json AFTER.json
import { readFileSync } from 'node:fs';

interface Snapshot {
  readonly atMs: number;
  readonly totals: Record<string, { calls: number; ms: number }>;
  readonly callSites: Record<string, number>;
}

const callSitesShown = 12;
const [beforePath, afterPath] = process.argv.slice(2);
if (beforePath === undefined || afterPath === undefined) {
  console.error('usage: node dist/bench/profile/level-call-window.js BEFORE.json AFTER.json');
  process.exit(2);
}
const read = (path: string) => JSON.parse(readFileSync(path, 'utf8')) as Snapshot;
const before = read(beforePath);
const after = read(afterPath);

console.log(`window ${((after.atMs - before.atMs) / 1000).toFixed(1)} s`);
console.log('native call            calls   main-thread ms   µs per call');
for (const [name, total] of Object.entries(after.totals)) {
  const calls = total.calls - (before.totals[name]?.calls ?? 0);
  if (calls === 0) continue;
  const ms = total.ms - (before.totals[name]?.ms ?? 0);
  console.log(
    `${name.padEnd(20)} ${String(calls).padStart(8)} ${ms.toFixed(0).padStart(16)} ${((ms * 1000) / calls).toFixed(1).padStart(13)}`,
  );
}
console.log('\nwhere the reads come from (calls, call: nearest raftq frames)');
const sites = Object.entries(after.callSites)
  .map(([site, count]) => [count - (before.callSites[site] ?? 0), site] as const)
  .filter(([count]) => count > 0)
  .sort((a, b) => b[0] - a[0])
  .slice(0, callSitesShown);
for (const [count, site] of sites) console.log(`${String(count).padStart(8)}  ${site}`);
