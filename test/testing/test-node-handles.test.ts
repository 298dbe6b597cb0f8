import { createHook } from 'node:async_hooks';
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { CreateQueueCommand, ReceiveMessageCommand, SendMessageCommand } from '@aws-sdk/client-sqs';
import { describe, expect, it } from 'vitest';
import { startTestNode, type TestNode } from '../../src/testing/index.js';
import { within } from '../client/support/client-fixture.js';
import { makeTempDir } from '../support/temp-dir.js';

/**
 * stop() frees everything a test node opened: in this process, no handle it created is left
 * (sockets, servers, LevelDB, Raft's gRPC port) and no timer of its own; and a process that starts
 * and stops nodes exits by itself.
 */

const builtTesting = fileURLToPath(new URL('../../dist/src/testing/index.js', import.meta.url));
const startStopScript = fileURLToPath(new URL('./support/start-stop-nodes.mjs', import.meta.url));

type ActiveHandlesProcess = NodeJS.Process & { _getActiveHandles(): unknown[] };

function activeHandles(): unknown[] {
  return (process as ActiveHandlesProcess)._getActiveHandles();
}

function handleName(handle: unknown): string {
  return (handle as { constructor?: { name?: string } })?.constructor?.name ?? typeof handle;
}

/**
 * Every async resource (timer, immediate, socket, server, …) created from enable() on and not yet
 * destroyed, by type: _getActiveHandles() lists no timers, and counting kinds would let a timer of
 * the test runner that ended hide one of ours that did not.
 */
function trackResources(): { enable(): void; alive(): string[]; untracked<T>(create: () => T): T; disable(): void } {
  const alive = new Map<number, string>();
  let isPaused = false;
  const hook = createHook({
    init: (asyncId, type) => {
      if (!isPaused && !ignoredResourceTypes.has(type)) alive.set(asyncId, type);
    },
    destroy: (asyncId) => {
      alive.delete(asyncId);
    },
  });
  return {
    enable: () => hook.enable(),
    alive: () => [...alive.values()],
    /** Runs `create` without tracking what it creates: the test's own waiting. */
    untracked: (create) => {
      isPaused = true;
      try {
        return create();
      } finally {
        isPaused = false;
      }
    },
    disable: () => hook.disable(),
  };
}

/** Bookkeeping resources that hold nothing open (promises, ticks, one-shot callbacks). */
const ignoredResourceTypes = new Set(['PROMISE', 'TickObject', 'Microtask']);

async function exercise(node: TestNode): Promise<{ parkedPoll: Promise<unknown> }> {
  await node.client.send(new CreateQueueCommand({ QueueName: 'jobs' }));
  await node.client.send(new SendMessageCommand({ QueueUrl: node.queueUrl('jobs'), MessageBody: 'now' }));
  await node.client.send(
    new SendMessageCommand({ QueueUrl: node.queueUrl('jobs'), MessageBody: 'later', DelaySeconds: 30 }),
  );
  const { Messages } = await node.client.send(
    new ReceiveMessageCommand({ QueueUrl: node.queueUrl('jobs'), WaitTimeSeconds: 1 }),
  );
  expect(Messages?.map((m) => m.Body)).toEqual(['now']);
  // A long poll still waiting when the node stops (its wait, and the delayed message, are timers).
  return {
    parkedPoll: node.client
      .send(new ReceiveMessageCommand({ QueueUrl: node.queueUrl('jobs'), WaitTimeSeconds: 20 }))
      .catch(() => undefined),
  };
}

describe('TestNode.stop()', () => {
  it('leaves no handle and no timer behind in this process, on either clock and either storage', async () => {
    const handlesBefore = new Set(activeHandles());
    const resources = trackResources();
    resources.enable();
    const dataDir = makeTempDir('test-node-handles');
    try {
      const nodes = [
        await startTestNode(),
        await startTestNode({ clock: 'real' }),
        await startTestNode({ dataDir: dataDir.path }),
      ];
      const parked = [];
      for (const node of nodes) parked.push((await exercise(node)).parkedPoll);
      for (const node of nodes) await node.stop();
      await Promise.all(parked);
    } finally {
      dataDir.cleanup();
    }
    // A closed socket leaves the handle list on a later turn of the loop: wait for that (bounded).
    const leftOver = () => activeHandles().filter((handle) => !handlesBefore.has(handle));
    const deadlineMs = Date.now() + 5_000;
    while ((leftOver().length > 0 || resources.alive().length > 0) && Date.now() < deadlineMs) {
      await resources.untracked(() => new Promise((resolve) => setImmediate(resolve)));
    }
    expect(leftOver().map(handleName)).toEqual([]);
    resources.disable();
    expect(resources.alive()).toEqual([]);
  });

  it.skipIf(!existsSync(builtTesting))(
    'lets a process that started and stopped nodes through raftq/testing exit by itself',
    async () => {
      const child = spawn(process.execPath, [startStopScript], { stdio: ['ignore', 'pipe', 'pipe'] });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
      child.stderr.on('data', (d: Buffer) => (stderr = (stderr + d.toString()).slice(-4_000)));
      const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
      try {
        const code = await within(exited, 30_000, 'the process exiting by itself after stop()');
        expect({ code, stdout: stdout.trim() }).toEqual({ code: 0, stdout: 'stopped' });
      } catch (error) {
        child.kill('SIGKILL');
        throw new Error(`${String(error)}; stdout: ${stdout}; stderr: ${stderr}`);
      }
    },
  );
});
