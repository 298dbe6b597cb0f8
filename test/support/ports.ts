import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';

/**
 * A TCP port on 127.0.0.1 that was free a moment ago. Tests allocate ports this way so that test
 * files running in parallel (and other work on the machine) never collide on fixed numbers.
 *
 * The port is drawn below the kernel's ephemeral range (ip_local_port_range), not with listen(0):
 * a port from that range can be taken as the source port of any outgoing connection in the time
 * between this call and the process that binds it — a cluster's first nodes connecting to the
 * last one's not-yet-bound ports are exactly such connections — and that process then fails to
 * start with EADDRINUSE. Falls back to listen(0) if no port below the range is free.
 */
export async function freePort(): Promise<number> {
  const { lowest, highest } = portsBelowEphemeralRange();
  const span = highest - lowest + 1;
  if (span < 2) return listenOnce(0);
  // Each test process walks the range from its own starting point, so that two processes
  // allocating at the same moment rarely try the same ports.
  nextPortOffset ??= (process.pid * 7919) % span;
  for (let attempt = 0; attempt < 50; attempt++) {
    const candidate = lowest + (nextPortOffset % span);
    nextPortOffset = (nextPortOffset + 1) % span;
    if (await isFree(candidate)) return candidate;
  }
  return listenOnce(0);
}

let nextPortOffset: number | null = null;

/** `count` distinct free ports. */
export async function freePorts(count: number): Promise<number[]> {
  const ports = new Set<number>();
  while (ports.size < count) ports.add(await freePort());
  return [...ports];
}

/** Ports tests draw from: from 20000 up to just below the ephemeral range (Linux default 32768). */
export function portsBelowEphemeralRange(): { lowest: number; highest: number } {
  let ephemeralLowest = 32768;
  try {
    const [first] = readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/);
    const parsed = Number(first);
    if (Number.isInteger(parsed) && parsed > 0) ephemeralLowest = parsed;
  } catch {
    // Not Linux: keep the default.
  }
  return { lowest: Math.min(20000, ephemeralLowest - 1), highest: ephemeralLowest - 1 };
}

async function isFree(port: number): Promise<boolean> {
  return listenOnce(port).then(
    () => true,
    () => false,
  );
}

function listenOnce(port: number): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.on('error', reject);
    server.listen(port, '127.0.0.1', () => {
      const address = server.address();
      if (address === null || typeof address === 'string') return reject(new Error('no port'));
      server.close(() => resolve(address.port));
    });
  });
}
