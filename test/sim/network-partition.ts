import type { Prng } from '../../src/base/prng.js';
import type { NodeId } from '../../src/raft/types.js';

export type PartitionShape = 'halves' | 'isolated' | 'oneWay' | 'bridge' | 'majorityRing';
export const partitionShapes: readonly PartitionShape[] = ['halves', 'isolated', 'oneWay', 'bridge', 'majorityRing'];

/**
 * A set of directed links that are cut. Links are directed so that a one-way cut (1 can send to
 * 2, 2 cannot answer) is as easy to express as a symmetric split. Nodes that did not exist when
 * the partition was made are connected to everyone.
 */
export class NetworkPartition {
  private constructor(
    private readonly cutLinks: ReadonlySet<string>,
    /** How the trace shows it, e.g. `partition 1,2 | 3,4,5`. */
    readonly description: string,
  ) {}

  static none(): NetworkPartition {
    return new NetworkPartition(new Set(), 'heal');
  }

  /** Every link between the groups is cut, both ways; links inside a group stay up. */
  static groups(groups: readonly (readonly NodeId[])[], description?: string): NetworkPartition {
    const cut = new Set<string>();
    for (const [i, a] of groups.entries()) {
      for (const [j, b] of groups.entries()) {
        if (i === j) continue;
        for (const from of a) for (const to of b) cut.add(linkKey(from, to));
      }
    }
    return new NetworkPartition(cut, description ?? `partition ${groups.map((g) => g.join(',')).join(' | ')}`);
  }

  /** Only the given directed links are cut. */
  static oneWay(links: readonly (readonly [NodeId, NodeId])[]): NetworkPartition {
    const cut = new Set(links.map(([from, to]) => linkKey(from, to)));
    return new NetworkPartition(cut, `cut ${links.map(([from, to]) => `${from}→${to}`).join(' ')}`);
  }

  /** The two sides cannot talk to each other; the bridge node talks to both. */
  static bridge(left: readonly NodeId[], bridgeNode: NodeId, right: readonly NodeId[]): NetworkPartition {
    const inner = NetworkPartition.groups([left, right]);
    return new NetworkPartition(
      inner.cutLinks,
      `partition ${left.join(',')} | ${right.join(',')} bridge ${bridgeNode}`,
    );
  }

  /**
   * Each node talks only to its two neighbours on a ring: with five nodes every node sees a
   * majority (itself and two others) but no two nodes see the same majority.
   */
  static majorityRing(ring: readonly NodeId[]): NetworkPartition {
    const cut = new Set<string>();
    const n = ring.length;
    for (let i = 0; i < n; i++) {
      for (let j = 0; j < n; j++) {
        const distance = Math.min((i - j + n) % n, (j - i + n) % n);
        if (distance > 1) cut.add(linkKey(ring[i] as NodeId, ring[j] as NodeId));
      }
    }
    return new NetworkPartition(cut, `ring ${ring.join('-')}`);
  }

  isLinkUp(from: NodeId, to: NodeId): boolean {
    return !this.cutLinks.has(linkKey(from, to));
  }

  get isHealed(): boolean {
    return this.cutLinks.size === 0;
  }
}

function linkKey(from: NodeId, to: NodeId): string {
  return `${from}>${to}`;
}

function shuffled<T>(prng: Prng, items: readonly T[]): T[] {
  const out = [...items];
  for (let i = out.length - 1; i > 0; i--) {
    const j = prng.intBelow(i + 1);
    [out[i], out[j]] = [out[j] as T, out[i] as T];
  }
  return out;
}

/** A partition of the given shape over `nodeIds` (at least two), drawn from `prng`. */
export function randomPartition(prng: Prng, nodeIds: readonly NodeId[], shape: PartitionShape): NetworkPartition {
  const nodes = shuffled(prng, nodeIds);
  const n = nodes.length;
  switch (shape) {
    case 'halves': {
      const leftSize = 1 + prng.intBelow(Math.max(1, Math.floor(n / 2)));
      return NetworkPartition.groups([sorted(nodes.slice(0, leftSize)), sorted(nodes.slice(leftSize))]);
    }
    case 'isolated':
      return NetworkPartition.groups([[nodes[0] as NodeId], sorted(nodes.slice(1))]);
    case 'oneWay': {
      // Cut every link out of one node (it hears but is not heard), or into it (it speaks but
      // hears nothing), or a single directed link.
      const node = nodes[0] as NodeId;
      const others = nodes.slice(1);
      const mode = prng.intBelow(3);
      if (mode === 0) return NetworkPartition.oneWay(others.map((o) => [node, o] as const));
      if (mode === 1) return NetworkPartition.oneWay(others.map((o) => [o, node] as const));
      return NetworkPartition.oneWay([[node, others[0] as NodeId]]);
    }
    case 'bridge': {
      if (n < 3) return NetworkPartition.groups([[nodes[0] as NodeId], sorted(nodes.slice(1))]);
      const bridgeNode = nodes[0] as NodeId;
      const rest = nodes.slice(1);
      const leftSize = Math.max(1, Math.floor(rest.length / 2));
      return NetworkPartition.bridge(sorted(rest.slice(0, leftSize)), bridgeNode, sorted(rest.slice(leftSize)));
    }
    case 'majorityRing':
      // With fewer than five nodes a ring cuts nothing; fall back to isolating one node.
      if (n < 5) return NetworkPartition.groups([[nodes[0] as NodeId], sorted(nodes.slice(1))]);
      return NetworkPartition.majorityRing(nodes);
  }
}

function sorted(ids: NodeId[]): NodeId[] {
  return ids.sort((a, b) => Number(a) - Number(b) || a.localeCompare(b));
}
