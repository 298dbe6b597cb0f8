import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { LevelLogStore } from '../../src/cluster/level-log-store.js';
import { recoverStateInstall, statePaths, swapInSnapshot, type InstallStep } from '../../src/cluster/state-install.js';
import { EntryType } from '../../src/raft/types.js';
import { LevelEngine } from '../../src/storage/level-engine.js';
import { makeTempDir } from '../support/temp-dir.js';

const membership = {
  confState: { voters: ['n1', 'n2', 'n3'], learners: [] },
  index: 0,
  addresses: { n1: 'a:1', n2: 'a:2', n3: 'a:3' },
};
const marker = { meta: { index: 40, term: 2, confState: membership.confState }, addresses: membership.addresses };
const tag = Uint8Array.of(0x01, 0x42);

async function writeDb(path: string, value: string): Promise<void> {
  const engine = await LevelEngine.open(path);
  await engine.write([{ kind: 'put', key: tag, value: new TextEncoder().encode(value) }], { sync: true });
  await engine.close();
}

async function readDb(path: string): Promise<string | undefined> {
  const engine = await LevelEngine.open(path);
  const value = await engine.get(tag);
  await engine.close();
  return value === undefined ? undefined : new TextDecoder().decode(value);
}

class SimulatedCrash extends Error {}

describe('swapping a received snapshot in', () => {
  const dirs: Array<() => void> = [];
  afterEach(() => {
    for (const cleanup of dirs.splice(0)) cleanup();
  });

  async function prepare(): Promise<{ dataDir: string; log: LevelLogStore }> {
    const dir = makeTempDir('install');
    dirs.push(dir.cleanup);
    const dataDir = join(dir.path, 'data');
    mkdirSync(dataDir);
    const paths = statePaths(dataDir);
    await writeDb(paths.live, 'old');
    await writeDb(paths.incoming, 'new');
    const log = await LevelLogStore.open(join(dataDir, 'raft'), membership);
    await log.persist(
      { term: 1, vote: 'n1', commit: 3 },
      [1, 2, 3].map((index) => ({ index, term: 1, type: EntryType.Normal, data: new Uint8Array(0) })),
    );
    return { dataDir, log };
  }

  for (const crashAfter of ['marker-written', 'state-renamed', 'log-recorded'] as InstallStep[]) {
    it(`leaves a usable node when the process dies after step "${crashAfter}"`, async () => {
      const { dataDir, log } = await prepare();
      await expect(
        swapInSnapshot(dataDir, marker, log, {
          afterStep: (step) => {
            if (step === crashAfter) throw new SimulatedCrash(step);
          },
        }),
      ).rejects.toBeInstanceOf(SimulatedCrash);
      await log.close();
      const reopened = await LevelLogStore.open(join(dataDir, 'raft'), membership);
      const finished = await recoverStateInstall(dataDir, reopened);
      expect(finished?.meta.index).toBe(40);
      const paths = statePaths(dataDir);
      expect(await readDb(paths.live)).toBe('new');
      expect(existsSync(paths.incoming) || existsSync(paths.previous) || existsSync(paths.marker)).toBe(false);
      expect(reopened.snapshot().meta.index).toBe(40);
      expect(reopened.firstIndex()).toBe(41);
      await reopened.close();
    });
  }

  it('completes without a crash', async () => {
    const { dataDir, log } = await prepare();
    await swapInSnapshot(dataDir, marker, log);
    expect(await readDb(statePaths(dataDir).live)).toBe('new');
    expect(log.lastIndex()).toBe(40);
    await log.close();
  });

  it('discards a partial download that no marker vouches for', async () => {
    const { dataDir, log } = await prepare();
    expect(await recoverStateInstall(dataDir, log)).toBeNull();
    const paths = statePaths(dataDir);
    expect(existsSync(paths.incoming)).toBe(false);
    expect(await readDb(paths.live)).toBe('old');
    expect(log.lastIndex()).toBe(3);
    await log.close();
  });
});
