import { afterEach, describe, expect, it } from 'vitest';
import pino from 'pino';
import { RaftqError } from '../../src/base/errors.js';
import { ForwardedOperationLostError, RemoteOperationError } from '../../src/cluster/errors.js';
import { GrpcTransport, type TransportHandlers } from '../../src/cluster/grpc-transport.js';
import { NodeMetrics } from '../../src/cluster/node-metrics.js';
import { OpStreamClient, chunksByBytes } from '../../src/cluster/op-stream-client.js';
import { OpStreamServer, type OpHandler } from '../../src/cluster/op-stream-server.js';
import { freePort } from '../support/ports.js';

/** The leader's and a follower's ends of the operation stream over a real gRPC transport. */

class MissingThingError extends RaftqError {
  readonly code = 'QueueDoesNotExist';
}

const encoder = new TextEncoder();
const decoder = new TextDecoder();

const handler: OpHandler = async (kind, args, { signal }) => {
  if (kind === 1) return encoder.encode(decoder.decode(args).toUpperCase());
  if (kind === 2) throw new MissingThingError('The specified queue does not exist: q');
  // kind 3: a long poll, until its caller cancels it.
  await new Promise<void>((resolve) =>
    signal.aborted ? resolve() : signal.addEventListener('abort', () => resolve(), { once: true }),
  );
  return encoder.encode('woke');
};

function stubHandlers(onOpStream: TransportHandlers['onOpStream']): TransportHandlers {
  return {
    onRaftMessage: () => {},
    onSnapshot: async () => ({ isInstalled: false }),
    onPeerUnreachable: () => {},
    onOpStream,
    forwardTxns: async () => ({ results: [] }),
    readIndex: async () => ({ isLeader: false, readIndex: 0 }),
    addMember: async () => ({ isAccepted: false }),
    removeMember: async () => ({ isAccepted: false }),
    transferLeader: async () => ({ isAccepted: false }),
    status: async () => ({ id: 'x', role: 'follower', term: 0, leader: '', commitIndex: 0, appliedIndex: 0 }),
    clockSample: async () => ({ nowMs: 0, isLeader: false }),
  };
}

describe('chunksByBytes', () => {
  it('keeps runs within opBatchBytesMax and lets a larger item travel alone', () => {
    const mib = 1_048_576;
    expect(chunksByBytes([1, 1, 1, 1, 1, 6, 2, 2], (n) => n * mib)).toEqual([[1, 1, 1, 1], [1], [6], [2, 2]]);
    expect(chunksByBytes([], () => 0)).toEqual([]);
  });
});

describe('the operation stream', () => {
  const open: GrpcTransport[] = [];
  afterEach(async () => {
    await Promise.all(open.splice(0).map((t) => t.close()));
  });

  async function pair(options: { isLeader: boolean }): Promise<{
    client: OpStreamClient;
    leader: GrpcTransport;
    server: OpStreamServer;
    batchesSeen: () => number;
    metrics: NodeMetrics;
  }> {
    let batches = 0;
    const metrics = new NodeMetrics({ isProcessMetricsOn: false });
    const server = new OpStreamServer({
      groupId: 1,
      metrics,
      isLeader: () => options.isLeader,
      isStopping: () => false,
      leaderHint: () => 'n9',
    });
    server.setHandler(handler);
    const security = { clusterSecret: 'k', tls: null };
    const leader = await GrpcTransport.start({
      selfId: 'b',
      groupId: 1,
      listenAddress: `127.0.0.1:${await freePort()}`,
      security,
      logger: pino({ level: 'silent' }),
      jitter: () => 0.5,
      handlers: stubHandlers((call) => {
        call.on('data', () => batches++);
        server.serve(call);
      }),
    });
    const follower = await GrpcTransport.start({
      selfId: 'a',
      groupId: 1,
      listenAddress: `127.0.0.1:${await freePort()}`,
      security,
      logger: pino({ level: 'silent' }),
      jitter: () => 0.5,
      handlers: stubHandlers((call) => call.end()),
    });
    open.push(follower, leader);
    follower.setPeer('b', `127.0.0.1:${leader.port}`);
    const client = new OpStreamClient({ groupId: 1, open: (peerId) => follower.openOpStream(peerId) });
    return { client, leader, server, batchesSeen: () => batches, metrics };
  }

  it('carries many calls in one message and matches each answer to its call', async () => {
    const { client, batchesSeen } = await pair({ isLeader: true });
    const words = Array.from({ length: 50 }, (_, i) => `word${i}`);
    const answers = await Promise.all(words.map((word) => client.call('b', 1, encoder.encode(word), { waitMs: 0 })));
    expect(answers.map((a) => (a.kind === 'result' ? decoder.decode(a.result) : a.kind))).toEqual(
      words.map((w) => w.toUpperCase()),
    );
    expect(batchesSeen()).toBe(1);
  });

  it("times every call it ran, answered with a result or the leader's error, in raftq_served_forwarded_op_seconds", async () => {
    const { client, metrics } = await pair({ isLeader: true });
    await client.call('b', 1, encoder.encode('x'), { waitMs: 0 });
    await client.call('b', 2, new Uint8Array(0), { waitMs: 0 }).catch(() => undefined);
    const histogram = await metrics.servedForwardedOpSeconds.get();
    const count = histogram.values.find((v) => v.metricName === 'raftq_served_forwarded_op_seconds_count');
    expect(count?.value).toBe(2);
  });

  it('splits a burst of large calls into messages inside the size bound, and answers them all', async () => {
    const { client, batchesSeen } = await pair({ isLeader: true });
    const large = Array.from({ length: 6 }, (_, i) => encoder.encode(String(i).repeat(1_500_000)));
    const answers = await Promise.all(large.map((args) => client.call('b', 1, args, { waitMs: 0 })));
    expect(answers.map((a) => (a.kind === 'result' ? a.result.byteLength : 0))).toEqual(
      large.map((args) => args.byteLength),
    );
    // Two 1.5 MB calls fit under opBatchBytesMax (4 MiB); a third would not.
    expect(batchesSeen()).toBe(3);
  });

  it("brings back the leader's error with its code, message and retryability", async () => {
    const { client } = await pair({ isLeader: true });
    const failure = await client.call('b', 2, new Uint8Array(0), { waitMs: 0 }).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(RemoteOperationError);
    expect(failure).toMatchObject({
      code: 'QueueDoesNotExist',
      message: 'The specified queue does not exist: q',
      isRetryable: false,
    });
  });

  it('answers "not leader" without running anything on a node that does not lead', async () => {
    const { client } = await pair({ isLeader: false });
    expect(await client.call('b', 1, encoder.encode('x'), { waitMs: 0 })).toEqual({
      kind: 'not-leader',
      leaderHint: 'n9',
    });
  });

  it('ends a long poll on the leader when its caller cancels it, and still answers', async () => {
    const { client } = await pair({ isLeader: true });
    const controller = new AbortController();
    const polling = client.call('b', 3, new Uint8Array(0), { waitMs: 60_000, signal: controller.signal });
    // Another call's answer shows that the poll reached the leader before it is cancelled.
    await client.call('b', 1, encoder.encode('x'), { waitMs: 0 });
    controller.abort();
    const answer = await polling;
    expect(answer.kind === 'result' ? decoder.decode(answer.result) : answer.kind).toBe('woke');
  });

  it('ends the waits of running calls when the node steps down, and still answers them', async () => {
    const { client, server } = await pair({ isLeader: true });
    const polling = client.call('b', 3, new Uint8Array(0), { waitMs: 60_000 });
    await client.call('b', 1, encoder.encode('x'), { waitMs: 0 });
    server.steppedDown();
    const answer = await polling;
    expect(answer.kind === 'result' ? decoder.decode(answer.result) : answer.kind).toBe('woke');
  });

  it('fails a call in flight as lost when the stream breaks', async () => {
    const { client, leader } = await pair({ isLeader: true });
    const polling = client.call('b', 3, new Uint8Array(0), { waitMs: 60_000 });
    await client.call('b', 1, encoder.encode('x'), { waitMs: 0 });
    await leader.close();
    await expect(polling).rejects.toBeInstanceOf(ForwardedOperationLostError);
  });
});
