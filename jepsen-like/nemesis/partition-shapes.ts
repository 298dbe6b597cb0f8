import { assert } from '../../src/base/assert.js';
import type { Prng } from '../../src/base/prng.js';

/** A directed link that carries nothing while the partition lasts: `from` cannot reach `to`. */
export interface Cut {
  readonly from: string;
  readonly to: string;
}

export type PartitionShape = 'halves' | 'isolated-leader' | 'one-way' | 'majorities-ring' | 'bridge';
export const partitionShapes: readonly PartitionShape[] = [
  'halves',
  'isolated-leader',
  'one-way',
  'majorities-ring',
  'bridge',
];

export interface Partition {
  readonly shape: PartitionShape;
  readonly description: string;
  readonly cuts: readonly Cut[];
}

/**
 * The directed links to cut for a partition shape over `nodes`. `leader` is the node believed to
 * lead (or undefined when none is known: a random node stands in). Each shape is one Jepsen
 * knows to find bugs with:
 * - halves: two sides, the smaller a minority, no link between them;
 * - isolated-leader: the leader alone on one side;
 * - one-way: a node (the leader if known) can still hear the others but not reach them, or the reverse;
 * - majorities-ring: every node sees a majority, but no two see the same one (with 3 nodes a
 *   directed ring: each node reaches only its successor);
 * - bridge: two halves joined by one node that sees both.
 */
export function partitionFor(
  shape: PartitionShape,
  nodes: readonly string[],
  leader: string | undefined,
  prng: Prng,
): Partition {
  assert(nodes.length >= 3, 'partitions need at least 3 nodes');
  const order = shuffled(nodes, prng);
  const center = leader !== undefined && nodes.includes(leader) ? leader : pick(order, prng);
  switch (shape) {
    case 'halves': {
      const minority = order.slice(0, Math.floor(nodes.length / 2));
      const majority = order.slice(minority.length);
      return { shape, description: `${minority.join(',')} | ${majority.join(',')}`, cuts: between(minority, majority) };
    }
    case 'isolated-leader': {
      const rest = nodes.filter((n) => n !== center);
      return { shape, description: `${center} | ${rest.join(',')} (leader isolated)`, cuts: between([center], rest) };
    }
    case 'one-way': {
      const rest = nodes.filter((n) => n !== center);
      const isOutbound = prng.intBelow(2) === 0;
      const cuts = rest.map((n) => (isOutbound ? { from: center, to: n } : { from: n, to: center }));
      return {
        shape,
        description: isOutbound
          ? `${center} -/-> ${rest.join(',')} (hears, cannot speak)`
          : `${rest.join(',')} -/-> ${center} (speaks, cannot hear)`,
        cuts,
      };
    }
    case 'majorities-ring':
      return majoritiesRing(order);
    case 'bridge': {
      const bridge = order[0];
      assert(bridge !== undefined);
      const others = order.slice(1);
      const left = others.slice(0, Math.floor(others.length / 2));
      const right = others.slice(left.length);
      return {
        shape,
        description: `${left.join(',')} | ${right.join(',')} bridged by ${bridge}`,
        cuts: between(left, right),
      };
    }
  }
}

function majoritiesRing(ring: readonly string[]): Partition {
  const n = ring.length;
  const at = (i: number): string => ring[((i % n) + n) % n] as string;
  if (n === 3) {
    const cuts = ring.map((node, i) => ({ from: node, to: at(i - 1) }));
    return { shape: 'majorities-ring', description: `directed ring ${[...ring, at(0)].join(' -> ')}`, cuts };
  }
  // Each node keeps its links to the nodes within ring distance k, enough to see a majority
  // (itself and 2k others); every other link is cut, both ways.
  const k = Math.ceil(Math.floor(n / 2) / 2);
  const cuts: Cut[] = [];
  for (let i = 0; i < n; i++) {
    for (let j = 0; j < n; j++) {
      const distance = Math.min(Math.abs(i - j), n - Math.abs(i - j));
      if (distance > k) cuts.push({ from: at(i), to: at(j) });
    }
  }
  return {
    shape: 'majorities-ring',
    description: `ring ${ring.join(' - ')}, each node linked to its ${2 * k} nearest`,
    cuts,
  };
}

/** Every link between the two sides, both ways. */
function between(left: readonly string[], right: readonly string[]): Cut[] {
  const cuts: Cut[] = [];
  for (const a of left) for (const b of right) cuts.push({ from: a, to: b }, { from: b, to: a });
  return cuts;
}

export function shuffled<T>(items: readonly T[], prng: Prng): T[] {
  const copy = [...items];
  for (let i = copy.length - 1; i > 0; i--) {
    const j = prng.intBelow(i + 1);
    const a = copy[i] as T;
    copy[i] = copy[j] as T;
    copy[j] = a;
  }
  return copy;
}

export function pick<T>(items: readonly T[], prng: Prng): T {
  assert(items.length > 0, 'pick from an empty list');
  return items[prng.intBelow(items.length)] as T;
}
