/**
 * One node's process in the whole-node simulation, wired as `raftq serve` wires it: the real
 * ClusterNode (over the simulated transport, virtual timers and the node's SimDisk), the real
 * QueueService, the gateway's ForwardingQueueOperations (a follower forwards to the leader over
 * the op stream) and the leader's upkeep (reaper and dead-letter move tasks). Only the SQS HTTP
 * layer is left out: the workload calls the queue operations the gateway would call.
 *
 * A crash ends the process at once, between two events: its timers are dropped, its transport
 * detached, its disk handle refused; nothing of it runs again. A restart is a new incarnation on
 * the same disk.
 */
import pino from 'pino';
import type { Clock } from '../../src/base/clock.js';
import { SeededPrng } from '../../src/base/prng.js';
import { ClusterNode } from '../../src/cluster/cluster-node.js';
import type { NodeFaults } from '../../src/cluster/node-runtime.js';
import { nodeConfigDefaults, validateNodeConfig } from '../../src/cluster/node-config.js';
import { startStateUpkeep, type StateUpkeep } from '../../src/cli/state-upkeep.js';
import { ForwardingQueueOperations } from '../../src/forwarding/forwarding-queue-operations.js';
import { queueOpHandler } from '../../src/forwarding/queue-op-server.js';
import type { QueueOperations } from '../../src/queue/queue-operations.js';
import { QueueService } from '../../src/queue/queue-service.js';
import { DiskHandle, type DiskFaults, type SimDisk } from './sim-disk.js';
import { simTransportFactory, type SimNet } from './sim-net.js';
import { simEpochMs, type VirtualTime } from './virtual-time.js';

const silentLogger = pino({ level: process.env['SIM_NODE_LOG'] ?? 'silent' });

export interface SimNodeTuning {
  readonly tickMs: number;
  readonly electionTimeoutTicks: number;
  readonly heartbeatTicks: number;
  readonly snapshotThresholdEntries: number;
  readonly snapshotCatchUpEntries: number;
  readonly writeLatencyMsMax: number;
}

export interface SimProcessFaults {
  readonly node?: NodeFaults;
  readonly disk?: DiskFaults;
}

/** A uuid-shaped id from the run's PRNG: message ids and idempotency keys, reproducible. */
export function prngUuid(prng: SeededPrng): string {
  const hex = Array.from({ length: 32 }, () => prng.intBelow(16).toString(16));
  hex[12] = '4';
  hex[16] = (8 + prng.intBelow(4)).toString(16);
  const s = hex.join('');
  return `${s.slice(0, 8)}-${s.slice(8, 12)}-${s.slice(12, 16)}-${s.slice(16, 20)}-${s.slice(20)}`;
}

export class SimProcess {
  node: ClusterNode | null = null;
  queues: QueueOperations | null = null;
  private queueService: QueueService | null = null;
  private upkeep: StateUpkeep | null = null;
  private handle: DiskHandle | null = null;
  incarnation = 0;
  isUp = false;
  /** Set when the node failed to start or hit a fatal error (a violation unless expected). */
  fatal: unknown = null;
  /** This node's wall clock offset from virtual time (clock jumps). */
  clockOffsetMs = 0;
  readonly wallClock: Clock;
  /** Hears this node become leader (for the trace). */
  onBecameLeader: (term: number) => void = () => undefined;

  /** Hears each incarnation's node once it is open, before any client can reach it (replica-side checks). */
  onNodeOpened: (node: ClusterNode) => void = () => undefined;

  /** Joins an existing cluster (`--join`) instead of founding it. */
  isJoining = false;

  constructor(
    readonly id: string,
    public disk: SimDisk,
    /** The --peers list: the founders (the bootstrap configuration), or for a joining node every node it may need to reach. */
    public peers: Record<string, string>,
    private readonly time: VirtualTime,
    private readonly net: SimNet,
    private readonly prng: SeededPrng,
    private readonly tuning: SimNodeTuning,
    private readonly faults: SimProcessFaults,
  ) {
    this.wallClock = { nowMs: () => simEpochMs + this.time.nowMs + this.clockOffsetMs };
  }

  get owner(): string {
    return `${this.id}#${this.incarnation}`;
  }

  /** Starts a new incarnation (as its own process); resolves once the node is open, or failed to open. */
  start(): Promise<void> {
    this.incarnation++;
    this.isUp = true;
    this.fatal = null;
    const handle = new DiskHandle(
      () => (this.tuning.writeLatencyMsMax === 0 ? 0 : this.prng.intBelow(this.tuning.writeLatencyMsMax + 1)),
      (ms) => new Promise<void>((resolve) => this.time.after(ms, resolve)),
    );
    this.handle = handle;
    const owner = this.owner;
    const processPrng = new SeededPrng(this.prng.intBelow(2 ** 31));
    return new Promise<void>((resolve) => {
      this.time.at(owner, 0, () => {
        void this.open(handle, processPrng, owner).then(resolve, (error: unknown) => {
          if (this.owner === owner) this.fatal = error;
          resolve();
        });
      });
    });
  }

  private async open(handle: DiskHandle, processPrng: SeededPrng, owner: string): Promise<void> {
    const config = validateNodeConfig({
      ...nodeConfigDefaults(),
      join: this.isJoining,
      id: this.id,
      dataDir: `sim:${this.id}`,
      raftListen: this.peers[this.id] as string,
      peers: this.peers,
      tickMs: this.tuning.tickMs,
      electionTimeoutTicks: this.tuning.electionTimeoutTicks,
      heartbeatTicks: this.tuning.heartbeatTicks,
      snapshotThresholdEntries: this.tuning.snapshotThresholdEntries,
      snapshotCatchUpEntries: this.tuning.snapshotCatchUpEntries,
    });
    const node = await ClusterNode.open({
      config,
      logger: silentLogger.child({ node: this.id }),
      wallClock: this.wallClock,
      isProcessMetricsOn: false,
      onFatal: (error) => {
        if (this.owner === owner) this.fatal = error;
      },
      runtime: {
        transport: simTransportFactory(this.net, owner),
        scheduler: this.time,
        random: () => processPrng.nextFloat(),
        storage: this.disk.storageFor(handle, this.faults.disk ?? {}, this.time),
        ...(this.faults.node === undefined ? {} : { faults: this.faults.node }),
      },
    });
    if (this.owner !== owner) return;
    this.onNodeOpened(node);
    let wasLeader = false;
    node.onLeadershipChange(() => {
      const isLeader = node.isLeader();
      if (isLeader && !wasLeader && this.owner === owner) this.onBecameLeader(node.currentTerm());
      wasLeader = isLeader;
    });
    const queueService = new QueueService({
      executor: node,
      accountId: '000000000000',
      region: 'us-east-1',
      scheduler: { setTimerMs: (delayMs, fn) => this.time.after(delayMs, fn) },
      newId: () => prngUuid(processPrng),
    });
    node.serveForwardedOps(queueOpHandler(queueService));
    this.queues = new ForwardingQueueOperations({ local: queueService, node, newId: () => prngUuid(processPrng) });
    this.upkeep = startStateUpkeep({ node, queueService, reaperIntervalMs: 1_000, logger: silentLogger });
    this.queueService = queueService;
    this.node = node;
  }

  /** kill -9 or power loss: the process stops between two events. The disk is the caller's to crash. */
  kill(): void {
    if (!this.isUp) return;
    this.isUp = false;
    if (this.handle !== null) this.handle.isAlive = false;
    this.time.killOwner(this.owner);
    this.net.detach(this.id);
    this.node = null;
    this.queues = null;
    this.queueService = null;
    this.upkeep = null;
  }
}
