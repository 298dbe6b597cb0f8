import { createServer } from 'node:net';
import { describe, expect, it } from 'vitest';
import { freePort, freePorts, portsBelowEphemeralRange } from './ports.js';

describe('freePort', () => {
  it('draws ports below the ephemeral range, where no outgoing connection takes them', async () => {
    const { lowest, highest } = portsBelowEphemeralRange();
    for (const port of await freePorts(5)) {
      expect(port).toBeGreaterThanOrEqual(lowest);
      expect(port).toBeLessThanOrEqual(highest);
    }
  });

  it('returns a port that can be bound right away', async () => {
    const port = await freePort();
    const server = createServer();
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, '127.0.0.1', () => resolve());
    });
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });
});
