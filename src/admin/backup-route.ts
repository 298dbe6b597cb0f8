/**
 * GET /backup: streams the node's state as a backup (see backup-format.ts) while the cluster keeps
 * serving. First a ReadIndex, and a wait until this replica applied it, so that the backup holds
 * every write acknowledged before the call (on any node); then one frozen LevelDB view, so the
 * backup is the state at exactly one applied index. Followers answer as well as the leader: a
 * backup taken from a follower costs the leader nothing but the ReadIndex.
 */
import type { ServerResponse } from 'node:http';
import type { Logger } from 'pino';
import { raftLimits } from '../base/limits.js';
import type { ClusterNode } from '../cluster/cluster-node.js';
import { encodeBackup } from './backup-format.js';
import { HttpError } from './http-json.js';

export async function streamBackup(node: ClusterNode, response: ServerResponse, logger: Logger): Promise<void> {
  const index = await node.readIndex();
  if (!(await node.waitApplied(index, raftLimits.readIndexTimeoutMs.value))) {
    throw new HttpError(503, `this node did not apply index ${index} in time; try again or ask another node`);
  }
  const { reader, appliedIndex } = await node.freezeState();
  const startedMs = Date.now();
  let sentBytes = 0;
  try {
    response.writeHead(200, {
      'content-type': 'application/octet-stream',
      'content-disposition': `attachment; filename="raftq-${node.id}-${appliedIndex}.backup"`,
      'x-raftq-applied-index': String(appliedIndex),
    });
    for await (const bytes of encodeBackup(
      { nodeId: node.id, appliedIndex, createdAtMs: startedMs },
      reader,
      raftLimits.snapshotChunkBytes.value,
    )) {
      sentBytes += bytes.byteLength;
      // Respect back-pressure: a slow reader must not make the node buffer the whole state.
      if (!response.write(bytes))
        await new Promise<void>((resolve, reject) => {
          const onDrain = (): void => {
            response.off('close', onClose);
            resolve();
          };
          const onClose = (): void => {
            response.off('drain', onDrain);
            reject(new Error('the backup client went away'));
          };
          response.once('drain', onDrain);
          response.once('close', onClose);
        });
    }
    response.end();
    logger.info({ appliedIndex, bytes: sentBytes, durationMs: Date.now() - startedMs }, 'streamed a backup');
  } finally {
    await reader.release().catch(() => undefined);
  }
}
