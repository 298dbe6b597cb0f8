/**
 * One run of the whole-node simulator: a seed builds a cluster of three or five real ClusterNodes
 * with the real queue service (sim-process.ts) on a simulated network and disks, drives SQS-level
 * operations through any node while it injects faults, heals, checks liveness, drains the queues
 * and judges the history (queue-checkers.ts). Everything runs on virtual time (virtual-time.ts)
 * and draws from one SeededPrng, so a seed replays exactly: same trace, same hash.
 */
import { createHash } from 'node:crypto';
import { SeededPrng } from '../../src/base/prng.js';
import type { QueueOperations } from '../../src/queue/queue-operations.js';
import { DeadGenerationWatch, type DeadGenerationWrite } from './dead-generation-watch.js';
import { checkHistory, type QueueViolation } from './queue-checkers.js';
import { QueueHistory, type DeleteRecord, type ReceivedCopy } from './queue-history.js';
import { SimDisk } from './sim-disk.js';
import { SimNet } from './sim-net.js';
import { SimProcess, type SimNodeTuning, type SimProcessFaults } from './sim-process.js';
import { VirtualTime } from './virtual-time.js';

/** The planted faults `--fault NAME` switches on: each must be caught by a checker. */
export const plantedFaults = [
  'ack-before-fsync',
  'apply-before-commit',
  'compact-past-flush',
  'skip-read-validation',
] as const;
export type PlantedFault = (typeof plantedFaults)[number];

/** Fault kinds the chaos phase draws from; `--only-faults` narrows them (to find which one a failure needs). */
export const chaosFaultKinds = [
  'partition',
  'heal',
  'crash',
  'powerLoss',
  'clockJump',
  'dropRate',
  'membership',
] as const;
export type ChaosFaultKind = (typeof chaosFaultKinds)[number];

export interface NodeSimOptions {
  readonly planted?: readonly PlantedFault[];
  readonly isKeepingTrace?: boolean;
  readonly chaosMs?: number;
  readonly faultKinds?: readonly ChaosFaultKind[];
  /**
   * 'mixed' (default): every fault kind. 'leaderChurn': leaders are cut off or crashed again and
   * again while six clients receive, so transactions of two leaders race (what a forgotten read
   * key needs to show). 'queueChurn': a fourth queue, `churn`, is deleted and created again and
   * again while the clients send to it and receive from it (a send or claim that read the queue's
   * meta before a DeleteQueue must not commit after it: what a forgotten meta read lets through);
   * every fault kind but clock jumps (left out for the double delivery they showed at seeds 29
   * and 186, since fixed: docs/architecture/simulator.md).
   */
  readonly profile?: NodeSimProfile;
}

export const nodeSimProfiles = ['mixed', 'leaderChurn', 'queueChurn'] as const;
export type NodeSimProfile = (typeof nodeSimProfiles)[number];

export interface NodeSimResult {
  readonly seed: number;
  readonly nodeCount: number;
  readonly violations: readonly QueueViolation[];
  readonly trace: readonly string[];
  readonly traceHash: string;
  readonly events: number;
  readonly virtualMs: number;
  readonly stats: {
    sends: number;
    acknowledgedSends: number;
    receives: number;
    delivered: number;
    deletes: number;
    faults: number;
    powerLosses: number;
    crashes: number;
    snapshotInstalls: number;
  };
}

const queueNames = { standard: 'std', deadLetter: 'std-dlq', fifo: 'jobs.fifo' } as const;
/** The queue the queueChurn profile deletes and creates again. */
const churnQueue = 'churn';
const clientOpTimeoutMs = 8_000;
const livenessBoundMs = 30_000;
const drainBoundMs = 60_000;

class Trace {
  readonly lines: string[] = [];
  private readonly hash = createHash('sha256');

  constructor(
    private readonly time: VirtualTime,
    private readonly isKeeping: boolean,
  ) {}

  add(text: string): void {
    const line = `${String(this.time.nowMs).padStart(7)} ${text}`;
    this.hash.update(line).update('\n');
    if (this.isKeeping) this.lines.push(line);
  }

  digest(): string {
    return this.hash.digest('hex');
  }
}

export async function runNodeSimulation(seed: number, options: NodeSimOptions = {}): Promise<NodeSimResult> {
  const time = new VirtualTime();
  const unhandled: unknown[] = [];
  const onUnhandled = (reason: unknown): void => {
    unhandled.push(reason);
  };
  process.on('unhandledRejection', onUnhandled);
  try {
    return await new NodeSimulation(seed, time, options, unhandled).run();
  } finally {
    process.off('unhandledRejection', onUnhandled);
  }
}

class NodeSimulation {
  private readonly prng: SeededPrng;
  private readonly trace: Trace;
  private readonly net: SimNet;
  private readonly processes: SimProcess[] = [];
  private readonly history = new QueueHistory();
  private readonly violations: QueueViolation[] = [];
  private readonly planted: ReadonlySet<PlantedFault>;
  private readonly faultKinds: readonly ChaosFaultKind[];
  private nextBody = 1;
  private isChaos = false;
  private isClientsRunning = false;
  private readonly stats = { faults: 0, powerLosses: 0, crashes: 0 };
  private readonly nodeCount: number;
  private readonly isLeaderChurn: boolean;
  private readonly isQueueChurn: boolean;
  /** What the replicas' dead-generation watches reported, judged at the end (bodies are known by then). */
  private readonly deadGenerationWrites: Array<{ node: string; atMs: number; finding: DeadGenerationWrite }> = [];
  /** The body of each message id a send was answered with. */
  private readonly bodyOfMessageId = new Map<string, string>();
  /** The node outside the cluster: added by a membership change, and one removed takes its place. */
  private spare: SimProcess | null = null;
  /** Every node's address: what a joining node is started with. */
  private allPeers: Record<string, string> = {};
  private isMembershipChanging = false;

  constructor(
    private readonly seed: number,
    private readonly time: VirtualTime,
    private readonly options: NodeSimOptions,
    private readonly unhandled: unknown[],
  ) {
    this.prng = new SeededPrng(seed);
    this.trace = new Trace(time, options.isKeepingTrace ?? false);
    this.net = new SimNet(time, this.prng.fork());
    this.planted = new Set(options.planted ?? []);
    this.isLeaderChurn = options.profile === 'leaderChurn';
    this.isQueueChurn = options.profile === 'queueChurn';
    this.faultKinds =
      options.faultKinds ??
      (this.isLeaderChurn
        ? ['partition', 'crash', 'heal']
        : this.isQueueChurn
          ? chaosFaultKinds.filter((kind) => kind !== 'clockJump')
          : chaosFaultKinds);
    this.nodeCount = seed % 2 === 0 ? 3 : 5;
  }

  async run(): Promise<NodeSimResult> {
    const { prng } = this;
    const tuning: SimNodeTuning = {
      tickMs: 50,
      electionTimeoutTicks: 10,
      heartbeatTicks: 2,
      snapshotThresholdEntries: [20, 50, 200][prng.intBelow(3)] as number,
      snapshotCatchUpEntries: [4, 10][prng.intBelow(2)] as number,
      writeLatencyMsMax: prng.intBelow(4),
    };
    this.net.dropRate = [0, 0.01, 0.05][prng.intBelow(3)] as number;
    this.net.delayMsMin = 1;
    this.net.delayMsMax = 1 + prng.intBelow(20);
    const ids = Array.from({ length: this.nodeCount }, (_, i) => `n${i + 1}`);
    const peers = Object.fromEntries(ids.map((id, i) => [id, `sim-${id}:${9000 + i}`]));
    const faults = this.processFaults();
    for (const id of ids) {
      const p = new SimProcess(id, new SimDisk(), peers, this.time, this.net, prng.fork(), tuning, faults);
      p.onBecameLeader = (term) => this.trace.add(`leader ${id} (term ${term})`);
      this.watchGenerations(p);
      this.processes.push(p);
    }
    // One more node, outside the cluster until a membership change adds it.
    const spareId = `n${this.nodeCount + 1}`;
    const sparePeers = { ...peers, [spareId]: `sim-${spareId}:${9000 + this.nodeCount}` };
    this.spare = new SimProcess(spareId, new SimDisk(), sparePeers, this.time, this.net, prng.fork(), tuning, faults);
    this.spare.isJoining = true;
    this.spare.onBecameLeader = (term) => this.trace.add(`leader ${spareId} (term ${term})`);
    this.watchGenerations(this.spare);
    this.allPeers = sparePeers;
    this.trace.add(
      `start seed=${this.seed} nodes=${ids.join(',')} drop=${this.net.dropRate} delay=${this.net.delayMsMin}..${this.net.delayMsMax}ms latency<=${tuning.writeLatencyMsMax}ms snapshotEvery=${tuning.snapshotThresholdEntries} keep=${tuning.snapshotCatchUpEntries}${this.planted.size > 0 ? ` planted=${[...this.planted].join(',')}` : ''}`,
    );
    let started = 0;
    for (const p of this.processes) void p.start().then(() => started++);
    await this.time.runUntil(this.time.nowMs + 5_000, () => started === this.processes.length);
    this.noteFatals();
    await this.time.runUntil(this.time.nowMs + 10_000, () => this.leader() !== null);
    if (!(await this.createQueues())) {
      this.violations.push({
        kind: 'liveness',
        message: 'could not create the queues within 30 s of start',
        bodies: [],
      });
      return this.finish();
    }
    // Chaos: clients and faults together.
    const chaosMs = this.options.chaosMs ?? 20_000;
    this.isChaos = true;
    this.isClientsRunning = true;
    const clientCount = this.isLeaderChurn || this.isQueueChurn ? 6 : 3 + prng.intBelow(3);
    for (let c = 1; c <= clientCount; c++) this.clientLoop(`c${c}`);
    if (this.isQueueChurn) this.churnLoop();
    this.scheduleFault();
    const chaosEndMs = this.time.nowMs + chaosMs;
    while (this.time.nowMs < chaosEndMs) {
      await this.time.runUntil(Math.min(chaosEndMs, this.time.nowMs + 2_000));
      this.noteFatals();
      await this.checkDigests(false);
    }
    this.isChaos = false;
    this.isClientsRunning = false;
    // Heal: every link, every process; let in-flight client operations end.
    this.heal();
    await this.time.runUntil(this.time.nowMs + clientOpTimeoutMs + 1_000);
    this.noteFatals();
    await this.reconcileMembership();
    this.noteFatals();
    if (this.isQueueChurn && !(await this.createQueue(churnQueue, {}, this.time.nowMs + 30_000)))
      this.violations.push({ kind: 'liveness', message: `could not create ${churnQueue} after healing`, bodies: [] });
    await this.checkLiveness();
    await this.drain();
    await this.settleAndCompareDigests();
    return this.finish();
  }

  private processFaults(): SimProcessFaults {
    const p = this.planted;
    return {
      node: {
        ...(p.has('apply-before-commit') ? { applyBeforeCommit: true } : {}),
        ...(p.has('compact-past-flush') ? { compactPastFlush: true } : {}),
      },
      disk: {
        ...(p.has('ack-before-fsync') ? { log: { ackBeforeFsync: true } } : {}),
        ...(p.has('skip-read-validation') ? { state: { skipReadValidation: true } } : {}),
      },
    };
  }

  // ---- nodes ------------------------------------------------------------------------------

  private leader(): SimProcess | null {
    return this.processes.find((p) => p.node !== null && p.node.isLeader()) ?? null;
  }

  private upProcesses(): SimProcess[] {
    return this.processes.filter((p) => p.queues !== null);
  }

  private noteFatals(): void {
    for (const p of this.spare === null ? this.processes : [...this.processes, this.spare]) {
      if (p.fatal === null) continue;
      const error = p.fatal;
      p.fatal = null;
      this.violations.push({
        kind: 'nodeFatal',
        message: `${p.id} (incarnation ${p.incarnation}) failed: ${describeError(error)}`,
        bodies: [],
      });
      this.trace.add(`fatal ${p.id}: ${describeError(error)}`);
      p.kill();
    }
    for (const { owner, error } of this.time.thrown.splice(0)) {
      this.violations.push({
        kind: 'unexpectedError',
        message: `a timer of ${owner} threw: ${describeError(error)}`,
        bodies: [],
      });
    }
    for (const reason of this.unhandled.splice(0)) {
      this.violations.push({
        kind: 'unexpectedError',
        message: `unhandled rejection: ${describeError(reason)}`,
        bodies: [],
      });
    }
  }

  private restartLater(p: SimProcess, delayMs: number): void {
    this.time.at('sim', delayMs, () => {
      if (p.isUp) return;
      this.trace.add(`restart ${p.id}`);
      void p
        .start()
        .then(() =>
          this.trace.add(
            p.node === null
              ? `restart ${p.id} failed`
              : `up ${p.id}#${p.incarnation} applied=${p.node.appliedIndex()} snapshot=${p.node.logBounds().snapshotIndex} last=${p.node.logBounds().lastIndex}`,
          ),
        );
    });
  }

  // ---- faults ------------------------------------------------------------------------------

  private scheduleFault(): void {
    this.time.at('sim', 300 + this.prng.intBelow(2_200), () => {
      if (!this.isChaos) return;
      this.injectFault();
      this.scheduleFault();
    });
  }

  private injectFault(): void {
    const { prng } = this;
    const kind = this.faultKinds[prng.intBelow(this.faultKinds.length)] as ChaosFaultKind;
    this.stats.faults++;
    const ids = this.processes.map((p) => p.id);
    switch (kind) {
      case 'partition': {
        this.net.healAll();
        const shuffled = shuffle(ids, prng);
        const shape = this.isLeaderChurn ? 0 : prng.intBelow(4);
        if (shape === 0) {
          // An isolated node: the leader half the time (its in-flight work meets a new leader's).
          const lone =
            this.isLeaderChurn || prng.intBelow(2) === 0
              ? (this.leader()?.id ?? (shuffled[0] as string))
              : (shuffled[0] as string);
          for (const other of ids)
            if (other !== lone) {
              this.net.cut(lone, other);
              this.net.cut(other, lone);
            }
        } else if (shape === 1) {
          const minority = shuffled.slice(0, Math.floor(ids.length / 2));
          for (const a of minority)
            for (const b of ids)
              if (!minority.includes(b)) {
                this.net.cut(a, b);
                this.net.cut(b, a);
              }
        } else if (shape === 2) {
          const links = 1 + prng.intBelow(ids.length);
          for (let i = 0; i < links; i++) {
            const [a, b] = shuffle(ids, prng) as [string, string];
            this.net.cut(a, b);
          }
        } else {
          // A bridge: the middle node sees both sides, the sides do not see each other.
          const [middle, ...rest] = shuffled as [string, ...string[]];
          const left = rest.slice(0, Math.ceil(rest.length / 2));
          for (const a of left)
            for (const b of rest)
              if (!left.includes(b)) {
                this.net.cut(a, b);
                this.net.cut(b, a);
              }
          void middle;
        }
        this.trace.add(`partition cut ${this.net.describeCuts()}`);
        return;
      }
      case 'heal':
        this.net.healAll();
        this.trace.add('heal links');
        return;
      case 'crash': {
        const leader = this.leader();
        const victims =
          leader !== null && (this.isLeaderChurn || prng.intBelow(2) === 0)
            ? [leader]
            : shuffle(
                this.processes.filter((p) => p.isUp),
                prng,
              ).slice(0, 1 + prng.intBelow(2));
        for (const p of victims) {
          p.kill();
          p.disk.processCrash();
          this.stats.crashes++;
          this.trace.add(`crash ${p.id} (process)`);
          this.restartLater(p, 200 + prng.intBelow(3_000));
        }
        return;
      }
      case 'powerLoss': {
        const isWhole = prng.intBelow(3) === 0;
        const victims = isWhole
          ? this.processes
          : shuffle(this.processes, prng).slice(0, 1 + prng.intBelow(this.processes.length));
        for (const p of victims) {
          p.kill();
          const lost = p.disk.powerLoss(prng);
          this.stats.powerLosses++;
          this.trace.add(`power loss ${p.id}${isWhole ? ' (whole cluster)' : ''}: ${lost} unsynced batches lost`);
          this.restartLater(p, 200 + prng.intBelow(3_000));
        }
        return;
      }
      case 'clockJump': {
        // The clock is stepped back right 1–5 s later (an NTP correction).
        const p = this.processes[prng.intBelow(this.processes.length)] as SimProcess;
        const jumpMs = (prng.intBelow(2) === 0 ? -1 : 1) * (500 + prng.intBelow(10_000));
        p.clockOffsetMs += jumpMs;
        this.openClockSkewSpan();
        this.trace.add(`clock jump ${p.id} ${jumpMs > 0 ? '+' : ''}${jumpMs}ms (offset ${p.clockOffsetMs}ms)`);
        this.time.at('sim', 1_000 + prng.intBelow(4_000), () => {
          if (p.clockOffsetMs === 0) return;
          p.clockOffsetMs = 0;
          this.trace.add(`clock corrected ${p.id}`);
          this.closeClockSkewSpanIfRight();
        });
        return;
      }
      case 'dropRate':
        this.net.dropRate = [0, 0.01, 0.05, 0.2][prng.intBelow(4)] as number;
        this.trace.add(`drop rate ${this.net.dropRate}`);
        return;
      case 'membership':
        this.changeMembership();
        return;
    }
  }

  /**
   * Adds the spare node (started with --join, added through the leader: a learner, promoted once
   * caught up) or removes a member (the leader itself sometimes), which is then stopped, its disk
   * wiped, and becomes the spare. One change at a time; at least three members stay.
   */
  private changeMembership(): void {
    const leader = this.leader();
    if (this.isMembershipChanging || leader === null || leader.node === null) return;
    this.isMembershipChanging = true;
    const done = (): void => {
      this.isMembershipChanging = false;
    };
    const spare = this.spare;
    if (spare !== null && this.prng.intBelow(2) === 0) {
      this.trace.add(`membership: add ${spare.id} via ${leader.id}`);
      if (!spare.isUp) void spare.start();
      this.invokeNode(
        leader,
        (node) => node.membershipAdmin.addMember(spare.id, this.allPeers[spare.id] as string),
        (result) => {
          this.trace.add(`membership: add ${spare.id}: ${result.ok ? result.value : describeFailure(result)}`);
          // After the chaos phase, reconcileMembership() decides from the configuration itself.
          if (result.ok && this.isChaos) {
            this.processes.push(spare);
            this.spare = null;
          }
          done();
        },
      );
      return;
    }
    if (this.processes.length <= 3) return done();
    const victim = this.processes[this.prng.intBelow(this.processes.length)] as SimProcess;
    this.trace.add(`membership: remove ${victim.id} via ${leader.id}`);
    this.invokeNode(
      leader,
      (node) => node.membershipAdmin.removeMember(victim.id),
      (result) => {
        this.trace.add(`membership: remove ${victim.id}: ${result.ok ? 'ok' : describeFailure(result)}`);
        if (result.ok && this.isChaos) this.retire(victim);
        done();
      },
    );
  }

  /** A node gone from the configuration stops for good; its id may join again, with an empty disk, as the spare. */
  private retire(p: SimProcess): void {
    p.kill();
    const index = this.processes.indexOf(p);
    if (index >= 0) this.processes.splice(index, 1);
    this.trace.add(`retire ${p.id}`);
    if (this.spare !== null) return;
    p.disk = new SimDisk();
    p.isJoining = true;
    p.peers = this.allPeers;
    this.spare = p;
  }

  /**
   * After healing, the nodes are what the configuration says: a member that is not running
   * (a spare whose addition was not answered) is brought in, a running node that is no member
   * (a removal that was not answered) retires.
   */
  private async reconcileMembership(): Promise<void> {
    await this.time.runUntil(this.time.nowMs + 10_000, () => this.leader() !== null);
    const leader = this.leader();
    if (leader === null || leader.node === null) return;
    const conf = leader.node.confState();
    const members = new Set([...conf.voters, ...conf.learners]);
    for (const p of [...this.processes]) if (!members.has(p.id)) this.retire(p);
    const spare = this.spare;
    if (spare !== null && members.has(spare.id)) {
      this.spare = null;
      this.processes.push(spare);
      if (!spare.isUp) this.restartLater(spare, 0);
    } else if (spare !== null && spare.isUp) {
      spare.kill();
    }
    this.trace.add(`members ${[...members].sort().join(',')}`);
  }

  /** Runs `op` on a node's ClusterNode as its process; `done` hears the answer or a timeout. */
  private invokeNode<T>(
    via: SimProcess,
    op: (node: NonNullable<SimProcess['node']>) => Promise<T>,
    done: (result: { ok: true; value: T } | { ok: false; error: unknown }) => void,
  ): void {
    let isSettled = false;
    const settle = (result: { ok: true; value: T } | { ok: false; error: unknown }): void => {
      if (isSettled) return;
      isSettled = true;
      cancelTimeout();
      done(result);
    };
    const cancelTimeout = this.time.at('client', 20_000, () =>
      settle({ ok: false, error: new Error('operator timeout') }),
    );
    this.time.at(via.owner, 0, () => {
      const node = via.node;
      if (node === null) return settle({ ok: false, error: new Error('node down') });
      op(node).then(
        (value) => settle({ ok: true, value }),
        (error: unknown) => settle({ ok: false, error }),
      );
    });
  }

  private openClockSkewSpan(): void {
    const spans = this.history.clockSkewSpans;
    const last = spans[spans.length - 1];
    if (last === undefined || last.toMs !== null) spans.push({ fromMs: this.time.nowMs, toMs: null });
  }

  private closeClockSkewSpanIfRight(): void {
    if (this.processes.some((p) => p.clockOffsetMs !== 0)) return;
    const last = this.history.clockSkewSpans[this.history.clockSkewSpans.length - 1];
    if (last !== undefined && last.toMs === null) last.toMs = this.time.nowMs;
  }

  private heal(): void {
    this.net.healAll();
    this.net.dropRate = 0;
    for (const p of this.processes) p.clockOffsetMs = 0;
    this.closeClockSkewSpanIfRight();
    this.trace.add('heal all: links, drops, processes');
    for (const p of this.processes) if (!p.isUp) this.restartLater(p, 0);
  }

  // ---- clients -----------------------------------------------------------------------------

  /**
   * Runs `op` on the queue operations of a live node, as that node's process; `done` hears the
   * answer or, after clientOpTimeoutMs without one, 'timeout' (the outcome is then unknown).
   */
  private invoke<T>(
    via: SimProcess,
    op: (queues: QueueOperations) => Promise<T>,
    done: (result: { ok: true; value: T } | { ok: false; error: unknown }) => void,
  ): void {
    let isSettled = false;
    const settle = (result: { ok: true; value: T } | { ok: false; error: unknown }): void => {
      if (isSettled) return;
      isSettled = true;
      cancelTimeout();
      done(result);
    };
    const cancelTimeout = this.time.at('client', clientOpTimeoutMs, () =>
      settle({ ok: false, error: new Error('client timeout') }),
    );
    this.time.at(via.owner, 0, () => {
      const queues = via.queues;
      if (queues === null) return settle({ ok: false, error: new Error('node down') });
      op(queues).then(
        (value) => settle({ ok: true, value }),
        (error: unknown) => settle({ ok: false, error }),
      );
    });
  }

  private pickNode(): SimProcess | null {
    const up = this.upProcesses();
    return up.length === 0 ? null : (up[this.prng.intBelow(up.length)] as SimProcess);
  }

  private clientLoop(client: string): void {
    const next = (delayMs: number): void => {
      this.time.at('client', delayMs, () => {
        if (this.isClientsRunning) this.clientStep(client, () => next(20 + this.prng.intBelow(300)));
      });
    };
    next(this.prng.intBelow(200));
  }

  private clientStep(client: string, then: () => void): void {
    const via = this.pickNode();
    if (via === null) return then();
    if (this.isQueueChurn && this.prng.intBelow(100) < 45) {
      if (this.prng.intBelow(3) < 2) this.send(client, via, churnQueue, null, then);
      else this.receive(client, via, churnQueue, false, then);
      return;
    }
    const roll = this.prng.intBelow(100);
    if (roll < 30) this.send(client, via, queueNames.standard, null, then);
    else if (roll < 50) this.send(client, via, queueNames.fifo, `g${this.prng.intBelow(3)}`, then);
    else if (roll < 70) this.receive(client, via, queueNames.standard, false, then);
    else if (roll < 88) this.receive(client, via, queueNames.fifo, false, then);
    else if (roll < 95) this.receive(client, via, queueNames.deadLetter, false, then);
    else if (roll < 99) this.changeVisibility(client, via, then);
    else this.purge(client, via, then);
  }

  private send(client: string, via: SimProcess, queue: string, group: string | null, then: () => void): void {
    const body = `m${this.nextBody++}`;
    const record = {
      body,
      queue,
      group,
      node: via.id,
      issuedMs: this.time.nowMs,
      doneMs: null as number | null,
      outcome: 'pending' as 'pending' | 'ok' | 'failed',
    };
    this.history.sends.set(body, record);
    const entry = {
      entryId: '0',
      body,
      messageAttributes: {},
      systemAttributes: {},
      ...(group === null ? {} : { messageGroupId: group, messageDeduplicationId: body }),
    };
    this.invoke(
      via,
      (q) => q.sendMessages(queue, [entry], { senderId: client }),
      (result) => {
        record.doneMs = this.time.nowMs;
        const answer = result.ok ? result.value[0] : undefined;
        const isOk = result.ok && result.value.length === 1 && answer !== undefined && !('error' in answer);
        record.outcome = isOk ? 'ok' : 'failed';
        if (answer !== undefined && 'messageId' in answer) this.bodyOfMessageId.set(answer.messageId, body);
        this.trace.add(
          `${client} send ${queue}${group === null ? '' : `/${group}`} ${body} via ${via.id}: ${isOk ? 'ok' : describeFailure(result)}`,
        );
        then();
      },
    );
  }

  /** Received copies not yet deleted, per client, for deletes and visibility changes. */
  private readonly held = new Map<string, Array<ReceivedCopy & { queue: string; receiveId: number }>>();

  private receive(client: string, via: SimProcess, queue: string, isDrain: boolean, then: () => void): void {
    const visibilityTimeoutSeconds = isDrain ? 20 : 2 + this.prng.intBelow(8);
    const record = this.history.newReceive(queue, via.id, this.time.nowMs, visibilityTimeoutSeconds * 1000, isDrain);
    const maxMessages = 1 + this.prng.intBelow(isDrain ? 10 : 4);
    this.invoke(
      via,
      (q) => q.receiveMessages(queue, { maxMessages, visibilityTimeoutSeconds, waitTimeSeconds: 0 }),
      (result) => {
        record.doneMs = this.time.nowMs;
        record.outcome = result.ok ? 'ok' : 'failed';
        if (result.ok) record.messages = result.value.map((m) => ({ body: m.body, receiptHandle: m.receiptHandle }));
        this.trace.add(
          `${client} receive#${record.id} ${queue} via ${via.id}: ${result.ok ? `[${record.messages.map((m) => m.body).join(',')}]` : describeFailure(result)}`,
        );
        if (!result.ok || record.messages.length === 0) return then();
        // Most received messages are deleted at once (FIFO ones nearly always, to keep groups moving).
        const deleteShare = isDrain ? 1 : queue === queueNames.fifo ? 0.9 : 0.7;
        const toDelete = record.messages.filter(() => this.prng.nextFloat() < deleteShare);
        const kept = record.messages.filter((m) => !toDelete.includes(m));
        const held = this.held.get(client) ?? [];
        held.push(...kept.map((m) => ({ ...m, queue, receiveId: record.id })));
        this.held.set(client, held.slice(-10));
        if (toDelete.length === 0) return then();
        const deleteVia = this.pickNode() ?? via;
        this.deleteCopies(client, deleteVia, queue, record.id, toDelete, then);
      },
    );
  }

  private deleteCopies(
    client: string,
    via: SimProcess,
    queue: string,
    receiveId: number,
    copies: readonly ReceivedCopy[],
    then: () => void,
  ): void {
    const records: DeleteRecord[] = copies.map((c) => ({
      body: c.body,
      queue,
      receiveId,
      node: via.id,
      issuedMs: this.time.nowMs,
      doneMs: null,
      outcome: 'pending',
    }));
    this.history.deletes.push(...records);
    const entries = copies.map((c, i) => ({ entryId: String(i), receiptHandle: c.receiptHandle }));
    this.invoke(
      via,
      (q) => q.deleteMessages(queue, entries),
      (result) => {
        const outcomes: string[] = [];
        records.forEach((record, i) => {
          record.doneMs = this.time.nowMs;
          if (!result.ok) record.outcome = 'failed';
          else record.outcome = 'error' in (result.value[i] as object) ? 'refused' : 'ok';
          outcomes.push(`${record.body}:${record.outcome}`);
        });
        this.trace.add(
          `${client} delete ${queue} via ${via.id}: ${result.ok ? outcomes.join(' ') : describeFailure(result)}`,
        );
        then();
      },
    );
  }

  private changeVisibility(client: string, via: SimProcess, then: () => void): void {
    const held = this.held.get(client) ?? [];
    const copy = held.shift();
    if (copy === undefined) return then();
    const visibilityTimeoutSeconds = this.prng.intBelow(2) === 0 ? 0 : 5;
    this.history.visibilityChanges.push({ body: copy.body, issuedMs: this.time.nowMs });
    this.invoke(
      via,
      (q) =>
        q.changeMessageVisibility(copy.queue, [
          { entryId: '0', receiptHandle: copy.receiptHandle, visibilityTimeoutSeconds },
        ]),
      (result) => {
        this.trace.add(
          `${client} change visibility ${copy.queue} ${copy.body} to ${visibilityTimeoutSeconds}s via ${via.id}: ${result.ok ? ('error' in (result.value[0] as object) ? 'refused' : 'ok') : describeFailure(result)}`,
        );
        then();
      },
    );
  }

  private purge(client: string, via: SimProcess, then: () => void): void {
    const record = { queue: queueNames.standard, issuedMs: this.time.nowMs, doneMs: null as number | null };
    this.history.purges.push(record);
    this.invoke(
      via,
      (q) => q.purgeQueue(queueNames.standard),
      (result) => {
        if (result.ok) record.doneMs = this.time.nowMs;
        this.trace.add(
          `${client} purge ${queueNames.standard} via ${via.id}: ${result.ok ? 'ok' : describeFailure(result)}`,
        );
        then();
      },
    );
  }

  /**
   * queueChurn: an administrator deletes `churn` and creates it again, over and over, through any
   * node, while the clients send to it and receive from it. A delete counts as a purge for the
   * lost-message check (what was sent before it may be gone); an unanswered one, forever.
   */
  private churnLoop(): void {
    const cycle = (): void => {
      this.time.at('client', 200 + this.prng.intBelow(1_000), () => {
        if (!this.isClientsRunning) return;
        const via = this.pickNode();
        if (via === null) return cycle();
        const record = { queue: churnQueue, issuedMs: this.time.nowMs, doneMs: null as number | null };
        this.history.purges.push(record);
        this.invoke(
          via,
          (q) => q.deleteQueue(churnQueue),
          (result) => {
            if (result.ok) record.doneMs = this.time.nowMs;
            this.trace.add(
              `admin delete queue ${churnQueue} via ${via.id}: ${result.ok ? 'ok' : describeFailure(result)}`,
            );
            this.time.at('client', 20 + this.prng.intBelow(300), () => {
              const createVia = this.pickNode() ?? via;
              this.invoke(
                createVia,
                (q) => q.createQueue({ name: churnQueue, attributes: {}, tags: {} }),
                (created) => {
                  this.trace.add(
                    `admin create queue ${churnQueue} via ${createVia.id}: ${created.ok ? 'ok' : describeFailure(created)}`,
                  );
                  cycle();
                },
              );
            });
          },
        );
      });
    };
    cycle();
  }

  // ---- replica-side checks ----------------------------------------------------------------------

  /** Every incarnation of `p` gets a fresh watch over the writes it applies (dead-generation-watch.ts). */
  private watchGenerations(p: SimProcess): void {
    p.onNodeOpened = (node) => {
      const watch = new DeadGenerationWatch((finding) =>
        this.deadGenerationWrites.push({ node: p.id, atMs: this.time.nowMs, finding }),
      );
      node.observeState(watch);
    };
  }

  /** One violation per row written into a dead generation, however many replicas applied it. */
  private deadGenerationViolations(): QueueViolation[] {
    const seen = new Set<string>();
    const violations: QueueViolation[] = [];
    for (const { node, atMs, finding } of this.deadGenerationWrites) {
      const { queue, generation, family, messageId } = finding;
      const id = `${queue}/${generation}/${family}/${messageId ?? ''}`;
      if (seen.has(id)) continue;
      seen.add(id);
      const body = messageId === null ? undefined : this.bodyOfMessageId.get(messageId);
      const what = messageId === null ? '' : ` of ${body ?? `message ${messageId}`}`;
      violations.push({
        kind: 'deadGenerationWrite',
        message: `a ${family} row${what} was written into generation ${generation} of ${queue} after that generation was purged or deleted (first applied by ${node} at ${atMs} ms)`,
        bodies: body === undefined ? [] : [body],
      });
    }
    return violations;
  }

  // ---- set-up, liveness, drain ---------------------------------------------------------------

  private async createQueues(): Promise<boolean> {
    const deadLetterArn = `arn:aws:sqs:us-east-1:000000000000:${queueNames.deadLetter}`;
    const queues: Array<{ name: string; attributes: Record<string, string> }> = [
      { name: queueNames.deadLetter, attributes: {} },
      {
        name: queueNames.standard,
        attributes: {
          VisibilityTimeout: '5',
          RedrivePolicy: JSON.stringify({ deadLetterTargetArn: deadLetterArn, maxReceiveCount: 2 }),
        },
      },
      { name: queueNames.fifo, attributes: { FifoQueue: 'true', VisibilityTimeout: '5' } },
    ];
    if (this.isQueueChurn) queues.push({ name: churnQueue, attributes: {} });
    const deadlineMs = this.time.nowMs + 30_000;
    for (const queue of queues) if (!(await this.createQueue(queue.name, queue.attributes, deadlineMs))) return false;
    return true;
  }

  /** Creates a queue through the leader (or any node), again and again until it is answered ok or the deadline passes. */
  private async createQueue(name: string, attributes: Record<string, string>, deadlineMs: number): Promise<boolean> {
    for (;;) {
      if (this.time.nowMs > deadlineMs) return false;
      const via = this.leader() ?? this.pickNode();
      let isOk = false;
      if (via !== null) {
        let isDone = false;
        this.invoke(
          via,
          (q) => q.createQueue({ name, attributes, tags: {} }),
          (result) => {
            isOk = result.ok;
            isDone = true;
          },
        );
        await this.time.runUntil(this.time.nowMs + clientOpTimeoutMs + 1, () => isDone);
      }
      if (isOk) break;
      await this.time.runUntil(this.time.nowMs + 500);
    }
    this.trace.add(`created ${name}`);
    return true;
  }

  /** After healing, a send through every node must be acknowledged within the bound (all nodes probed at once). */
  private async checkLiveness(): Promise<void> {
    const deadlineMs = this.time.nowMs + livenessBoundMs;
    const pending = new Set(this.processes);
    const probe = (p: SimProcess): void => {
      if (this.time.nowMs >= deadlineMs) return;
      if (p.queues === null) {
        this.time.at('client', 500, () => probe(p));
        return;
      }
      const body = `m${this.nextBody}`;
      this.send('probe', p, queueNames.standard, null, () => {
        if (this.history.sends.get(body)?.outcome === 'ok') pending.delete(p);
        else this.time.at('client', 500, () => probe(p));
      });
    };
    for (const p of this.processes) probe(p);
    await this.time.runUntil(deadlineMs + clientOpTimeoutMs + 1, () => pending.size === 0);
    this.noteFatals();
    for (const p of pending) {
      const own = p.node?.membership();
      const known =
        own === undefined
          ? 'down'
          : `it knows voters ${own.confState.voters.join(',')} learners ${own.confState.learners.join(',')} as of index ${own.index}, applied ${p.node?.appliedIndex()}`;
      this.violations.push({
        kind: 'liveness',
        message: `no send through ${p.id} was acknowledged within ${livenessBoundMs} ms of healing (${known})`,
        bodies: [],
      });
    }
    this.trace.add('liveness checked');
  }

  /** Receives and deletes everything left, until every queue answers empty several times running. */
  private async drain(): Promise<void> {
    const deadlineMs = this.time.nowMs + drainBoundMs;
    const drained: string[] = [...Object.values(queueNames), ...(this.isQueueChurn ? [churnQueue] : [])];
    const emptyRuns = new Map<string, number>(drained.map((q) => [q, 0]));
    const startMs = this.time.nowMs;
    while (this.time.nowMs < deadlineMs) {
      const isEmpty = [...emptyRuns.values()].every((runs) => runs >= 4);
      // Messages hidden by a receive of the chaos phase reappear within its visibility timeout (10 s at most).
      if (isEmpty && this.time.nowMs - startMs > 12_000) break;
      for (const queue of emptyRuns.keys()) {
        const via = this.pickNode();
        if (via === null) break;
        let isDone = false;
        const before = this.history.receives.length;
        this.receive('drain', via, queue, true, () => (isDone = true));
        await this.time.runUntil(this.time.nowMs + clientOpTimeoutMs * 2 + 1, () => isDone);
        const record = this.history.receives[before];
        const isEmptyAnswer = record !== undefined && record.outcome === 'ok' && record.messages.length === 0;
        emptyRuns.set(queue, isEmptyAnswer ? (emptyRuns.get(queue) ?? 0) + 1 : 0);
      }
      await this.time.runUntil(this.time.nowMs + 250);
    }
    this.trace.add('drained');
  }

  // ---- replica digests ----------------------------------------------------------------------

  /** Replicas that report the same applied index must have the same state digest. */
  private async checkDigests(isFinal: boolean): Promise<void> {
    const byIndex = new Map<number, Array<{ id: string; digest: string }>>();
    const digests = await this.collectDigests();
    for (const d of digests) {
      const list = byIndex.get(d.appliedIndex) ?? [];
      list.push(d);
      byIndex.set(d.appliedIndex, list);
    }
    for (const [index, list] of byIndex) {
      const distinct = new Set(list.map((d) => d.digest));
      if (distinct.size > 1) {
        this.violations.push({
          kind: 'digestMismatch',
          message: `at applied index ${index}${isFinal ? ' (after healing)' : ''}: ${list.map((d) => `${d.id}=${d.digest.slice(0, 12)}`).join(' ')}`,
          bodies: [],
        });
      }
    }
  }

  private async collectDigests(): Promise<Array<{ id: string; appliedIndex: number; digest: string }>> {
    const out: Array<{ id: string; appliedIndex: number; digest: string }> = [];
    for (const p of this.processes) {
      const store = p.disk.liveStore;
      if (!p.isUp || store === null || p.node === null) continue;
      let result: { appliedIndex: number; digest: string } | null = null;
      let isDone = false;
      // The digest reads the process's engine: it runs as that process.
      this.time.at(p.owner, 0, () => {
        store.digest().then(
          (d) => {
            result = d;
            isDone = true;
          },
          () => (isDone = true),
        );
      });
      await this.time.runUntil(this.time.nowMs, () => isDone);
      if (result !== null) out.push({ id: p.id, ...(result as { appliedIndex: number; digest: string }) });
    }
    return out;
  }

  private async settleAndCompareDigests(): Promise<void> {
    await this.time.runUntil(this.time.nowMs + 3_000);
    const deadlineMs = this.time.nowMs + 10_000;
    for (;;) {
      const indexes = this.processes.filter((p) => p.node !== null).map((p) => p.node?.appliedIndex() ?? 0);
      if (new Set(indexes).size <= 1 || this.time.nowMs >= deadlineMs) break;
      await this.time.runUntil(this.time.nowMs + 200);
    }
    await this.checkDigests(true);
  }

  // ---- result ------------------------------------------------------------------------------

  private finish(): NodeSimResult {
    this.noteFatals();
    for (const p of this.processes) p.kill();
    const layout = { deadLetterOf: { [queueNames.standard]: queueNames.deadLetter } };
    const seen = new Set<string>();
    const violations = [
      ...this.violations,
      ...this.deadGenerationViolations(),
      ...checkHistory(this.history, layout),
    ].filter((v) => {
      const key = `${v.kind}: ${v.message}`;
      if (seen.has(key)) return false;
      seen.add(key);
      return true;
    });
    for (const v of violations) this.trace.add(`VIOLATION ${v.kind}: ${v.message}`);
    const sends = [...this.history.sends.values()];
    return {
      seed: this.seed,
      nodeCount: this.nodeCount,
      violations,
      trace: this.trace.lines,
      traceHash: this.trace.digest(),
      events: this.time.eventsRun,
      virtualMs: this.time.nowMs,
      stats: {
        sends: sends.length,
        acknowledgedSends: sends.filter((s) => s.outcome === 'ok').length,
        receives: this.history.receives.length,
        delivered: this.history.receives.reduce((n, r) => n + r.messages.length, 0),
        deletes: this.history.deletes.length,
        faults: this.stats.faults,
        powerLosses: this.stats.powerLosses,
        crashes: this.stats.crashes,
        snapshotInstalls: this.processes.reduce((n, p) => n + p.disk.installs, 0),
      },
    };
  }
}

function shuffle<T>(items: readonly T[], prng: SeededPrng): T[] {
  const copy = [...items];
  for (let i = copy.length - 1; i > 0; i--) {
    const j = prng.intBelow(i + 1);
    [copy[i], copy[j]] = [copy[j] as T, copy[i] as T];
  }
  return copy;
}

function describeError(error: unknown): string {
  if (error instanceof Error) return `${error.name}: ${error.message}`;
  return String(error);
}

function describeFailure(result: { ok: true } | { ok: false; error: unknown }): string {
  if (result.ok) return 'failed entry';
  const error = result.error as { code?: unknown };
  return typeof error?.code === 'string' ? error.code : describeError(result.error);
}
