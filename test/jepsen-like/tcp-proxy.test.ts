import { afterEach, describe, expect, it } from 'vitest';
import { connect, createServer, type Server, type Socket } from 'node:net';
import { TcpProxy } from '../../jepsen-like/proxy/tcp-proxy.js';

const closers: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
});

/** An echo server that counts the bytes it received. */
async function echoServer(): Promise<{ port: number; received: () => number }> {
  let received = 0;
  const sockets = new Set<Socket>();
  const server: Server = createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => undefined);
    socket.on('data', (chunk) => {
      received += chunk.length;
      socket.write(chunk);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  closers.push(async () => {
    for (const s of sockets) s.destroy();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('no address');
  return { port: address.port, received: () => received };
}

async function startProxy(targetPort: number): Promise<TcpProxy> {
  const proxy = new TcpProxy({
    name: 'a->b',
    listenHost: '127.0.0.1',
    listenPort: 0,
    targetHost: '127.0.0.1',
    targetPort,
  });
  await proxy.start();
  closers.push(() => proxy.close());
  return proxy;
}

interface Client {
  socket: Socket;
  text: () => string;
  closed: Promise<{ error: string | undefined }>;
  waitFor: (expected: string) => Promise<void>;
}

async function dial(port: number): Promise<Client> {
  const socket = connect({ host: '127.0.0.1', port });
  let text = '';
  const waiters: Array<() => void> = [];
  socket.on('data', (chunk) => {
    text += chunk.toString();
    waiters.splice(0).forEach((w) => w());
  });
  const closed = new Promise<{ error: string | undefined }>((resolve) => {
    let error: string | undefined;
    socket.on('error', (err: NodeJS.ErrnoException) => (error = err.code ?? err.message));
    socket.on('close', () => resolve({ error }));
  });
  await new Promise<void>((resolve, reject) => {
    socket.once('connect', resolve);
    socket.once('error', reject);
  });
  closers.push(async () => void socket.destroy());
  const waitFor = async (expected: string): Promise<void> => {
    while (!text.includes(expected)) await new Promise<void>((resolve) => waiters.push(resolve));
  };
  return { socket, text: () => text, closed, waitFor };
}

/** Polls a condition on the event loop with a bound, for effects that have no event of their own. */
async function until(condition: () => boolean, what: string, boundMs = 5_000): Promise<void> {
  const deadline = performance.now() + boundMs;
  while (!condition()) {
    if (performance.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setImmediate(resolve));
  }
}

describe('TCP proxy', () => {
  it('forwards bytes both ways in pass mode', async () => {
    const server = await echoServer();
    const proxy = await startProxy(server.port);
    const client = await dial(proxy.port);
    client.socket.write('hello');
    await client.waitFor('hello');
    expect(proxy.stats().bytesForwarded).toBe(10);
  });

  it('reads and drops everything in blackhole mode, on open and new connections alike', async () => {
    const server = await echoServer();
    const proxy = await startProxy(server.port);
    const open = await dial(proxy.port);
    open.socket.write('before');
    await open.waitFor('before');
    proxy.setMode({ kind: 'blackhole' });
    open.socket.write('during');
    const fresh = await dial(proxy.port);
    fresh.socket.write('fresh');
    await until(() => proxy.stats().bytesDropped === 'during'.length + 'fresh'.length, 'the proxy to drop both writes');
    expect(server.received()).toBe('before'.length);
    expect(open.text()).toBe('before');
    expect(fresh.text()).toBe('');
  });

  it('resets the connections that lost bytes when a blackhole heals, and passes new ones', async () => {
    const server = await echoServer();
    const proxy = await startProxy(server.port);
    proxy.setMode({ kind: 'blackhole' });
    const victim = await dial(proxy.port);
    victim.socket.write('lost');
    await until(() => proxy.stats().bytesDropped === 4, 'the drop');
    proxy.setMode({ kind: 'pass' });
    expect((await victim.closed).error).toBe('ECONNRESET');
    const next = await dial(proxy.port);
    next.socket.write('again');
    await next.waitFor('again');
  });

  it('answers new connections with a reset and resets open ones in reset mode', async () => {
    const server = await echoServer();
    const proxy = await startProxy(server.port);
    const open = await dial(proxy.port);
    open.socket.write('x');
    await open.waitFor('x');
    proxy.setMode({ kind: 'reset' });
    expect((await open.closed).error).toBe('ECONNRESET');
    const refused = connect({ host: '127.0.0.1', port: proxy.port });
    const outcome = await new Promise<string>((resolve) => {
      refused.on('error', (err: NodeJS.ErrnoException) => resolve(err.code ?? 'error'));
      refused.on('close', () => resolve('closed'));
    });
    expect(outcome).toBe('ECONNRESET');
    expect(proxy.stats().connectionsReset).toBe(2);
  });

  it('delays each direction by the configured latency and keeps bytes in order', async () => {
    const server = await echoServer();
    const proxy = await startProxy(server.port);
    proxy.setMode({ kind: 'latency', delayMs: 100 });
    const client = await dial(proxy.port);
    const startMs = performance.now();
    for (let i = 0; i < 20; i++) client.socket.write(`${i};`);
    const expected = Array.from({ length: 20 }, (_, i) => `${i};`).join('');
    await client.waitFor(expected);
    expect(performance.now() - startMs).toBeGreaterThanOrEqual(195);
    expect(client.text()).toBe(expected);
  });

  it('resets the client when the target refuses the connection, as a dead node would', async () => {
    const server = await echoServer();
    const deadPort = server.port;
    await closers.pop()?.();
    const proxy = await startProxy(deadPort);
    const client = await dial(proxy.port);
    client.socket.write('anyone?');
    expect((await client.closed).error).toBe('ECONNRESET');
  });
});
