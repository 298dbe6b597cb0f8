import { describe, expect, it } from 'vitest';
import { SeededPrng } from '../../src/base/prng.js';
import { raftMessage } from '../../src/raft/raft-message.js';
import { MessageType } from '../../src/raft/types.js';
import { NetworkPartition, randomPartition } from './network-partition.js';
import { reliableNetwork, SimNetwork } from './sim-network.js';

const ids = ['1', '2', '3', '4', '5'];
const reachable = (p: NetworkPartition, from: string): string[] =>
  ids.filter((to) => to !== from && p.isLinkUp(from, to));
const heartbeat = (from: string, to: string, term = 1) => raftMessage({ type: MessageType.Heartbeat, from, to, term });

describe('network partitions', () => {
  it('halves cut every link between the groups and none inside them', () => {
    const p = NetworkPartition.groups([
      ['1', '2'],
      ['3', '4', '5'],
    ]);
    expect(reachable(p, '1')).toEqual(['2']);
    expect(reachable(p, '4')).toEqual(['3', '5']);
    expect(p.description).toBe('partition 1,2 | 3,4,5');
  });

  it('a one-way cut lets messages through in the other direction', () => {
    const p = NetworkPartition.oneWay([['1', '2']]);
    expect(p.isLinkUp('1', '2')).toBe(false);
    expect(p.isLinkUp('2', '1')).toBe(true);
  });

  it('a bridge node talks to both sides, which cannot talk to each other', () => {
    const p = NetworkPartition.bridge(['1', '2'], '3', ['4', '5']);
    expect(reachable(p, '3')).toEqual(['1', '2', '4', '5']);
    expect(reachable(p, '1')).toEqual(['2', '3']);
    expect(reachable(p, '5')).toEqual(['3', '4']);
  });

  it('in a majority ring every node sees a majority, but no two see the same one', () => {
    const p = NetworkPartition.majorityRing(['1', '2', '3', '4', '5']);
    const majorities = ids.map((id) => [id, ...reachable(p, id)].sort().join(','));
    for (const m of majorities) expect(m.split(',')).toHaveLength(3);
    expect(new Set(majorities).size).toBe(5);
  });

  it('every random shape is drawn the same way from the same seed', () => {
    for (const shape of ['halves', 'isolated', 'oneWay', 'bridge', 'majorityRing'] as const) {
      const a = randomPartition(new SeededPrng(9), ids, shape);
      const b = randomPartition(new SeededPrng(9), ids, shape);
      expect(a.description).toBe(b.description);
      expect(a.isHealed).toBe(false);
    }
  });
});

describe('the simulated network', () => {
  it('delivers in order when it neither reorders nor delays', () => {
    const network = new SimNetwork(new SeededPrng(1), reliableNetwork);
    for (const term of [1, 2, 3]) network.send(heartbeat('1', '2', term));
    const terms = [1, 2, 3].map(() => network.takeNext()?.message.term);
    expect(terms).toEqual([1, 2, 3]);
    expect(network.takeNext()).toBeNull();
  });

  it('holds delayed messages until enough ticks have passed', () => {
    const network = new SimNetwork(new SeededPrng(1), { ...reliableNetwork, delayProbability: 1, delayTicksMax: 2 });
    network.send(heartbeat('1', '2'));
    expect(network.deliverableCount).toBe(0);
    network.tick();
    network.tick();
    expect(network.deliverableCount).toBe(1);
  });

  it('drops what it is told to drop, but never a snapshot (its stream reports failures instead)', () => {
    const network = new SimNetwork(new SeededPrng(1), { ...reliableNetwork, dropProbability: 1 });
    expect(network.send(heartbeat('1', '2'))).toBe('dropped');
    expect(network.send(raftMessage({ type: MessageType.Snap, from: '1', to: '2', term: 1 }))).toBe('sent');
  });

  it('duplicates messages when told to', () => {
    const network = new SimNetwork(new SeededPrng(1), { ...reliableNetwork, duplicateProbability: 1 });
    expect(network.send(heartbeat('1', '2'))).toBe('duplicated');
    expect(network.deliverableCount).toBe(2);
  });

  it('keeps messages to a receiver that is not listening (paused) waiting, in order', () => {
    const network = new SimNetwork(new SeededPrng(1), reliableNetwork);
    network.send(heartbeat('1', '2', 1));
    network.send(heartbeat('1', '3', 2));
    network.send(heartbeat('1', '2', 3));
    const isListening = (to: string): boolean => to !== '2';
    expect(network.deliverableCountTo(isListening)).toBe(1);
    expect(network.takeNext(isListening)?.message.term).toBe(2);
    expect(network.takeNext(isListening)).toBeNull();
    expect([network.takeNext()?.message.term, network.takeNext()?.message.term]).toEqual([1, 3]);
  });

  it('loses a message in flight when its link is cut before delivery', () => {
    const network = new SimNetwork(new SeededPrng(1), reliableNetwork);
    network.send(heartbeat('1', '2'));
    network.partition = NetworkPartition.groups([['1'], ['2']]);
    expect(network.takeNext()?.isLinkUp).toBe(false);
  });
});
