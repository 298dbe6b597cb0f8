import { existsSync, mkdirSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import pino from 'pino';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { describeRecovery, recoverDataDir, RecoverRefusedError } from '../../src/cli/recover-command.js';
import { ClusterNode } from '../../src/cluster/cluster-node.js';
import { LevelLogStore } from '../../src/cluster/level-log-store.js';
import { nodeConfigDefaults } from '../../src/cluster/node-config.js';
import { encodeEntryPayload } from '../../src/cluster/state-apply.js';
import { statePaths } from '../../src/cluster/state-install.js';
import { StateStore } from '../../src/cluster/state-store.js';
import { encodeConfChange } from '../../src/raft/conf-change.js';
import { EntryType, type Entry } from '../../src/raft/types.js';
import { encodeKey } from '../../src/storage/key-codec.js';
import { freePort } from '../support/ports.js';
import { makeTempDir } from '../support/temp-dir.js';

const utf8 = new TextEncoder();
const stampMs = 1_700_000_000_000;
const addresses = { n1: '127.0.0.1:1', n2: '127.0.0.1:2', n3: '127.0.0.1:3' };

function putEntry(index: number, key: string): Entry {
  const txn = {
    txnId: `put-${key}`,
    startTsUs: 0,
    nowMs: stampMs,
    readKeys: [],
    writes: [{ kind: 'put' as const, key: encodeKey(['t', key]), value: utf8.encode(key) }],
  };
  return { index, term: 2, type: EntryType.Normal, data: encodeEntryPayload(stampMs * 1000, [txn]) };
}

function confEntry(index: number, change: Parameters<typeof encodeConfChange>[0]): Entry {
  return { index, term: 2, type: EntryType.ConfChange, data: encodeConfChange(change) };
}

/**
 * The data directory of n1, a follower of a three-node cluster that died: its log holds entries 1-6
 * and it had seen 1-4 committed; its state applied up to 1. Entry 3 (committed) removed n3, entry
 * 5 (not seen committed) would have added n4.
 */
async function survivorDataDir(dataDir: string): Promise<void> {
  mkdirSync(dataDir, { recursive: true });
  const log = await LevelLogStore.open(join(dataDir, 'raft'), {
    confState: { voters: ['n1', 'n2', 'n3'], learners: [] },
    index: 0,
    addresses,
  });
  await log.persist({ term: 2, vote: 'n2', commit: 4 }, [
    { index: 1, term: 2, type: EntryType.Normal, data: new Uint8Array(0) },
    putEntry(2, 'committed-a'),
    confEntry(3, { kind: 'removeNode', nodeId: 'n3', context: new Uint8Array(0) }),
    putEntry(4, 'committed-b'),
    confEntry(5, { kind: 'addLearner', nodeId: 'n4', context: utf8.encode('127.0.0.1:4') }),
    putEntry(6, 'not-seen-committed'),
  ]);
  await log.close();
  const state = await StateStore.open(statePaths(dataDir).live);
  await state.close();
}

describe('raftq recover', () => {
  const dir = makeTempDir('recover');
  let node: ClusterNode | null = null;
  afterEach(async () => {
    await node?.close();
    node = null;
  });
  afterAll(() => dir.cleanup());

  it('makes the survivor the only voter, reports its last, commit and applied index, and the node then commits every entry it held', async () => {
    const dataDir = join(dir.path, 'kept');
    await survivorDataDir(dataDir);
    const raftListen = `127.0.0.1:${await freePort()}`;
    const report = await recoverDataDir({ dataDir, id: 'n1', raftAddress: raftListen });
    expect(report).toMatchObject({
      id: 'n1',
      raftAddress: raftListen,
      term: 2,
      lastIndex: 6,
      commitIndex: 4,
      appliedIndex: 0,
      uncommittedEntries: 2,
      votersBefore: ['n1', 'n2', 'n3'],
      learnersBefore: [],
      removedMembers: ['n2', 'n3'],
      tailRepair: null,
      isChanged: true,
    });
    const text = describeRecovery(report);
    expect(text).toContain('is now a ONE-NODE CLUSTER, n1 its only voter');
    expect(text).toContain('last index 6, commit index 4, applied index 0 (term 2)');
    expect(text).toContain('WARNING: entries 5..6 (2) were in this log but this node had not seen them committed');
    expect(text).toContain('anything the lost nodes committed after index 6 never reached this node and is LOST');
    expect(text).toContain('Never start n2, n3 again with their old data directories');

    node = await ClusterNode.open({
      config: { ...nodeConfigDefaults(), tickMs: 20, id: 'n1', dataDir, raftListen, peers: { n1: raftListen } },
      logger: pino({ level: 'silent' }),
      onFatal: (error) => {
        throw error;
      },
    });
    const started = node;
    await started.waitForLeader(10_000);
    expect(started.isLeader()).toBe(true);
    expect(await started.waitApplied(7, 10_000)).toBe(true);
    // Neither the committed removal of n3 nor the uncommitted addition of n4 applies over the new configuration.
    expect(started.confState()).toEqual({ voters: ['n1'], learners: [] });
    expect(started.membership().addresses).toEqual({ n1: raftListen });
    const view = await started.readView({ linearizable: true });
    try {
      for (const key of ['committed-a', 'committed-b', 'not-seen-committed'])
        expect(new TextDecoder().decode(await view.get(encodeKey(['t', key])))).toBe(key);
    } finally {
      view.release();
    }
    const outcome = await started.commit({
      txnId: 'after',
      startTsUs: view.ts,
      nowMs: started.nowMs(),
      readKeys: [],
      writes: [{ kind: 'put', key: encodeKey(['t', 'after']), value: utf8.encode('after') }],
    });
    expect(outcome.kind).toBe('committed');
  });

  it('uses the address the configuration records when no --raft-address is given, and a second run changes nothing', async () => {
    const dataDir = join(dir.path, 'twice');
    await survivorDataDir(dataDir);
    expect((await recoverDataDir({ dataDir, id: 'n1' })).raftAddress).toBe('127.0.0.1:1');
    const again = await recoverDataDir({ dataDir, id: 'n1' });
    expect(again).toMatchObject({ isChanged: false, votersBefore: ['n1'], removedMembers: [] });
    expect(describeRecovery(again)).toContain('already is a one-node cluster');
  });

  it('refuses while a process holds the data directory, and changes nothing', async () => {
    const dataDir = join(dir.path, 'held');
    await survivorDataDir(dataDir);
    const held = await LevelLogStore.open(join(dataDir, 'raft'), {
      confState: { voters: [], learners: [] },
      index: 0,
      addresses: {},
    });
    try {
      const error = await recoverDataDir({ dataDir, id: 'n1' }).catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(RecoverRefusedError);
      expect((error as Error).message).toContain('a running process holds it (LevelDB lock): stop the node first');
      expect(held.currentMembership().confState.voters).toEqual(['n1', 'n2', 'n3']);
    } finally {
      await held.close();
    }
    const reopened = await LevelLogStore.open(join(dataDir, 'raft'), {
      confState: { voters: [], learners: [] },
      index: 0,
      addresses: {},
    });
    expect(reopened.currentMembership().confState.voters).toEqual(['n1', 'n2', 'n3']);
    await reopened.close();
  });

  it("refuses a directory that is not a node's without creating anything in it, and an id its configuration does not name", async () => {
    const empty = join(dir.path, 'empty');
    mkdirSync(empty);
    await expect(recoverDataDir({ dataDir: empty, id: 'n1' })).rejects.toThrow('it holds no Raft log');
    expect(readdirSync(empty)).toEqual([]);
    expect(existsSync(join(dir.path, 'missing'))).toBe(false);
    await expect(recoverDataDir({ dataDir: join(dir.path, 'missing'), id: 'n1' })).rejects.toThrow(RecoverRefusedError);
    expect(existsSync(join(dir.path, 'missing'))).toBe(false);

    const dataDir = join(dir.path, 'wrong-id');
    await survivorDataDir(dataDir);
    await expect(recoverDataDir({ dataDir, id: 'n7' })).rejects.toThrow('its configuration names n1, n2, n3, not n7');
  });
});
