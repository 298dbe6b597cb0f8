// Summarises a V8 sampling heap profile (.heapprofile, from heap-profile-on-signal.ts): the bytes
// each function allocated itself, and with everything it called, largest first.
//   node dist/bench/profile/heap-profile-summary.js FILE.heapprofile [--top N]
// Divided by the messages the node handled over the window, this is what a message allocates.
import { readFileSync } from 'node:fs';
import { frameLabel } from './frame-label.js';
import { parseProfileFileArgs } from './profile-file-args.js';

interface HeapProfileNode {
  readonly callFrame: { readonly functionName: string; readonly url: string; readonly lineNumber: number };
  readonly selfSize: number;
  readonly children: readonly HeapProfileNode[];
}

export interface HeapProfile {
  readonly head: HeapProfileNode;
}

export interface AllocatedBytes {
  readonly name: string;
  readonly bytes: number;
  readonly share: number;
}

function rank(totals: Map<string, number>, totalBytes: number): AllocatedBytes[] {
  return [...totals.entries()]
    .map(([name, bytes]) => ({ name, bytes, share: totalBytes > 0 ? bytes / totalBytes : 0 }))
    .sort((a, b) => b.bytes - a.bytes);
}

/**
 * Bytes by function: `bySelf` what its own frames allocated, `byInclusive` that plus everything
 * it called (a recursive function counted once per path).
 */
export function summarizeHeapProfile(profile: HeapProfile): {
  totalBytes: number;
  bySelf: AllocatedBytes[];
  byInclusive: AllocatedBytes[];
} {
  const self = new Map<string, number>();
  const inclusive = new Map<string, number>();
  let totalBytes = 0;
  const walk = (node: HeapProfileNode, onPath: ReadonlySet<string>): number => {
    const label = frameLabel(node.callFrame);
    totalBytes += node.selfSize;
    self.set(label, (self.get(label) ?? 0) + node.selfSize);
    const path = onPath.has(label) ? onPath : new Set([...onPath, label]);
    let below = node.selfSize;
    for (const child of node.children) below += walk(child, path);
    if (!onPath.has(label)) inclusive.set(label, (inclusive.get(label) ?? 0) + below);
    return below;
  };
  for (const child of profile.head.children) walk(child, new Set());
  totalBytes += profile.head.selfSize;
  return { totalBytes, bySelf: rank(self, totalBytes), byInclusive: rank(inclusive, totalBytes) };
}

function main(): void {
  const args = parseProfileFileArgs(process.argv.slice(2), 'heap-profile-summary FILE.heapprofile [--top N]', 30);
  if (args === undefined) return;
  const { file, top } = args;
  const summary = summarizeHeapProfile(JSON.parse(readFileSync(file, 'utf8')) as HeapProfile);
  const mb = (bytes: number): string => (bytes / 1_048_576).toFixed(1).padStart(8);
  const pct = (share: number): string => `${(share * 100).toFixed(1)}%`.padStart(7);
  const lines = [
    `allocated ${(summary.totalBytes / 1_048_576).toFixed(1)} MiB (sampled)`,
    '',
    'by function, own frames',
  ];
  for (const row of summary.bySelf.slice(0, top)) lines.push(`${mb(row.bytes)} MiB ${pct(row.share)}  ${row.name}`);
  lines.push('', 'by function, with what it called');
  for (const row of summary.byInclusive.slice(0, top))
    lines.push(`${mb(row.bytes)} MiB ${pct(row.share)}  ${row.name}`);
  process.stdout.write(`${lines.join('\n')}\n`);
}

if (import.meta.url === `file://${process.argv[1]}`) main();
