import { onTestFailed } from 'vitest';
import { SeededPrng } from '../../../src/base/prng.js';
import { decodeConfChange } from '../../../src/raft/conf-change.js';
import { MemoryRaftStorage } from '../../../src/raft/memory-storage.js';
import { describeRaftMessage } from '../../../src/raft/raft-message.js';
import { RawNode } from '../../../src/raft/raw-node.js';
import type {
  ConfChange,
  ConfState,
  Entry,
  NodeId,
  RaftMessage,
  ReadState,
  StateRole,
} from '../../../src/raft/types.js';
import { EntryType, MessageType } from '../../../src/raft/types.js';
import { testRaftConfig, type RaftTestTuning } from './test-raft-config.js';

/**
 * A tiny in-process network of RawNodes for scripted scenarios. It plays the runtime: for every
 * Ready it persists to a MemoryRaftStorage, queues the messages, applies committed entries
 * (text payloads; ConfChange entries go to applyConfChange) and advances. Messages are delivered
 * only when the test says so (deliver / stabilize), through links that can be cut one way or
 * both. Every command, delivery, role change and applied entry is written to a transcript,
 * printed when a test fails (and as it happens with RAFT_TRANSCRIPT=1); it holds nothing but
 * what the nodes did, in order, so that a seeded run writes the same transcript every time
 * (scenarios.test.ts compares it with test/raft/testdata/), e.g.:
 *
 *   > network voters=1,2,3
 *   > campaign 1
 *   > stabilize
 *   1 is precandidate at term 0
 *   1->2 PreVote term=1 lastIndex=0 lastTerm=0
 *   ...
 *   1 is leader at term 1
 *   1->2 App term=1 index=0 logTerm=0 entries=[1/1] commit=0
 *   ...
 *   1 applies 1/1 (empty)
 */

export interface NetworkOptions extends RaftTestTuning {
  readonly voters: readonly NodeId[];
  readonly learners?: readonly NodeId[];
  readonly seed?: number;
}

export interface TestNode {
  readonly id: NodeId;
  raw: RawNode;
  storage: MemoryRaftStorage;
  /** Payloads applied, in order, as text ('' for the leaders' no-ops is not recorded). */
  applied: string[];
  appliedIndex: number;
  readStates: ReadState[];
  confState: ConfState;
  role: StateRole;
}

const encoder = new TextEncoder();
const decoder = new TextDecoder();

export class RaftNetwork {
  readonly nodes = new Map<NodeId, TestNode>();
  readonly transcript: string[] = [];
  /** Messages sent and not yet delivered, in send order. */
  inFlight: RaftMessage[] = [];
  private readonly cutLinks = new Set<string>();
  private readonly prng: SeededPrng;
  private readonly genesisConfState: ConfState;

  constructor(private readonly options: NetworkOptions) {
    this.prng = new SeededPrng(options.seed ?? 1);
    this.genesisConfState = { voters: [...options.voters], learners: [...(options.learners ?? [])] };
    this.log(`> network ${describeOptions(options)}`);
    for (const id of [...options.voters, ...(options.learners ?? [])]) this.addNode(id);
    onTestFailed(({ task }) => {
      // A golden mismatch already shows its diff; any other failure gets the whole transcript.
      if ((task.result?.errors ?? []).every((e) => e.name === 'GoldenTranscriptMismatchError')) return;
      console.log(`transcript:\n${this.transcript.join('\n')}`);
    });
  }

  /**
   * A node bootstrapped with `confState` (by default the cluster's genesis configuration, which a
   * node added later must share: the log records changes from it, not the configuration itself).
   */
  addNode(
    id: NodeId,
    options: { confState?: ConfState; storage?: MemoryRaftStorage; applied?: number } = {},
  ): TestNode {
    const storage = options.storage ?? new MemoryRaftStorage({ confState: options.confState ?? this.genesisConfState });
    const node: TestNode = {
      id,
      raw: this.newRawNode(id, storage, options.applied),
      storage,
      applied: [],
      appliedIndex: 0,
      readStates: [],
      confState: storage.initialState().confState,
      role: 'follower',
    };
    this.nodes.set(id, node);
    return node;
  }

  /** Drops the node's volatile state and rebuilds it from its storage, as after a crash. */
  restart(id: NodeId): void {
    const node = this.node(id);
    this.log(`> restart ${id}`);
    this.drop((m) => m.to === id || m.from === id);
    node.raw = this.newRawNode(id, node.storage, undefined);
    node.applied = [];
    node.appliedIndex = 0;
    node.role = 'follower';
    const snapshot = node.storage.snapshot();
    if (snapshot.meta.index > 0) this.installSnapshotData(node, snapshot.data, snapshot.meta.index);
  }

  node(id: NodeId): TestNode {
    const node = this.nodes.get(id);
    if (node === undefined) throw new Error(`no node ${id}`);
    return node;
  }

  // ---- commands ------------------------------------------------------------------------

  campaign(id: NodeId): void {
    this.log(`> campaign ${id}`);
    this.node(id).raw.campaign();
  }

  propose(id: NodeId, text: string): void {
    this.log(`> propose ${id} ${text}`);
    this.node(id).raw.propose(encoder.encode(text));
  }

  proposeConfChange(id: NodeId, change: Omit<ConfChange, 'context'>): void {
    this.log(`> conf change ${id} ${change.kind} ${change.nodeId}`);
    this.node(id).raw.proposeConfChange({ ...change, context: new Uint8Array(0) });
  }

  transferLeader(id: NodeId, target: NodeId): void {
    this.log(`> transfer leader ${id} -> ${target}`);
    this.node(id).raw.transferLeader(target);
  }

  readIndex(id: NodeId, ctx: string): void {
    this.log(`> read index ${id} ${ctx}`);
    this.node(id).raw.readIndex(encoder.encode(ctx));
  }

  tick(id: NodeId, times = 1): void {
    this.log(`> tick ${id} x${times}`);
    for (let i = 0; i < times; i++) this.node(id).raw.tick();
  }

  tickAll(times = 1): void {
    this.log(`> tick all x${times}`);
    for (let i = 0; i < times; i++) for (const node of this.nodes.values()) node.raw.tick();
  }

  /** Cuts every link between the groups (both ways); links within a group stay up. */
  partition(...groups: NodeId[][]): void {
    this.log(`> partition ${groups.map((g) => g.join(' ')).join(' | ')}`);
    for (const a of groups)
      for (const b of groups) if (a !== b) for (const x of a) for (const y of b) this.cutLinks.add(`${x}->${y}`);
  }

  isolate(id: NodeId): void {
    this.partition(
      [id],
      [...this.nodes.keys()].filter((other) => other !== id),
    );
  }

  cutOneWay(from: NodeId, to: NodeId): void {
    this.log(`> cut ${from} -> ${to}`);
    this.cutLinks.add(`${from}->${to}`);
  }

  heal(): void {
    this.log('> heal');
    this.cutLinks.clear();
  }

  /** Makes a snapshot of `id`'s applied state at `index` and compacts its log up to there. */
  compact(id: NodeId, index: number): void {
    const node = this.node(id);
    this.log(`> compact ${id} ${index}`);
    if (index > node.appliedIndex) throw new Error(`compact ${id} ${index}: only ${node.appliedIndex} applied`);
    node.storage.createSnapshot(index, node.confState, encoder.encode(JSON.stringify(node.applied)));
    node.storage.compact(index);
  }

  // ---- the runtime ---------------------------------------------------------------------

  /** Handles every pending Ready (persist, queue messages, apply, advance). */
  processReadies(): boolean {
    let isBusy = false;
    for (const node of this.nodes.values()) {
      while (node.raw.hasReady()) {
        isBusy = true;
        this.handleReady(node);
      }
    }
    return isBusy;
  }

  private handleReady(node: TestNode): void {
    const ready = node.raw.ready();
    if (ready.snapshot !== null) node.storage.applySnapshot(ready.snapshot);
    node.storage.append(ready.entries);
    if (ready.hardState !== null) node.storage.setHardState(ready.hardState);
    for (const m of ready.messages) this.inFlight.push(m);
    if (ready.snapshot !== null) {
      this.installSnapshotData(node, ready.snapshot.data, ready.snapshot.meta.index);
      this.log(`${node.id} installs snapshot ${ready.snapshot.meta.term}/${ready.snapshot.meta.index}`);
    }
    for (const entry of ready.committedEntries) this.apply(node, entry);
    for (const readState of ready.readStates) {
      node.readStates.push(readState);
      this.log(`${node.id} read state index=${readState.index} ctx=${decoder.decode(readState.requestCtx)}`);
    }
    if (ready.softState !== null && ready.softState.role !== node.role) {
      node.role = ready.softState.role;
      this.log(`${node.id} is ${node.role} at term ${node.raw.status().term}`);
    }
    node.raw.advance(ready);
  }

  private apply(node: TestNode, entry: Entry): void {
    node.appliedIndex = entry.index;
    if (entry.type === EntryType.ConfChange) {
      const change = decodeConfChange(entry.data);
      node.confState = node.raw.applyConfChange(change);
      this.log(`${node.id} applies ${change.kind} ${change.nodeId} at ${entry.index}`);
    } else if (entry.data.length > 0) {
      node.applied.push(decoder.decode(entry.data));
      this.log(`${node.id} applies ${entry.term}/${entry.index} ${decoder.decode(entry.data)}`);
    } else {
      this.log(`${node.id} applies ${entry.term}/${entry.index} (empty)`);
    }
  }

  private installSnapshotData(node: TestNode, data: Uint8Array, index: number): void {
    node.applied = JSON.parse(decoder.decode(data)) as string[];
    node.appliedIndex = index;
    node.confState = node.storage.snapshot().meta.confState;
  }

  /** Delivers queued messages (those matching `filter`, all by default), in order, once each. */
  deliver(filter: (m: RaftMessage) => boolean = () => true): number {
    const toDeliver: RaftMessage[] = [];
    const kept: RaftMessage[] = [];
    for (const m of this.inFlight) (filter(m) ? toDeliver : kept).push(m);
    this.inFlight = kept;
    for (const m of toDeliver) this.deliverOne(m);
    return toDeliver.length;
  }

  /** Drops queued messages matching `filter` and returns them. */
  drop(filter: (m: RaftMessage) => boolean): RaftMessage[] {
    const dropped: RaftMessage[] = [];
    const kept: RaftMessage[] = [];
    for (const m of this.inFlight) (filter(m) ? dropped : kept).push(m);
    this.inFlight = kept;
    for (const m of dropped) this.lost(m, 'dropped');
    return dropped;
  }

  /**
   * A message that will never arrive. The runtime owes the core a report for every snapshot it
   * was asked to send, or the leader would wait for that follower forever.
   */
  private lost(m: RaftMessage, why: string): void {
    this.log(`${why} ${describeRaftMessage(m)}`);
    if (m.type === MessageType.Snap) this.nodes.get(m.from)?.raw.reportSnapshot(m.to, 'failure');
  }

  private deliverOne(m: RaftMessage): void {
    const target = this.nodes.get(m.to);
    if (target === undefined || this.cutLinks.has(`${m.from}->${m.to}`)) {
      this.lost(m, 'lost');
      return;
    }
    this.log(describeRaftMessage(m));
    target.raw.step(m);
    // The runtime streams the snapshot itself; here it arrives whole with the message.
    if (m.type === MessageType.Snap) this.nodes.get(m.from)?.raw.reportSnapshot(m.to, 'finished');
  }

  /** Processes readies and delivers messages until nothing moves (bounded, so a livelock fails). */
  stabilize(roundsMax = 1_000): void {
    this.log('> stabilize');
    for (let round = 0; round < roundsMax; round++) {
      const isBusy = this.processReadies();
      if (this.deliver() === 0 && !isBusy) return;
    }
    throw new Error(`no quiescence after ${roundsMax} rounds`);
  }

  // ---- observation ---------------------------------------------------------------------

  leaders(): NodeId[] {
    return [...this.nodes.values()].filter((n) => n.raw.status().role === 'leader').map((n) => n.id);
  }

  /** The log of `id` as "term/index" pairs from its first index, for compact assertions. */
  logOf(id: NodeId): string[] {
    const storage = this.node(id).storage;
    const first = storage.firstIndex();
    const last = storage.lastIndex();
    if (last < first) return [];
    return storage.entries(first, last + 1, Number.MAX_SAFE_INTEGER).map((e) => `${e.term}/${e.index}`);
  }

  log(line: string): void {
    this.transcript.push(line);
    if (process.env.RAFT_TRANSCRIPT === '1') console.log(line);
  }

  private newRawNode(id: NodeId, storage: MemoryRaftStorage, applied: number | undefined): RawNode {
    return new RawNode(
      testRaftConfig({ id, storage, prng: this.prng.fork(), applied }, this.options, {
        preVote: true,
        checkQuorum: true,
      }),
    );
  }
}

/** The options as a transcript shows them: voters, learners, then any tuning in the order given. */
function describeOptions(options: NetworkOptions): string {
  const parts = [`voters=${options.voters.join(',')}`];
  for (const [key, value] of Object.entries(options)) {
    if (key === 'voters' || value === undefined) continue;
    if (key === 'learners') parts.push(`learners=${(value as readonly NodeId[]).join(',')}`);
    else if (key === 'faults') parts.push(`faults=${Object.keys(value as object).join(',')}`);
    else parts.push(`${key}=${String(value)}`);
  }
  return parts.join(' ');
}

/** Text payload helper for tests that inspect entries. */
export function text(data: Uint8Array): string {
  return decoder.decode(data);
}
