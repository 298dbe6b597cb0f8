import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';

/**
 * TCP ports on 127.0.0.1 for the nodes, free a moment ago, never fixed numbers. They are drawn
 * below the kernel's ephemeral range: a port from that range (what listen(0) hands out) can be
 * taken, before the node binds it, as the source port of an outgoing connection — the proxies'
 * own connections to the other nodes are exactly such connections — and the node then fails to
 * start with EADDRINUSE.
 */
export async function freeLoopbackPorts(count: number): Promise<number[]> {
  const { lowest, highest } = belowEphemeralRange();
  const span = highest - lowest + 1;
  const ports: number[] = [];
  // Start where this process's id says, so that runs in parallel processes rarely meet, and go
  // on from there: the next run of this process takes fresh ports.
  cursor ??= (process.pid * 104_729) % span;
  for (let tried = 0; ports.length < count && tried < span; tried++) {
    const candidate = lowest + (cursor % span);
    cursor = (cursor + 1) % span;
    if (await canListen(candidate)) ports.push(candidate);
  }
  if (ports.length < count) throw new Error(`no ${count} free ports between ${lowest} and ${highest}`);
  return ports;
}

let cursor: number | undefined;

function belowEphemeralRange(): { lowest: number; highest: number } {
  let ephemeralFirst = 32_768;
  try {
    const first = Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]);
    if (Number.isInteger(first) && first > 1_024) ephemeralFirst = first;
  } catch {
    // Not Linux: the usual default.
  }
  return { lowest: Math.min(20_000, ephemeralFirst - 100), highest: ephemeralFirst - 1 };
}

function canListen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.unref();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}
