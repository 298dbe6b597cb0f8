// Summarises a V8 .cpuprofile (node --cpu-prof) of a raftq node under load: self time by function,
// and by category (HTTP parsing, SigV4, JSON, protobuf, LevelDB, gRPC, Raft, queue logic, GC,
// idle), which is what says where a message's CPU goes.
//   node dist/bench/profile/cpu-profile-summary.js FILE.cpuprofile [--top N] [--by-caller] [--inclusive]
//     [--by-entry] [--busy-runs[=N]] [--before-end=FROM:TO]
// --by-caller charges Node internals and unnamed native frames (stream plumbing, buffer copies,
// the native half of a binding) to the nearest caller that has a category of its own, so that
// "other node internals" and "other code" shrink to what no caller explains ((program) stays).
// --inclusive also ranks functions by inclusive time: their own and that of everything they called
// synchronously (a callback that runs after an await is not under its caller in a V8 profile), as
// a share of busy time; what "the receive's reads are 14 % of the main thread" is read from.
// --by-entry charges each busy sample to the outermost frame of raftq's own code on its stack (where
// it entered src/): the apply step, the HTTP path, a receive's plan (entryTimes).
// --busy-runs[=N] prints the N (3) longest stretches without an idle sample, each with the functions it
// spent its time in (cpu-busy-runs.ts).
// --before-end=FROM:TO summarises only the samples from FROM to TO seconds before the profile's end
// (cpu-profile-window.ts): the last cell of a whole-run `--cpu-prof` profile, e.g. 5.5:1.5.
// A steady-state profile of a running node: see profile-on-signal.ts.
import { readFileSync } from 'node:fs';
import { longestBusyRuns } from './cpu-busy-runs.js';
import { parseBeforeEndFlag, windowBeforeEnd } from './cpu-profile-window.js';
import { frameLabel } from './frame-label.js';
import { parseProfileFileArgs } from './profile-file-args.js';

interface ProfileNode {
  readonly id: number;
  readonly callFrame: { readonly functionName: string; readonly url: string; readonly lineNumber: number };
  readonly children?: readonly number[];
}

export interface CpuProfile {
  readonly nodes: readonly ProfileNode[];
  readonly samples: readonly number[];
  readonly timeDeltas: readonly number[];
}

export interface SelfTime {
  readonly name: string;
  readonly selfMs: number;
  readonly share: number;
}

/** Ordered: the first pattern that matches a frame's URL or name decides its category. */
const categories: readonly (readonly [string, RegExp])[] = [
  ['idle', /^\(idle\)$/],
  ['garbage collection', /^\(garbage collector\)$/],
  ['sigv4', /\/src\/sqs\/sigv4|sigv4/i],
  ['sqs gateway (parse, validate, encode)', /\/src\/sqs\//],
  ['queue logic', /\/src\/queue\//],
  ['mvcc / txn / key codec', /\/src\/storage\/(?!level-engine)/],
  ['leveldb', /classic-level|abstract-level|level-engine|level-transcoder|\/level-/],
  ['raft core', /\/src\/raft\//],
  ['protobuf', /protobufjs|\/src\/gen\//],
  ['grpc / http2', /@grpc|node:internal\/http2|internal\/http2/],
  ['cluster runtime', /\/src\/cluster\//],
  ['logging', /pino|sonic-boom/],
  ['node http', /node:_http|node:internal\/http|_http_|llhttp/],
  ['node streams / net', /node:internal\/streams|node:net|node:stream|internal\/stream_base/],
  ['crypto', /node:crypto|internal\/crypto/],
  ['json', /^(JSON|stringify|parse)$/],
  ['other node internals', /^node:/],
  ['other code', /.+/],
];

export function categoryOf(node: ProfileNode): string {
  const { functionName, url } = node.callFrame;
  for (const [name, pattern] of categories) {
    if (pattern.test(url) || (url === '' && pattern.test(functionName))) return name;
  }
  return 'other code';
}

/** Self time per node id, from the samples and the time deltas between them. */
function selfTimeByNode(profile: CpuProfile): Map<number, number> {
  const selfUs = new Map<number, number>();
  profile.samples.forEach((id, i) => selfUs.set(id, (selfUs.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0)));
  return selfUs;
}

/** The profile's nodes by id, and each node's parent. */
function callTreeOf(profile: CpuProfile): { nodes: Map<number, ProfileNode>; parents: Map<number, number> } {
  const nodes = new Map(profile.nodes.map((n) => [n.id, n]));
  const parents = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parents.set(child, node.id);
  return { nodes, parents };
}

function rank(totals: Map<string, number>, totalUs: number): SelfTime[] {
  return [...totals.entries()]
    .map(([name, us]) => ({ name, selfMs: us / 1000, share: totalUs > 0 ? us / totalUs : 0 }))
    .sort((a, b) => b.selfMs - a.selfMs);
}

/** Categories whose frames --by-caller charges to their caller, and the frames it never moves. */
const chargedToCaller = new Set(['other node internals', 'node streams / net', 'other code']);
const ownFrames = new Set(['(program)', '(garbage collector)', '(idle)', '(root)']);

/** The category of the nearest frame, from `node` up, that is not charged to its caller (its own if none is). */
function callerCategoryOf(
  node: ProfileNode,
  nodes: ReadonlyMap<number, ProfileNode>,
  parents: ReadonlyMap<number, number>,
): string {
  const own = categoryOf(node);
  if (!chargedToCaller.has(own) || ownFrames.has(node.callFrame.functionName)) return own;
  for (let id = parents.get(node.id); id !== undefined; id = parents.get(id)) {
    const caller = nodes.get(id);
    if (caller === undefined || ownFrames.has(caller.callFrame.functionName)) break;
    const category = categoryOf(caller);
    if (!chargedToCaller.has(category)) return category;
  }
  return own;
}

export function summarizeCpuProfile(
  profile: CpuProfile,
  options: { readonly byCaller?: boolean } = {},
): { byCategory: SelfTime[]; byFunction: SelfTime[]; busyMs: number } {
  const { nodes, parents } = callTreeOf(profile);
  const perCategory = new Map<string, number>();
  const perFunction = new Map<string, number>();
  let busyUs = 0;
  for (const [id, us] of selfTimeByNode(profile)) {
    const node = nodes.get(id);
    if (node === undefined) continue;
    const category = options.byCaller === true ? callerCategoryOf(node, nodes, parents) : categoryOf(node);
    if (category === 'idle') continue;
    busyUs += us;
    perCategory.set(category, (perCategory.get(category) ?? 0) + us);
    const label = frameLabel(node.callFrame);
    perFunction.set(label, (perFunction.get(label) ?? 0) + us);
  }
  return { byCategory: rank(perCategory, busyUs), byFunction: rank(perFunction, busyUs), busyMs: busyUs / 1000 };
}

/**
 * Busy time charged to labels of each sample's stack (leaf first, root last): every idle sample
 * left out, each busy one charged once to each label `labelsOf` names; shares are of busy time.
 */
function chargeBusySamples(
  profile: CpuProfile,
  labelsOf: (stack: readonly ProfileNode[]) => Iterable<string>,
): SelfTime[] {
  const { nodes, parents } = callTreeOf(profile);
  const perLabel = new Map<string, number>();
  let busyUs = 0;
  for (const [id, us] of selfTimeByNode(profile)) {
    const node = nodes.get(id);
    if (node === undefined || categoryOf(node) === 'idle') continue;
    busyUs += us;
    const stack: ProfileNode[] = [];
    for (let at: number | undefined = id; at !== undefined; at = parents.get(at)) {
      const frame = nodes.get(at);
      if (frame !== undefined) stack.push(frame);
    }
    for (const label of labelsOf(stack)) perLabel.set(label, (perLabel.get(label) ?? 0) + us);
  }
  return rank(perLabel, busyUs);
}

/**
 * Inclusive time per function: each sample counts once for every distinct function on its stack
 * (a recursive one once), idle samples not at all; shares are of busy time.
 */
export function inclusiveTimes(profile: CpuProfile): SelfTime[] {
  return chargeBusySamples(
    profile,
    (stack) =>
      new Set(
        stack.filter((frame) => frame.callFrame.functionName !== '(root)').map((frame) => frameLabel(frame.callFrame)),
      ),
  );
}

/** raftq's own code in a frame's URL: its compiled sources (dist/src/) or, run from source, src/. */
const ownCodeUrl = /\/src\//;

/**
 * Busy time charged to where each sample's stack entered raftq's own code: its outermost frame
 * under src/ (a continuation after an `await` starts a stack of its own, so this is the function
 * whose synchronous run the sample belongs to); a sample with no such frame (V8's "(program)" and
 * collector, Node's own work) to its own frame. Says which part of the node a share belongs to —
 * the apply step, the HTTP path, a receive's plan — when no single function stands out.
 */
export function entryTimes(profile: CpuProfile): SelfTime[] {
  return chargeBusySamples(profile, (stack) => {
    const entry = stack.findLast((frame) => ownCodeUrl.test(frame.callFrame.url)) ?? stack[0];
    return entry === undefined ? [] : [frameLabel(entry.callFrame)];
  });
}

function main(): void {
  const args = parseProfileFileArgs(
    process.argv.slice(2),
    'cpu-profile-summary FILE.cpuprofile [--top N] [--by-caller] [--inclusive] [--by-entry] [--busy-runs[=N]] [--before-end=FROM:TO]',
    25,
  );
  if (args === undefined) return;
  const { file, top } = args;
  const whole = JSON.parse(readFileSync(file, 'utf8')) as CpuProfile;
  const beforeEnd = parseBeforeEndFlag(args.flags);
  const profile = beforeEnd === undefined ? whole : windowBeforeEnd(whole, beforeEnd.fromS, beforeEnd.toS);
  const summary = summarizeCpuProfile(profile, {
    byCaller: args.flags.includes('--by-caller'),
  });
  const line = (t: SelfTime): string =>
    `${(t.share * 100).toFixed(1).padStart(5)}%  ${t.selfMs.toFixed(0).padStart(7)} ms  ${t.name}`;
  process.stdout.write(
    `busy ${summary.busyMs.toFixed(0)} ms (idle excluded)\n\nby category\n${summary.byCategory.map(line).join('\n')}\n\n`,
  );
  process.stdout.write(`top ${top} functions by self time\n${summary.byFunction.slice(0, top).map(line).join('\n')}\n`);
  if (args.flags.includes('--inclusive'))
    process.stdout.write(
      `\ntop ${top} functions by inclusive time (synchronous callees included)\n${inclusiveTimes(profile)
        .slice(0, top)
        .map(line)
        .join('\n')}\n`,
    );
  if (args.flags.includes('--by-entry'))
    process.stdout.write(
      `\ntop ${top} entries into raftq's code (outermost src/ frame of each sample)\n${entryTimes(profile)
        .slice(0, top)
        .map(line)
        .join('\n')}\n`,
    );
  const busyRunsFlag = args.flags.find((flag) => flag === '--busy-runs' || flag.startsWith('--busy-runs='));
  if (busyRunsFlag !== undefined) {
    const count = busyRunsFlag.includes('=') ? Number(busyRunsFlag.split('=')[1]) : 3;
    for (const run of longestBusyRuns(profile, Number.isInteger(count) && count > 0 ? count : 3))
      process.stdout.write(
        `\nbusy ${run.durationMs.toFixed(1)} ms without idling, from ${run.atMs.toFixed(0)} ms (${run.samples} samples)\n${run.functions
          .slice(0, top)
          .map(line)
          .join('\n')}\n`,
      );
  }
}

if (import.meta.url === `file://${process.argv[1]}`) main();
