import { describe, expect, it } from 'vitest';
import {
  categoryOf,
  entryTimes,
  inclusiveTimes,
  summarizeCpuProfile,
  type CpuProfile,
} from '../../bench/profile/cpu-profile-summary.js';
import { longestBusyRuns } from '../../bench/profile/cpu-busy-runs.js';

const frame = (id: number, functionName: string, url: string, children: number[] = []) => ({
  id,
  callFrame: { functionName, url, lineNumber: 0 },
  children,
});

describe('CPU profile summaries', () => {
  it('files each frame under the layer its code belongs to', () => {
    expect(categoryOf(frame(1, '_nextv', 'file:///work/main/node_modules/classic-level/iterator.js'))).toBe('leveldb');
    expect(categoryOf(frame(1, 'getAt', 'file:///work/main/dist/src/storage/mvcc-store.js'))).toBe(
      'mvcc / txn / key codec',
    );
    expect(categoryOf(frame(1, 'verify', 'file:///work/main/dist/src/sqs/sigv4-verifier.js'))).toBe('sigv4');
    expect(categoryOf(frame(1, 'decodeJsonRequest', 'file:///work/main/dist/src/sqs/json-protocol.js'))).toBe(
      'sqs gateway (parse, validate, encode)',
    );
    expect(categoryOf(frame(1, 'step', 'file:///work/main/dist/src/raft/raw-node.js'))).toBe('raft core');
    expect(categoryOf(frame(1, '(garbage collector)', ''))).toBe('garbage collection');
    expect(categoryOf(frame(1, '(idle)', ''))).toBe('idle');
  });

  it('adds up self time from samples and time deltas, leaving idle out of the busy total', () => {
    const profile: CpuProfile = {
      nodes: [
        frame(1, '(root)', '', [2, 3, 4]),
        frame(2, '(idle)', ''),
        frame(3, '_get', 'file:///x/node_modules/classic-level/index.js'),
        frame(4, 'claim', 'file:///x/dist/src/queue/claim-messages.js'),
      ],
      samples: [2, 3, 3, 4, 2],
      timeDeltas: [5_000, 3_000, 3_000, 4_000, 5_000],
    };
    const summary = summarizeCpuProfile(profile);
    expect(summary.busyMs).toBe(10);
    expect(summary.byCategory.map((c) => [c.name, c.selfMs])).toEqual([
      ['leveldb', 6],
      ['queue logic', 4],
    ]);
    expect(summary.byCategory[0]?.share).toBeCloseTo(0.6);
    expect(summary.byFunction[0]?.name).toBe('_get classic-level/index.js:1');
  });

  it('charges Node internals and unnamed native frames to their nearest categorized caller with --by-caller', () => {
    const profile: CpuProfile = {
      nodes: [
        frame(1, '(root)', '', [2, 5]),
        frame(2, 'write', 'file:///x/dist/src/storage/level-engine.js', [3]),
        frame(3, 'subarray', 'node:buffer', [4]),
        frame(4, '', ''),
        frame(5, '(program)', ''),
      ],
      samples: [4, 3, 5],
      timeDeltas: [2_000, 1_000, 4_000],
    };
    expect(summarizeCpuProfile(profile).byCategory.map((c) => [c.name, c.selfMs])).toEqual([
      ['other code', 6],
      ['other node internals', 1],
    ]);
    expect(summarizeCpuProfile(profile, { byCaller: true }).byCategory.map((c) => [c.name, c.selfMs])).toEqual([
      ['other code', 4],
      ['leveldb', 3],
    ]);
  });

  it('ranks functions by inclusive time with --inclusive: each sample once per function on its stack, idle left out', () => {
    const profile: CpuProfile = {
      nodes: [
        frame(1, '(root)', '', [2, 6]),
        frame(2, 'claim', 'file:///x/dist/src/queue/claim.js', [3, 5]),
        frame(3, 'read', 'file:///x/dist/src/queue/store.js', [4]),
        // A recursive call counts once for the sample under it.
        frame(4, 'claim', 'file:///x/dist/src/queue/claim.js'),
        frame(5, 'encode', 'file:///x/dist/src/queue/codec.js'),
        frame(6, '(idle)', ''),
      ],
      samples: [4, 5, 3, 6],
      timeDeltas: [2_000, 1_000, 1_000, 6_000],
    };
    expect(inclusiveTimes(profile).map((t) => [t.name, t.selfMs, t.share])).toEqual([
      ['claim src/queue/claim.js:1', 4, 1],
      ['read src/queue/store.js:1', 3, 0.75],
      ['encode src/queue/codec.js:1', 1, 0.25],
    ]);
  });
});

describe('busy runs of a CPU profile', () => {
  it('finds the longest stretches without an idle sample, longest first, with what each spent its time in', () => {
    const profile: CpuProfile = {
      nodes: [
        frame(1, '(root)', '', [2, 3, 5]),
        frame(2, '(idle)', ''),
        frame(3, 'finishLedgerStep', 'file:///x/dist/src/storage/version-collector.js', [4]),
        frame(4, '_del', 'file:///x/node_modules/classic-level/chained-batch.js'),
        frame(5, 'claim', 'file:///x/dist/src/queue/claim-messages.js'),
      ],
      // idle, a run of two (claim, claim), idle, a run of three (ledger step, its _del twice), idle
      samples: [2, 5, 5, 2, 3, 4, 4, 2],
      timeDeltas: [1_000, 1_000, 1_000, 1_000, 2_000, 2_000, 2_000, 1_000],
    };
    const runs = longestBusyRuns(profile, 5);
    expect(runs.map((r) => [r.atMs, r.durationMs, r.samples])).toEqual([
      [4, 6, 3],
      [1, 2, 2],
    ]);
    expect(runs[0]?.functions.map((f) => [f.name, f.selfMs, f.share])).toEqual([
      ['finishLedgerStep src/storage/version-collector.js:1', 6, 1],
      ['_del classic-level/chained-batch.js:1', 4, 4 / 6],
    ]);
    expect(longestBusyRuns(profile, 1)).toHaveLength(1);
  });

  it('counts a profile that ends busy, and finds none in one that never left idle', () => {
    const endsBusy: CpuProfile = {
      nodes: [
        frame(1, '(root)', '', [2, 3]),
        frame(2, '(idle)', ''),
        frame(3, 'claim', 'file:///x/dist/src/queue/c.js'),
      ],
      samples: [2, 3, 3],
      timeDeltas: [1_000, 1_000, 1_000],
    };
    expect(longestBusyRuns(endsBusy, 3).map((r) => r.durationMs)).toEqual([2]);
    expect(longestBusyRuns({ ...endsBusy, samples: [2, 2] }, 3)).toEqual([]);
  });

  it("charges each busy sample to the outermost frame of raftq's code on its stack, or to its own frame", () => {
    const src = (name: string) => `file:///x/dist/src/${name}.js`;
    const profile: CpuProfile = {
      nodes: [
        frame(1, '(root)', '', [2, 3, 4, 7, 8]),
        frame(2, '(idle)', ''),
        frame(3, 'serveRequest', src('sqs/sqs-server'), [5]),
        frame(4, 'applyRun', src('cluster/committed-entry-applier'), [6]),
        frame(5, 'handle', src('sqs/sqs-request-handler'), [9]),
        frame(6, 'write', 'node:internal/streams/writable'),
        frame(7, '(program)', ''),
        frame(8, 'processTicksAndRejections', 'node:internal/process/task_queues', [4]),
        frame(9, 'writev', ''),
      ],
      samples: [2, 9, 5, 6, 7, 3],
      timeDeltas: [1_000, 4_000, 2_000, 3_000, 5_000, 1_000],
    };
    expect(entryTimes(profile).map(({ name, selfMs }) => [name, selfMs])).toEqual([
      ['serveRequest src/sqs/sqs-server.js:1', 7],
      ['(program)', 5],
      ['applyRun src/cluster/committed-entry-applier.js:1', 3],
    ]);
  });
});
