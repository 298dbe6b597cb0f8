import { afterEach, describe, expect, it } from 'vitest';
import pino from 'pino';
import { GrpcTransport, PeerCallError, type TransportHandlers } from '../../src/cluster/grpc-transport.js';
import { loadTlsFiles, type TransportSecurity } from '../../src/cluster/transport-security.js';
import { MessageType, type RaftMessage } from '../../src/raft/types.js';
import { raftMessage } from '../../src/raft/raft-message.js';
import { freePort } from '../support/ports.js';

const silent = pino({ level: 'silent' });

function heartbeat(from: string, to: string, term: number): RaftMessage {
  return raftMessage({ type: MessageType.Heartbeat, from, to, term, commit: term });
}

interface Recorder {
  handlers: TransportHandlers;
  received: RaftMessage[];
  /** The address each received message's sender announced. */
  fromAddresses: string[];
  waitFor(count: number): Promise<void>;
  warnings: string[];
}

function recorder(): Recorder {
  const received: RaftMessage[] = [];
  const fromAddresses: string[] = [];
  let waiter: { count: number; resolve(): void } | null = null;
  const handlers: TransportHandlers = {
    onRaftMessage(message, _fromId, fromAddress) {
      received.push(message);
      fromAddresses.push(fromAddress);
      if (waiter !== null && received.length >= waiter.count) waiter.resolve();
    },
    onSnapshot: async () => ({ isInstalled: false, error: 'not in this test' }),
    onPeerUnreachable: () => {},
    onOpStream: (call) => call.end(),
    forwardTxns: async () => ({ results: [] }),
    readIndex: async () => ({ isLeader: true, readIndex: 42 }),
    addMember: async () => ({ isAccepted: false }),
    removeMember: async () => ({ isAccepted: false }),
    transferLeader: async () => ({ isAccepted: false }),
    status: async () => ({ id: 'x', role: 'follower', term: 3, leader: '', commitIndex: 0, appliedIndex: 0 }),
    clockSample: async () => ({ nowMs: 1234.5, isLeader: true }),
  };
  return {
    handlers,
    received,
    fromAddresses,
    warnings: [],
    waitFor: (count) =>
      new Promise<void>((resolve) => {
        if (received.length >= count) return resolve();
        waiter = { count, resolve };
      }),
  };
}

describe('GrpcTransport', () => {
  const open: GrpcTransport[] = [];
  afterEach(async () => {
    await Promise.all(open.splice(0).map((t) => t.close()));
  });

  async function start(
    id: string,
    security: TransportSecurity,
    rec: Recorder,
    logger = silent,
  ): Promise<GrpcTransport> {
    const port = await freePort();
    const transport = await GrpcTransport.start({
      selfId: id,
      groupId: 1,
      listenAddress: `127.0.0.1:${port}`,
      security,
      handlers: rec.handlers,
      logger,
      jitter: () => 0.5,
    });
    open.push(transport);
    return transport;
  }

  it('delivers Raft messages over a link in the order they were sent', async () => {
    const security = { clusterSecret: 's3cret', tls: null };
    const a = await start('a', security, recorder());
    const bRec = recorder();
    const b = await start('b', security, bRec);
    a.setPeer('b', `127.0.0.1:${b.port}`);
    for (let term = 1; term <= 50; term++) a.sendRaft(heartbeat('a', 'b', term));
    await bRec.waitFor(50);
    expect(bRec.received.map((m) => m.term)).toEqual(Array.from({ length: 50 }, (_, i) => i + 1));
    expect(bRec.received[0]?.type).toBe(MessageType.Heartbeat);
  });

  it('hands each Raft message over with the address its sender announces (none when it has none)', async () => {
    const security = { clusterSecret: 's3cret', tls: null };
    const bRec = recorder();
    const b = await start('b', security, bRec);
    let announced = '';
    const aPort = await freePort();
    const a = await GrpcTransport.start({
      selfId: 'a',
      groupId: 1,
      listenAddress: `127.0.0.1:${aPort}`,
      security,
      handlers: recorder().handlers,
      logger: silent,
      jitter: () => 0.5,
      announcedAddress: () => announced,
    });
    open.push(a);
    a.setPeer('b', `127.0.0.1:${b.port}`);
    a.sendRaft(heartbeat('a', 'b', 1));
    announced = `a.example:${aPort}`;
    a.sendRaft(heartbeat('a', 'b', 2));
    await bRec.waitFor(2);
    expect(bRec.fromAddresses).toEqual(['', `a.example:${aPort}`]);
  });

  it('answers unary cluster calls with the handler result', async () => {
    const security = { clusterSecret: 's3cret', tls: null };
    const a = await start('a', security, recorder());
    const b = await start('b', security, recorder());
    a.setPeer('b', `127.0.0.1:${b.port}`);
    const answer = await a.call('b', 'readIndex', { groupId: 1, from: 'a' }, 2_000);
    expect(answer.readIndex).toBe(42);
    const clock = await a.call('b', 'clockSample', { groupId: 1, from: 'a' }, 2_000);
    expect(clock.nowMs).toBe(1234.5);
  });

  it('refuses and logs calls that carry the wrong cluster secret', async () => {
    const lines: string[] = [];
    const logger = pino({ level: 'warn' }, { write: (line: string) => lines.push(line) });
    const bRec = recorder();
    const b = await start('b', { clusterSecret: 'right', tls: null }, bRec, logger);
    const a = await start('a', { clusterSecret: 'wrong', tls: null }, recorder());
    a.setPeer('b', `127.0.0.1:${b.port}`);
    const failure = await a.call('b', 'status', { groupId: 1 }, 2_000).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(PeerCallError);
    expect((failure as PeerCallError).grpcCode).toBe(16);
    a.sendRaft(heartbeat('a', 'b', 1));
    const rightA = await start('a2', { clusterSecret: 'right', tls: null }, recorder());
    rightA.setPeer('b', `127.0.0.1:${b.port}`);
    rightA.sendRaft(heartbeat('a2', 'b', 9));
    await bRec.waitFor(1);
    expect(bRec.received.map((m) => m.from)).toEqual(['a2']);
    expect(
      lines.some((line) => line.includes('wrong or missing cluster secret') && line.includes('"senderId":"a"')),
    ).toBe(true);
  });

  it('drops messages beyond the send queue bound while the peer is down', async () => {
    const security = { clusterSecret: '', tls: null };
    const a = await start('a', security, recorder());
    const deadPort = await freePort();
    a.setPeer('b', `127.0.0.1:${deadPort}`);
    let accepted = 0;
    for (let i = 0; i < 10_000; i++) if (a.sendRaft(heartbeat('a', 'b', i + 1))) accepted += 1;
    const stats = a.linkStats()['b'];
    expect(accepted).toBeLessThan(10_000);
    expect(stats?.dropped).toBe(10_000 - accepted);
    expect(stats?.queued).toBeLessThanOrEqual(4_096);
  });

  it('reconnects to a peer that comes up after messages were first sent', async () => {
    const security = { clusterSecret: 'k', tls: null };
    const a = await start('a', security, recorder());
    const port = await freePort();
    a.setPeer('b', `127.0.0.1:${port}`);
    a.sendRaft(heartbeat('a', 'b', 1));
    const bRec = recorder();
    const b = await GrpcTransport.start({
      selfId: 'b',
      groupId: 1,
      listenAddress: `127.0.0.1:${port}`,
      security,
      handlers: bRec.handlers,
      logger: silent,
      jitter: () => 0.5,
    });
    open.push(b);
    // Raft keeps sending (heartbeats): keep offering messages until one arrives.
    const arrived = bRec.waitFor(1);
    let term = 2;
    const timer = setInterval(() => a.sendRaft(heartbeat('a', 'b', term++)), 50);
    await arrived;
    clearInterval(timer);
    expect(bRec.received.length).toBeGreaterThan(0);
  });

  it('talks over mutual TLS, and refuses a peer whose certificate another CA signed', async () => {
    const fixture = (name: string): string => new URL(`./fixtures/tls/${name}`, import.meta.url).pathname;
    const trusted = {
      clusterSecret: 'k',
      tls: loadTlsFiles({ certFile: fixture('node.pem'), keyFile: fixture('node-key.pem'), caFile: fixture('ca.pem') }),
    };
    const bRec = recorder();
    const b = await start('b', trusted, bRec);
    const a = await start('a', trusted, recorder());
    a.setPeer('b', `127.0.0.1:${b.port}`);
    expect((await a.call('b', 'readIndex', { groupId: 1, from: 'a' }, 5_000)).readIndex).toBe(42);
    const rogue = await start(
      'rogue',
      {
        clusterSecret: 'k',
        tls: loadTlsFiles({
          certFile: fixture('rogue.pem'),
          keyFile: fixture('rogue-key.pem'),
          caFile: fixture('ca.pem'),
        }),
      },
      recorder(),
    );
    rogue.setPeer('b', `127.0.0.1:${b.port}`);
    const failure = await rogue
      .call('b', 'readIndex', { groupId: 1, from: 'rogue' }, 3_000)
      .catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(PeerCallError);
    const plain = await start('plain', { clusterSecret: 'k', tls: null }, recorder());
    plain.setPeer('b', `127.0.0.1:${b.port}`);
    expect(
      await plain.call('b', 'readIndex', { groupId: 1, from: 'plain' }, 3_000).catch((error: unknown) => error),
    ).toBeInstanceOf(PeerCallError);
  });
});
