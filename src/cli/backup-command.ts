/**
 * `raftq backup --admin HOST:PORT --out FILE`: a consistent backup of a running cluster, through
 * any node's admin port (GET /backup), without stopping anything. The bytes go to FILE.partial and
 * are checked end to end (end marker and checksum) before the rename to FILE, so FILE is always a
 * complete backup.
 */
import { createReadStream, createWriteStream, renameSync, rmSync } from 'node:fs';
import { resolve } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { decodeBackup, type BackupHeader } from '../admin/backup-format.js';
import { adminSecretHeader, fetchAdmin } from './admin-client.js';
import { parseFlags, stringFlag, UsageError, type FlagSpec } from './flags.js';

export const backupFlags: readonly FlagSpec[] = [
  {
    name: 'admin',
    kind: 'string',
    description: 'Admin address of any node of the cluster',
    defaultText: '127.0.0.1:9325',
  },
  { name: 'out', kind: 'string', description: 'File to write the backup to (required)' },
  { name: 'cluster-secret', kind: 'string', description: 'The cluster secret, when the cluster has one' },
  { name: 'admin-token', kind: 'string', description: "The node's --admin-token, when its admin port has one" },
];

export class BackupDownloadError extends Error {
  constructor(
    readonly admin: string,
    readonly status: number,
    message: string,
  ) {
    super(`backup from ${admin} failed: ${status} ${message}`);
    this.name = 'BackupDownloadError';
  }
}

/** Checks a backup file from end to end without writing anything. */
export async function verifyBackupFile(
  path: string,
): Promise<{ header: BackupHeader; rowCount: number; byteCount: number }> {
  return decodeBackup(createReadStream(path), { onHeader: () => undefined, onRows: async () => undefined });
}

export async function backupCommand(argv: readonly string[], env: NodeJS.ProcessEnv): Promise<void> {
  const { values, positionals } = parseFlags(argv, backupFlags, env, { allowConfigFile: false });
  if (positionals.length > 0) throw new UsageError(`unexpected argument "${positionals[0]}"`);
  const admin = stringFlag(values, 'admin') ?? '127.0.0.1:9325';
  const outText = stringFlag(values, 'out');
  if (outText === undefined || outText === '') throw new UsageError('backup needs --out FILE');
  if (!/^[^/\s]+:\d+$/.test(admin)) throw new UsageError(`--admin must be HOST:PORT, got "${admin}"`);
  const out = resolve(outText);
  const partial = `${out}.partial`;
  const headers: Record<string, string> = {};
  const clusterSecret = stringFlag(values, 'cluster-secret') ?? '';
  const adminToken = stringFlag(values, 'admin-token') ?? '';
  if (clusterSecret !== '') headers[adminSecretHeader] = clusterSecret;
  if (adminToken !== '') headers['authorization'] = `Bearer ${adminToken}`;
  const startedMs = Date.now();
  const response = await fetchAdmin(admin, '/backup', { headers }, null);
  if (!response.ok || response.body === null)
    throw new BackupDownloadError(admin, response.status, (await response.text()).trim());
  try {
    await pipeline(
      Readable.fromWeb(response.body as import('node:stream/web').ReadableStream<Uint8Array>),
      createWriteStream(partial),
    );
    const summary = await verifyBackupFile(partial);
    renameSync(partial, out);
    process.stdout.write(
      `${JSON.stringify({ file: out, node: summary.header.nodeId, appliedIndex: summary.header.appliedIndex, rows: summary.rowCount, bytes: summary.byteCount, durationMs: Date.now() - startedMs })}\n`,
    );
  } catch (error) {
    rmSync(partial, { force: true });
    throw error;
  }
}
