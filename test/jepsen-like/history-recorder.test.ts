import { afterEach, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import {
  HistoryFileWriter,
  parseHistoryJsonl,
  readHistoryFile,
  HistoryFileFormatError,
} from '../../jepsen-like/history/history-file.js';
import { HistoryRecorder } from '../../jepsen-like/history/history-recorder.js';
import { pairOperations } from '../../jepsen-like/history/operation-pairs.js';
import { makeTempDir } from '../support/temp-dir.js';

const cleanups: Array<() => void> = [];
afterEach(() => cleanups.splice(0).forEach((c) => c()));

describe('history recorder', () => {
  it('retires a process whose operation ended in info and keeps it after ok or fail', () => {
    let now = 0;
    const recorder = new HistoryRecorder(() => now++);
    const p = recorder.newProcess();
    recorder.invoke(p, 'send', { body: 'a' });
    expect(recorder.complete(p, 'ok', {})).toBe(p);
    recorder.invoke(p, 'send', { body: 'b' });
    expect(recorder.complete(p, 'fail', null, 'InvalidParameterValue')).toBe(p);
    recorder.invoke(p, 'send', { body: 'c' });
    const next = recorder.complete(p, 'info', null, 'timeout');
    expect(next).not.toBe(p);
    expect(recorder.history().map((op) => [op.index, op.type, op.timeMs])).toEqual([
      [0, 'invoke', 0],
      [1, 'ok', 1],
      [2, 'invoke', 2],
      [3, 'fail', 3],
      [4, 'invoke', 4],
      [5, 'info', 5],
    ]);
  });

  it('refuses a second operation on a process that has one in flight', () => {
    const recorder = new HistoryRecorder(() => 0);
    recorder.invoke(0, 'send', {});
    expect(() => recorder.invoke(0, 'send', {})).toThrow(/in flight/);
  });

  it('writes history.jsonl as it goes and reads it back identically', () => {
    const dir = makeTempDir('history');
    cleanups.push(dir.cleanup);
    const path = join(dir.path, 'history.jsonl');
    const writer = new HistoryFileWriter(path);
    let now = 0;
    const recorder = new HistoryRecorder(() => (now += 1.5), writer);
    recorder.invoke(0, 'receive', { queue: 'q' }, 'n1');
    recorder.complete(0, 'info', null, 'ECONNRESET');
    recorder.invoke(1, 'send', { queue: 'q', body: 'x' });
    writer.close();
    const read = readHistoryFile(path);
    expect(read).toEqual(recorder.history());
    const pairs = pairOperations(read);
    expect(pairs.map((p) => [p.f, p.outcome, p.completeMs])).toEqual([
      ['receive', 'info', 3],
      ['send', 'info', Number.POSITIVE_INFINITY],
    ]);
  });

  it('names the line of a malformed history file', () => {
    expect(() => parseHistoryJsonl('{"index":0,"process":0,"type":"invoke","f":"x","timeMs":0}\nnope\n')).toThrow(
      HistoryFileFormatError,
    );
    expect(() => parseHistoryJsonl('{"index":0}\n')).toThrow(/line 1/);
  });
});
