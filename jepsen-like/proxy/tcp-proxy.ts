import { connect, createServer, type Server, type Socket } from 'node:net';
import { assert } from '../../src/base/assert.js';
import { passMode, type LinkMode } from './link-mode.js';

export interface TcpProxyOptions {
  /** For logs and reports: e.g. 'n1->n2' or 'client->n3'. */
  readonly name: string;
  readonly listenHost: string;
  /** 0 picks a free port; read it from `port` after start(). */
  readonly listenPort: number;
  readonly targetHost: string;
  readonly targetPort: number;
}

export interface TcpProxyStats {
  readonly connectionsAccepted: number;
  readonly connectionsOpen: number;
  readonly connectionsReset: number;
  readonly bytesForwarded: number;
  readonly bytesDropped: number;
}

/** One direction of one proxied connection: where its bytes go and what waits for a delayed write. */
interface Direction {
  readonly from: Socket;
  readonly to: () => Socket | undefined;
  readonly delayed: { dueMs: number; chunk: Buffer }[];
  timer: NodeJS.Timeout | undefined;
}

interface Connection {
  readonly client: Socket;
  upstream: Socket | undefined;
  /** Bytes were dropped: the stream is corrupt, so the connection is reset when the link heals. */
  isTainted: boolean;
  readonly directions: Direction[];
}

/**
 * A TCP proxy for one directed link on loopback, driven in-process by the nemesis. It never
 * interprets what it carries; the mode decides per chunk, so a change applies at once to
 * connections already open as well as to new ones.
 */
export class TcpProxy {
  private server: Server | undefined;
  private currentMode: LinkMode = passMode;
  private readonly connections = new Set<Connection>();
  private boundPort = 0;
  private accepted = 0;
  private reset = 0;
  private forwarded = 0;
  private dropped = 0;

  constructor(readonly options: TcpProxyOptions) {}

  get name(): string {
    return this.options.name;
  }

  get port(): number {
    assert(this.server !== undefined, `proxy ${this.name} is not started`);
    return this.boundPort;
  }

  get mode(): LinkMode {
    return this.currentMode;
  }

  async start(): Promise<number> {
    assert(this.server === undefined, `proxy ${this.name} started twice`);
    const server = createServer({ noDelay: true }, (socket) => this.accept(socket));
    this.server = server;
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(this.options.listenPort, this.options.listenHost, () => {
        server.off('error', reject);
        resolve();
      });
    });
    const address = server.address();
    assert(address !== null && typeof address === 'object');
    this.boundPort = address.port;
    return this.boundPort;
  }

  setMode(mode: LinkMode): void {
    const previous = this.currentMode;
    this.currentMode = mode;
    if (mode.kind === 'reset') {
      for (const conn of [...this.connections]) this.resetConnection(conn);
    } else if (mode.kind !== 'blackhole' && previous.kind === 'blackhole') {
      // What was dropped cannot be replayed: the peers' streams are out of step, so end them.
      for (const conn of [...this.connections]) if (conn.isTainted) this.resetConnection(conn);
    }
  }

  stats(): TcpProxyStats {
    return {
      connectionsAccepted: this.accepted,
      connectionsOpen: this.connections.size,
      connectionsReset: this.reset,
      bytesForwarded: this.forwarded,
      bytesDropped: this.dropped,
    };
  }

  async close(): Promise<void> {
    const server = this.server;
    if (server === undefined) return;
    for (const conn of [...this.connections]) this.destroyConnection(conn);
    await new Promise<void>((resolve) => server.close(() => resolve()));
    this.server = undefined;
  }

  private accept(client: Socket): void {
    this.accepted++;
    client.setNoDelay(true);
    if (this.currentMode.kind === 'reset') {
      this.reset++;
      client.resetAndDestroy();
      return;
    }
    const conn: Connection = { client, upstream: undefined, isTainted: false, directions: [] };
    this.connections.add(conn);
    conn.directions.push({ from: client, to: () => conn.upstream, delayed: [], timer: undefined });
    client.on('error', () => this.destroyConnection(conn));
    client.on('close', () => this.destroyConnection(conn));
    client.on('data', (chunk: Buffer) => this.carry(conn, 0, chunk));
    if (this.currentMode.kind === 'blackhole') {
      // Never reach the target: a blackholed host does not even complete a handshake with it.
      // The connection is useless after the heal, so it is reset then and the client reconnects.
      conn.isTainted = true;
      return;
    }
    const upstream = connect({ host: this.options.targetHost, port: this.options.targetPort, noDelay: true });
    conn.upstream = upstream;
    conn.directions.push({ from: upstream, to: () => conn.client, delayed: [], timer: undefined });
    // Bytes sent before the upstream connects are buffered by the socket itself.
    upstream.on('data', (chunk: Buffer) => this.carry(conn, 1, chunk));
    upstream.on('error', () => this.resetConnection(conn));
    upstream.on('close', () => this.destroyConnection(conn));
  }

  private carry(conn: Connection, directionIndex: number, chunk: Buffer): void {
    const direction = conn.directions[directionIndex];
    if (direction === undefined) return;
    const mode = this.currentMode;
    if (mode.kind === 'blackhole' || mode.kind === 'reset') {
      conn.isTainted = true;
      this.dropped += chunk.length;
      return;
    }
    if (mode.kind === 'latency' || direction.delayed.length > 0) {
      // Chunks already waiting keep their place even if the delay has since been removed.
      const delayMs = mode.kind === 'latency' ? mode.delayMs : 0;
      direction.delayed.push({ dueMs: performance.now() + delayMs, chunk });
      this.pump(conn, direction);
      return;
    }
    this.write(conn, direction, chunk);
  }

  private pump(conn: Connection, direction: Direction): void {
    if (direction.timer !== undefined) return;
    const head = direction.delayed[0];
    if (head === undefined) return;
    const waitMs = Math.max(0, head.dueMs - performance.now());
    direction.timer = setTimeout(() => {
      direction.timer = undefined;
      while (direction.delayed[0] !== undefined && direction.delayed[0].dueMs <= performance.now()) {
        const item = direction.delayed.shift();
        if (item === undefined) break;
        if (this.currentMode.kind === 'blackhole' || this.currentMode.kind === 'reset') {
          conn.isTainted = true;
          this.dropped += item.chunk.length;
        } else {
          this.write(conn, direction, item.chunk);
        }
      }
      this.pump(conn, direction);
    }, waitMs);
  }

  private write(conn: Connection, direction: Direction, chunk: Buffer): void {
    const to = direction.to();
    if (to === undefined || to.destroyed) return;
    this.forwarded += chunk.length;
    if (!to.write(chunk)) {
      direction.from.pause();
      to.once('drain', () => direction.from.resume());
    }
  }

  private resetConnection(conn: Connection): void {
    if (!this.connections.has(conn)) return;
    this.reset++;
    this.connections.delete(conn);
    this.stopTimers(conn);
    if (!conn.client.destroyed) conn.client.resetAndDestroy();
    if (conn.upstream !== undefined && !conn.upstream.destroyed) conn.upstream.resetAndDestroy();
  }

  private destroyConnection(conn: Connection): void {
    if (!this.connections.has(conn)) return;
    this.connections.delete(conn);
    this.stopTimers(conn);
    conn.client.destroy();
    conn.upstream?.destroy();
  }

  private stopTimers(conn: Connection): void {
    for (const direction of conn.directions) {
      if (direction.timer !== undefined) clearTimeout(direction.timer);
      direction.timer = undefined;
      direction.delayed.length = 0;
    }
  }
}
