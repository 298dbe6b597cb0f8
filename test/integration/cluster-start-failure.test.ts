import { createServer, type Server } from 'node:net';
import { afterAll, describe, expect, it } from 'vitest';
import { ProcessCluster } from './cluster-harness.js';

describe('a node that fails to start in an integration test', () => {
  let cluster: ProcessCluster | undefined;
  let blocker: Server | undefined;
  afterAll(async () => {
    await cluster?.close();
    await new Promise<void>((resolve) => (blocker === undefined ? resolve() : blocker.close(() => resolve())));
  });

  it('is reported with how it exited, the port it could not bind, and the end of its log', async () => {
    cluster = await ProcessCluster.empty();
    const spec = await cluster.allocate('n1');
    blocker = createServer();
    await new Promise<void>((resolve) => blocker?.listen(spec.sqsPort, '127.0.0.1', () => resolve()));
    cluster.spawnNode('n1', { peers: ['n1'] });
    const error = await cluster.waitReady('n1', 20_000).catch((caught: unknown) => caught as Error);
    expect(error).toBeInstanceOf(Error);
    expect((error as Error).message).toMatch(
      /node n1 exited during start-up \(exit code \d+\) — a port it was given was taken/,
    );
    expect((error as Error).message).toContain(`sqs ${spec.sqsPort}`);
    expect((error as Error).message).toMatch(/EADDRINUSE/);
  });
});
