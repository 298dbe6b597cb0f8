import { describe, expect, it } from 'vitest';
import { summarizeHeapProfile, type HeapProfile } from '../../bench/profile/heap-profile-summary.js';

interface ProfileNode {
  readonly callFrame: { readonly functionName: string; readonly url: string; readonly lineNumber: number };
  readonly selfSize: number;
  readonly children: readonly ProfileNode[];
}

function node(functionName: string, file: string, selfSize: number, children: ProfileNode[] = []): ProfileNode {
  return {
    callFrame: { functionName, url: file === '' ? '' : `file:///x/dist/src/${file}`, lineNumber: 0 },
    selfSize,
    children,
  };
}

describe('heap profile summaries', () => {
  it('adds up what each function allocated itself and with what it called, largest first', () => {
    const profile: HeapProfile = {
      head: node('(root)', '', 0, [
        node('serve', 'sqs/server.js', 10, [node('read', 'queue/store.js', 40), node('encode', 'sqs/json.js', 20)]),
        node('apply', 'storage/apply.js', 5, [node('read', 'queue/store.js', 25)]),
      ]),
    };
    const summary = summarizeHeapProfile(profile);
    expect(summary.totalBytes).toBe(100);
    expect(summary.bySelf.map((row) => [row.name, row.bytes])).toEqual([
      ['read src/queue/store.js:1', 65],
      ['encode src/sqs/json.js:1', 20],
      ['serve src/sqs/server.js:1', 10],
      ['apply src/storage/apply.js:1', 5],
    ]);
    expect(summary.byInclusive.find((row) => row.name === 'serve src/sqs/server.js:1')?.bytes).toBe(70);
    expect(summary.byInclusive.find((row) => row.name === 'apply src/storage/apply.js:1')?.bytes).toBe(30);
    expect(summary.bySelf[0]?.share).toBeCloseTo(0.65);
  });

  it('counts a recursive function once per path in its inclusive bytes', () => {
    const profile: HeapProfile = {
      head: node('(root)', '', 0, [
        node('encodeValue', 'sqs/json.js', 3, [
          node('encodeValue', 'sqs/json.js', 2, [node('encodeValue', 'sqs/json.js', 1)]),
        ]),
      ]),
    };
    const summary = summarizeHeapProfile(profile);
    expect(summary.byInclusive).toEqual([{ name: 'encodeValue src/sqs/json.js:1', bytes: 6, share: 1 }]);
    expect(summary.bySelf).toEqual([{ name: 'encodeValue src/sqs/json.js:1', bytes: 6, share: 1 }]);
  });
});
