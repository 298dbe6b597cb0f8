/**
 * `raftq restore FILE --data-dir DIR [--id n1] [--raft-listen HOST:PORT]`: turns a backup into
 * the data directory of a one-node cluster. Afterwards `raftq serve --data-dir DIR` (same id)
 * serves the restored queues and messages and can be grown with `raftq members add`.
 *
 * The backup becomes a Raft snapshot at the backup's applied index, with this node as the only
 * voter, installed by the same crash-safe steps a follower uses for a snapshot from its leader
 * (state-install.ts): the rows go to DIR/state-incoming, then the swap records the snapshot in a
 * new log. The hard state starts at term 1 with the commit index at the snapshot, so the node
 * neither replays nor re-elects below it.
 */
import { createReadStream, existsSync, mkdirSync, readdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { decodeBackup, type BackupHeader } from '../admin/backup-format.js';
import { LevelLogStore } from '../cluster/level-log-store.js';
import { parseHostPort } from '../cluster/node-config.js';
import { StateStore } from '../cluster/state-store.js';
import { statePaths, swapInSnapshot } from '../cluster/state-install.js';
import { LevelEngine } from '../storage/level-engine.js';
import { MvccStore } from '../storage/mvcc-store.js';
import { parseFlags, stringFlag, UsageError, type FlagSpec } from './flags.js';

export const restoreFlags: readonly FlagSpec[] = [
  { name: 'data-dir', kind: 'string', description: 'New, empty data directory for the restored node (required)' },
  {
    name: 'id',
    kind: 'string',
    description: 'Id of the restored node; serve it with the same --id',
    defaultText: 'n1',
  },
  {
    name: 'raft-listen',
    kind: 'string',
    description: 'Raft address recorded for the node; serve it with the same --raft-listen',
    defaultText: '127.0.0.1:9326',
  },
];

export class RestoreRefusedError extends Error {
  constructor(
    readonly dataDir: string,
    readonly reason: string,
  ) {
    super(`will not restore into ${dataDir}: ${reason}`);
    this.name = 'RestoreRefusedError';
  }
}

/** The restore itself, for the command and for tests. */
export async function restoreBackup(options: {
  file: string;
  dataDir: string;
  id: string;
  raftListen: string;
}): Promise<{ header: BackupHeader; rowCount: number; stateDigest: string }> {
  const { dataDir, id } = options;
  if (existsSync(dataDir) && readdirSync(dataDir).length > 0)
    throw new RestoreRefusedError(dataDir, 'it is not empty (a restore only ever makes a new node)');
  mkdirSync(dataDir, { recursive: true });
  const paths = statePaths(dataDir);
  const engine = await LevelEngine.open(paths.incoming);
  let summary: { header: BackupHeader; rowCount: number };
  try {
    summary = await decodeBackup(createReadStream(options.file), {
      onHeader: () => undefined,
      onRows: (rows) =>
        engine.write(
          rows.map((row) => ({ kind: 'put' as const, key: row.key, value: row.value })),
          { sync: false },
        ),
    });
    await engine.flush();
  } finally {
    await engine.close();
  }
  const appliedIndex = summary.header.appliedIndex;
  await checkAppliedIndex(paths.incoming, appliedIndex);
  if (appliedIndex < 1) throw new RestoreRefusedError(dataDir, 'the backup holds no applied entry');
  const addresses = { [id]: options.raftListen };
  const confState = { voters: [id], learners: [] };
  const logStore = await LevelLogStore.open(join(dataDir, 'raft'), { confState, index: 0, addresses });
  try {
    await swapInSnapshot(dataDir, { meta: { index: appliedIndex, term: 1, confState }, addresses }, logStore);
    await logStore.persist({ term: 1, vote: '', commit: appliedIndex }, []);
  } finally {
    await logStore.close();
  }
  const state = await StateStore.open(paths.live);
  try {
    const { digest } = await state.digest();
    return { header: summary.header, rowCount: summary.rowCount, stateDigest: digest };
  } finally {
    await state.close();
  }
}

/** The rows must carry the applied index the header names: a mismatch is a damaged or foreign file. */
async function checkAppliedIndex(path: string, expected: number): Promise<void> {
  const engine = await LevelEngine.open(path);
  try {
    const mvcc = await MvccStore.open(engine);
    if (mvcc.appliedIndex !== expected)
      throw new RestoreRefusedError(
        path,
        `the rows are at applied index ${mvcc.appliedIndex}, the header says ${expected}`,
      );
  } finally {
    await engine.close();
  }
}

export async function restoreCommand(argv: readonly string[], env: NodeJS.ProcessEnv): Promise<void> {
  const { values, positionals } = parseFlags(argv, restoreFlags, env, { allowConfigFile: false });
  const [file, ...extra] = positionals;
  if (file === undefined || extra.length > 0)
    throw new UsageError('usage: raftq restore FILE --data-dir DIR [--id n1] [--raft-listen HOST:PORT]');
  const dataDirText = stringFlag(values, 'data-dir');
  if (dataDirText === undefined || dataDirText === '')
    throw new UsageError('restore needs --data-dir DIR (a new, empty directory)');
  const id = stringFlag(values, 'id') ?? 'n1';
  const raftListen = stringFlag(values, 'raft-listen') ?? '127.0.0.1:9326';
  parseHostPort('raft-listen', raftListen);
  const dataDir = resolve(dataDirText);
  const result = await restoreBackup({ file: resolve(file), dataDir, id, raftListen });
  process.stdout.write(
    `${JSON.stringify({ dataDir, id, raftListen, appliedIndex: result.header.appliedIndex, fromNode: result.header.nodeId, rows: result.rowCount, stateDigest: result.stateDigest })}\n`,
  );
  process.stdout.write(`serve it with: raftq serve --id ${id} --data-dir ${dataDir} --raft-listen ${raftListen}\n`);
}
