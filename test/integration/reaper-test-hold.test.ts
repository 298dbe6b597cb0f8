import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { reaperTestHoldEnv, reaperTestHoldFromEnv } from '../../src/cli/reaper-test-hold.js';
import { makeTempDir } from '../support/temp-dir.js';

const dir = makeTempDir('reaper-hold-unit');
afterAll(() => dir.cleanup());

describe('the test hold on the reaper (RAFTQ_TEST_REAPER_SWEEPS_FILE)', () => {
  it('is off unless the variable names a file', () => {
    expect(reaperTestHoldFromEnv({})).toBeUndefined();
    expect(reaperTestHoldFromEnv({ [reaperTestHoldEnv]: '' })).toBeUndefined();
  });

  it('lets a node complete as many sweeps as the file says, read afresh before each', () => {
    const file = join(dir.path, 'sweeps');
    const hold = reaperTestHoldFromEnv({ [reaperTestHoldEnv]: file });
    writeFileSync(file, '0\n');
    expect(hold?.allowsSweep()).toBe(false);
    writeFileSync(file, '2');
    expect(hold?.allowsSweep()).toBe(true);
    hold?.noteSweep();
    expect(hold?.allowsSweep()).toBe(true);
    hold?.noteSweep();
    expect(hold?.allowsSweep()).toBe(false);
    rmSync(file);
    expect(hold?.allowsSweep()).toBe(true);
    writeFileSync(file, 'not a number');
    expect(hold?.allowsSweep()).toBe(true);
  });
});
