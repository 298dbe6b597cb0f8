/**
 * `raftq recover --data-dir DIR --id ID [--raft-address HOST:PORT]`: the way back from a lost
 * quorum (a majority of the voters gone for good). Offline, on a stopped survivor, it rewrites the
 * configuration in its log so that the node starts as a one-node cluster, itself the only voter,
 * with every entry it holds; grow it back with `raftq members add`.
 *
 * What it keeps: the log and state as they are. Entries up to the commit index were committed;
 * entries after it (up to the last index) were in this node's log but it had not seen them
 * committed: some may have been acknowledged to their clients, some never were. They are kept, and
 * the node commits them once it leads, as any new Raft leader commits the entries of its log (a
 * retried transaction is applied once: its id is recorded). What is lost: whatever the lost nodes
 * committed that never reached this node (past its last index); the command cannot count it, and
 * says so. The configuration record's index becomes the last index, so no conf change entry in the
 * log is ever applied over the new configuration.
 *
 * It refuses to run while a node holds the data directory (LevelDB's lock), on a directory that is
 * not a node's, and for an id the directory's configuration does not name.
 */
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { LevelLogStore, type Membership } from '../cluster/level-log-store.js';
import { parseHostPort } from '../cluster/node-config.js';
import { recoverStateInstall, statePaths } from '../cluster/state-install.js';
import { StateStore } from '../cluster/state-store.js';
import type { LogTailRepair } from '../cluster/log-tail-repair.js';
import { parseFlags, stringFlag, UsageError, type FlagSpec } from './flags.js';

export const recoverFlags: readonly FlagSpec[] = [
  { name: 'data-dir', kind: 'string', description: 'Data directory of the stopped survivor (required)' },
  { name: 'id', kind: 'string', description: 'The id the survivor was served with (required)' },
  // Not --raft-listen: an environment file's RAFTQ_RAFT_LISTEN may be a bind address (0.0.0.0:…), not one to dial.
  {
    name: 'raft-address',
    kind: 'string',
    description: 'Raft address the other nodes dial to reach it',
    defaultText: 'the address its configuration records',
  },
];

/** Shown under the flags by `raftq recover --help`. */
export const recoverHelp = `
Only when a majority of the voters is gone for good (two of three machines lost): run it on ONE
stopped survivor, the one with the highest last index if several survive. It makes that node a
one-node cluster (itself the only voter) with every entry it holds, and prints its last, commit
and applied index: entries after the commit index were in its log but not seen committed (they
are kept and commit at start); anything the lost nodes committed past its last index is lost.
Refuses while a node runs on the directory. Then: raftq serve (same --id and --data-dir), and
grow the cluster back with new, empty nodes (raftq serve --join, raftq members add). Never start
the lost nodes again with their old data. See docs/OPERATIONS.md, "Losing a quorum".`;

export class RecoverRefusedError extends Error {
  constructor(
    readonly dataDir: string,
    readonly reason: string,
  ) {
    super(`will not recover ${dataDir}: ${reason}`);
    this.name = 'RecoverRefusedError';
  }
}

export interface RecoveryReport {
  readonly dataDir: string;
  readonly id: string;
  readonly raftAddress: string;
  readonly term: number;
  readonly lastIndex: number;
  readonly commitIndex: number;
  readonly appliedIndex: number;
  /** Entries after the commit index this node had not seen committed (kept; they commit at start). */
  readonly uncommittedEntries: number;
  /** The configuration before, and the members it no longer has. */
  readonly votersBefore: readonly string[];
  readonly learnersBefore: readonly string[];
  readonly removedMembers: readonly string[];
  /** What the open of the log found damaged and cut back (null: nothing). */
  readonly tailRepair: LogTailRepair | null;
  /** False when the directory already was a one-node cluster of this node: nothing was written. */
  readonly isChanged: boolean;
}

/** The recovery itself, for the command and for tests. */
export async function recoverDataDir(options: {
  dataDir: string;
  id: string;
  raftAddress?: string;
}): Promise<RecoveryReport> {
  const { dataDir, id } = options;
  const paths = statePaths(dataDir);
  const logPath = join(dataDir, 'raft');
  if (!existsSync(logPath))
    throw new RecoverRefusedError(
      dataDir,
      `it holds no Raft log (${logPath}): it is not a raftq node's data directory`,
    );
  const logStore = await openUnlessHeld(dataDir, () =>
    LevelLogStore.open(logPath, { confState: { voters: [], learners: [] }, index: 0, addresses: {} }),
  );
  try {
    await recoverStateInstall(dataDir, logStore);
    if (!existsSync(paths.live)) throw new RecoverRefusedError(dataDir, `it holds no state (${paths.live})`);
    const state = await openUnlessHeld(dataDir, () => StateStore.open(paths.live));
    const appliedIndex = state.appliedIndex;
    await state.close();

    const before = logStore.currentMembership();
    const members = [...before.confState.voters, ...before.confState.learners];
    if (!members.includes(id)) {
      throw new RecoverRefusedError(
        dataDir,
        `its configuration names ${members.join(', ') || 'no member'}, not ${id}: give the --id the node was served with`,
      );
    }
    const raftAddress = options.raftAddress ?? before.addresses[id];
    if (raftAddress === undefined || raftAddress === '')
      throw new RecoverRefusedError(dataDir, `its configuration records no address for ${id}: give --raft-address`);
    parseHostPort('raft-address', raftAddress);

    const hardState = logStore.currentHardState();
    const lastIndex = logStore.lastIndex();
    const isChanged = !(
      before.confState.voters.length === 1 &&
      before.confState.voters[0] === id &&
      before.confState.learners.length === 0 &&
      before.addresses[id] === raftAddress
    );
    if (isChanged) {
      const membership: Membership = {
        confState: { voters: [id], learners: [] },
        index: Math.max(lastIndex, before.index),
        addresses: { [id]: raftAddress },
      };
      await logStore.replaceMembership(membership);
    }
    return {
      dataDir,
      id,
      raftAddress,
      term: hardState.term,
      lastIndex,
      commitIndex: hardState.commit,
      appliedIndex,
      uncommittedEntries: Math.max(0, lastIndex - hardState.commit),
      votersBefore: before.confState.voters,
      learnersBefore: before.confState.learners,
      removedMembers: members.filter((member) => member !== id),
      tailRepair: logStore.tailRepair,
      isChanged,
    };
  } finally {
    await logStore.close();
  }
}

/** Opens a database of `dataDir`, turning LevelDB's lock error into a refusal that says why. */
async function openUnlessHeld<T>(dataDir: string, open: () => Promise<T>): Promise<T> {
  try {
    return await open();
  } catch (error) {
    if (isLockError(error))
      throw new RecoverRefusedError(
        dataDir,
        'a running process holds it (LevelDB lock): stop the node first; recover works only on a stopped node',
      );
    throw error;
  }
}

function isLockError(error: unknown): boolean {
  for (let cause = error; typeof cause === 'object' && cause !== null; cause = (cause as { cause?: unknown }).cause) {
    if ((cause as { code?: unknown }).code === 'LEVEL_LOCKED') return true;
  }
  return false;
}

/** What the operator reads: what the node is now, what it kept, and what may be gone. */
export function describeRecovery(report: RecoveryReport): string {
  const lines: string[] = [];
  const { id, dataDir } = report;
  if (!report.isChanged) {
    lines.push(
      `raftq recover: ${id} at ${dataDir} already is a one-node cluster with ${id} the only voter: nothing changed.`,
    );
  } else {
    lines.push(
      `raftq recover: ${id} at ${dataDir} is now a ONE-NODE CLUSTER, ${id} its only voter (raft address ${report.raftAddress}).`,
    );
    lines.push(
      `  before: voters ${report.votersBefore.join(', ') || '(none)'}; learners ${report.learnersBefore.join(', ') || '(none)'}`,
    );
    lines.push(`  no longer members: ${report.removedMembers.join(', ') || '(none)'}`);
  }
  lines.push(
    `  this node's log: last index ${report.lastIndex}, commit index ${report.commitIndex}, applied index ${report.appliedIndex} (term ${report.term})`,
  );
  const unapplied = report.commitIndex - report.appliedIndex;
  lines.push(
    `  entries up to ${report.commitIndex} were committed and are kept${unapplied > 0 ? ` (the last ${unapplied} are applied when the node starts)` : ''}.`,
  );
  if (report.uncommittedEntries > 0) {
    lines.push(
      `  WARNING: entries ${report.commitIndex + 1}..${report.lastIndex} (${report.uncommittedEntries}) were in this log but this node had not seen them committed.`,
      '    They are kept and commit when the node starts: the lost nodes may have committed and acknowledged them, or their clients',
      '    may never have had an answer (a retried transaction still applies once).',
    );
  }
  lines.push(
    `  WARNING: anything the lost nodes committed after index ${report.lastIndex} never reached this node and is LOST; it cannot be counted from here.`,
  );
  if (report.tailRepair !== null) {
    lines.push(
      `  WARNING: this log's tail was damaged on disk and cut back from index ${report.tailRepair.intactLastIndex} to ${report.tailRepair.keptLastIndex}: entries past it are LOST as well.`,
    );
  }
  if (report.isChanged && report.removedMembers.length > 0) {
    lines.push(
      `  Never start ${report.removedMembers.join(', ')} again with their old data directories: they would still believe in the old cluster.`,
      '  Wipe them, and add new empty nodes (they may reuse the ids) with raftq serve --join and raftq members add.',
    );
  }
  lines.push(`serve it with: raftq serve --id ${id} --data-dir ${dataDir} … (its --raft-listen as before)`);
  return `${lines.join('\n')}\n`;
}

export async function recoverCommand(argv: readonly string[], env: NodeJS.ProcessEnv): Promise<void> {
  const { values, positionals } = parseFlags(argv, recoverFlags, env, { allowConfigFile: false });
  if (positionals.length > 0)
    throw new UsageError(
      `unexpected argument "${positionals[0]}"; usage: raftq recover --data-dir DIR --id ID [--raft-address HOST:PORT]`,
    );
  const dataDirText = stringFlag(values, 'data-dir');
  if (dataDirText === undefined || dataDirText === '')
    throw new UsageError("recover needs --data-dir DIR (the stopped survivor's data directory)");
  const id = stringFlag(values, 'id');
  if (id === undefined || id === '')
    throw new UsageError('recover needs --id ID (the id the survivor was served with)');
  const raftAddress = stringFlag(values, 'raft-address');
  if (raftAddress !== undefined) parseHostPort('raft-address', raftAddress);
  const report = await recoverDataDir({
    dataDir: resolve(dataDirText),
    id,
    ...(raftAddress === undefined ? {} : { raftAddress }),
  });
  process.stdout.write(`${JSON.stringify(report)}\n`);
  process.stdout.write(describeRecovery(report));
}
