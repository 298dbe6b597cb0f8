import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startClientFixture, within, type ClientFixture } from './support/client-fixture.js';

/**
 * The example programs a user copies (examples/), built and run as a user would run them, against
 * a real raftq node: what the README promises they do, they do.
 */

let fixture: ClientFixture;

beforeAll(async () => {
  fixture = await startClientFixture();
});

afterAll(async () => {
  await fixture?.close();
});

const builtExample = (name: string) => fileURLToPath(new URL(`../../dist/examples/${name}.js`, import.meta.url));

function run(name: string, args: string[]) {
  const child = spawn(process.execPath, [builtExample(name), ...args], {
    env: { ...process.env, RAFTQ_ENDPOINT: fixture.endpoint.endpoint },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const lines: string[] = [];
  const listeners = new Set<() => void>();
  createInterface({ input: child.stdout! }).on('line', (line) => {
    lines.push(line);
    for (const listener of listeners) listener();
  });
  let stderr = '';
  child.stderr!.on('data', (d: Buffer) => (stderr = (stderr + d.toString()).slice(-4_000)));
  const exitCode = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  /** Resolves once `predicate` holds for the lines printed so far. */
  const until = (predicate: (lines: readonly string[]) => boolean) =>
    new Promise<void>((resolve) => {
      const check = () => {
        if (!predicate(lines)) return;
        listeners.delete(check);
        resolve();
      };
      listeners.add(check);
      check();
    });
  return { child, lines, exitCode, until, stderr: () => stderr };
}

describe('the example programs', () => {
  it('the producer publishes orders, and the consumer fulfils the good ones, dead-letters the malformed one with its cause and stops on SIGTERM', async () => {
    expect(existsSync(builtExample('consumer')), 'the examples run from dist/: npm run build').toBe(true);
    const producer = run('producer', ['10']);
    expect(await within(producer.exitCode, 30_000, 'the producer exiting'), producer.stderr()).toBe(0);
    expect(producer.lines.at(-1)).toMatch(/^published 10 orders to /);

    const consumer = run('consumer', []);
    try {
      await within(
        consumer.until(
          (lines) =>
            lines.filter((l) => l.endsWith(': fulfilled')).length === 9 && lines.some((l) => l.includes(': failed (')),
        ),
        30_000,
        'nine orders fulfilled and one failed',
      );
      consumer.child.kill('SIGTERM');
      expect(await within(consumer.exitCode, 30_000, 'the consumer exiting'), consumer.stderr()).toBe(0);
    } finally {
      consumer.child.kill('SIGKILL');
    }
    expect(consumer.lines.filter((l) => l.startsWith('dead letter '))).toEqual([
      expect.stringMatching(/^dead letter \S+: SyntaxError: .+ \(delivery 1\)$/),
    ]);
    expect(consumer.lines.at(-1)).toBe('stopped after fulfilling 9 orders');
  });
});
