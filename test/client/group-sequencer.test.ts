import { describe, expect, it } from 'vitest';
import { GroupSequencer, type SequencedMessage } from '../../src/client/group-sequencer.js';

/**
 * The order consume() runs messages in, without a queue: each run is held open by the test until
 * it says how the message ended, so every interleaving here is chosen, not timed.
 */

interface TestMessage extends SequencedMessage {
  readonly name: string;
}

function message(name: string, groupId: string | undefined, sequenceNumber?: number): TestMessage {
  return { name, groupId, sequenceNumber: sequenceNumber === undefined ? undefined : BigInt(sequenceNumber) };
}

/** A sequencer whose runs wait for finish(name, isCompleted), with a log of what it did. */
function harness() {
  const log: string[] = [];
  const endings = new Map<string, (isCompleted: boolean) => void>();
  let lanesEnded = 0;
  const sequencer = new GroupSequencer<TestMessage>({
    run: (m) => {
      log.push(`run ${m.name}`);
      return new Promise<boolean>((resolve) => endings.set(m.name, resolve));
    },
    release: async (messages) => {
      log.push(`release ${messages.map((m) => m.name).join(',')}`);
    },
    laneEnded: () => lanesEnded++,
  });
  /** Ends a running message and lets the sequencer take its next step. */
  const finish = async (name: string, isCompleted: boolean) => {
    const end = endings.get(name);
    if (end === undefined) throw new Error(`${name} is not running`);
    endings.delete(name);
    end(isCompleted);
    await settle();
  };
  return { sequencer, log, finish, running: () => [...endings.keys()], lanesEnded: () => lanesEnded };
}

/** Lets every promise callback already queued run. */
async function settle(): Promise<void> {
  for (let i = 0; i < 10; i++) await Promise.resolve();
}

describe('GroupSequencer', () => {
  it('runs the messages of one group one at a time, in SequenceNumber order whatever order they came in', async () => {
    const { sequencer, log, finish, running } = harness();
    sequencer.add([message('g-3', 'g', 3), message('g-1', 'g', 1), message('g-2', 'g', 2)]);
    await settle();
    // The first added starts at once; the two behind it are sorted.
    expect(running()).toEqual(['g-3']);
    await finish('g-3', true);
    expect(running()).toEqual(['g-1']);
    await finish('g-1', true);
    await finish('g-2', true);
    expect(log).toEqual(['run g-3', 'run g-1', 'run g-2']);
  });

  it('sorts the waiting messages of a group by SequenceNumber', async () => {
    const { sequencer, log, finish } = harness();
    sequencer.add([message('g-1', 'g', 1), message('g-12', 'g', 12), message('g-3', 'g', 3), message('g-10', 'g', 10)]);
    await settle();
    for (const name of ['g-1', 'g-3', 'g-10', 'g-12']) await finish(name, true);
    expect(log).toEqual(['run g-1', 'run g-3', 'run g-10', 'run g-12']);
  });

  it('runs different groups side by side, and each message without a group in a lane of its own', async () => {
    const { sequencer, finish, running, lanesEnded } = harness();
    sequencer.add([
      message('a-1', 'a', 1),
      message('b-1', 'b', 2),
      message('a-2', 'a', 3),
      message('x', undefined),
      message('y', undefined),
    ]);
    await settle();
    expect(running()).toEqual(['a-1', 'b-1', 'x', 'y']);
    expect(sequencer.laneCount).toBe(4);
    await finish('x', true);
    expect(sequencer.laneCount).toBe(3);
    expect(lanesEnded()).toBe(1);
    await finish('a-1', true);
    expect(running()).toEqual(['b-1', 'y', 'a-2']);
    expect(sequencer.laneCount).toBe(3);
  });

  it('releases the rest of a group in one call when a message does not complete, and leaves other groups alone', async () => {
    const { sequencer, log, finish, running, lanesEnded } = harness();
    sequencer.add([
      message('a-1', 'a', 1),
      message('a-2', 'a', 2),
      message('a-3', 'a', 3),
      message('b-1', 'b', 4),
      message('b-2', 'b', 5),
    ]);
    await settle();
    await finish('a-1', false);
    expect(log).toEqual(['run a-1', 'run b-1', 'release a-2,a-3']);
    expect(running()).toEqual(['b-1']);
    expect(lanesEnded()).toBe(1);
    await finish('b-1', true);
    expect(running()).toEqual(['b-2']);
  });

  it("does not release anything when the message that failed was its group's last", async () => {
    const { sequencer, log, finish } = harness();
    sequencer.add([message('a-1', 'a', 1)]);
    await settle();
    await finish('a-1', false);
    expect(log).toEqual(['run a-1']);
    expect(sequencer.laneCount).toBe(0);
  });

  it("appends messages of a group it already holds to that group's lane", async () => {
    const { sequencer, log, finish, running } = harness();
    sequencer.add([message('a-1', 'a', 1)]);
    await settle();
    sequencer.add([message('a-3', 'a', 3), message('a-2', 'a', 2)]);
    await settle();
    expect(running()).toEqual(['a-1']);
    expect(sequencer.laneCount).toBe(1);
    await finish('a-1', true);
    await finish('a-2', true);
    await finish('a-3', true);
    expect(log).toEqual(['run a-1', 'run a-2', 'run a-3']);
  });

  it('on stop, releases every message not started in one call, lets running ones finish, and releases what is added later', async () => {
    const { sequencer, log, finish, running } = harness();
    sequencer.add([message('a-1', 'a', 1), message('a-2', 'a', 2), message('b-1', 'b', 3), message('b-2', 'b', 4)]);
    await settle();
    sequencer.stop();
    await settle();
    expect(log).toEqual(['run a-1', 'run b-1', 'release a-2,b-2']);
    let isSettled = false;
    void sequencer.settled().then(() => (isSettled = true));
    await settle();
    expect(isSettled).toBe(false);
    await finish('a-1', true);
    await finish('b-1', false);
    expect(isSettled).toBe(true);
    expect(running()).toEqual([]);
    sequencer.add([message('c-1', 'c', 5)]);
    await sequencer.settled();
    expect(log).toEqual(['run a-1', 'run b-1', 'release a-2,b-2', 'release c-1']);
    expect(sequencer.laneCount).toBe(0);
  });

  it('waits for a release before the group it came from counts as ended', async () => {
    let finishRelease: () => void = () => {};
    let lanesEnded = 0;
    let endA: (isCompleted: boolean) => void = () => {};
    const sequencer = new GroupSequencer<TestMessage>({
      run: () => new Promise<boolean>((resolve) => (endA = resolve)),
      release: () => new Promise<void>((resolve) => (finishRelease = resolve)),
      laneEnded: () => lanesEnded++,
    });
    sequencer.add([message('a-1', 'a', 1), message('a-2', 'a', 2)]);
    await settle();
    endA(false);
    await settle();
    expect(sequencer.laneCount).toBe(1);
    expect(lanesEnded).toBe(0);
    finishRelease();
    await sequencer.settled();
    expect(sequencer.laneCount).toBe(0);
    expect(lanesEnded).toBe(1);
  });
});
