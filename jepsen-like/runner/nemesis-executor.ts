import { mkdirSync, rmSync } from 'node:fs';
import { SeededPrng } from '../../src/base/prng.js';
import { describeFault, type NemesisFamily, type ScheduledFault } from '../nemesis/fault-spec.js';
import { damageLogTail } from '../nemesis/log-tail-damage.js';
import type { NemesisLog } from '../nemesis/nemesis-event.js';
import { partitionFor, pick, shuffled } from '../nemesis/partition-shapes.js';
import type { LinkMode } from '../proxy/link-mode.js';
import type { TestCluster } from './test-cluster.js';

/** What a started fault changed, so that its heal undoes exactly that. */
interface ActiveFault {
  readonly fault: ScheduledFault;
  killed: string[];
  paused: string[];
  clockNode: string | undefined;
  isNetworkChanged: boolean;
  /** A node removed from the membership (and stopped, its data wiped), to add back at the heal. */
  removedMember: string | undefined;
}

/** Bound on one membership call: the node itself waits up to 30 s for a learner to catch up. */
const membershipCallTimeoutMs = 40_000;
/**
 * A removal the cluster refuses for a passing reason (the leader to be removed could not hand its
 * leadership over in time while other faults slowed the cluster) is asked again this many times,
 * as an operator would, before the step counts as failed.
 */
const membershipRemoveAttemptsMax = 3;
const membershipRemoveRetryDelayMs = 1_000;
/**
 * Adding a removed node back is asked again for this long, a round over every other node each
 * second, as an operator would: right after a leader's removal the rest may still be electing (or
 * forwarding to the leader they last knew), and a re-add given up at once left the cluster a voter
 * short for the rest of the run, so that later faults took more than a minority.
 */
const membershipReaddPatienceMs = 30_000;
const membershipReaddRetryDelayMs = 1_000;

/** How long a clock fault waits for its node's admin port (a restart replays its log first). */
const nodeListeningBoundMs = 30_000;

export interface SkippedFamily {
  readonly family: NemesisFamily;
  readonly reason: string;
}

/**
 * Applies scheduled faults to a TestCluster and heals them, logging each step to nemesis.jsonl.
 * A family the cluster cannot support (no clock-offset call, no log-tail repair) is skipped with
 * its reason, never faked.
 */
export class NemesisExecutor {
  readonly skipped: SkippedFamily[] = [];
  readonly errors: string[] = [];
  private readonly active = new Map<number, ActiveFault>();
  private injected = 0;
  private readonly injectedByFamily: Record<string, number> = {};

  constructor(
    private readonly cluster: TestCluster,
    private readonly log: NemesisLog,
    private readonly nowMs: () => number,
    private readonly say: (line: string) => void,
    private readonly options: { readonly families: readonly NemesisFamily[]; readonly isCorruptForced: boolean },
  ) {}

  get faultsInjected(): number {
    return this.injected;
  }

  get byFamily(): Record<string, number> {
    return { ...this.injectedByFamily };
  }

  /** Asks the running cluster which of the requested families it supports. */
  async probe(): Promise<void> {
    const first = this.cluster.ids[0];
    if (first === undefined) return;
    if (this.options.families.includes('clock')) {
      const answer = await this.cluster.admin(first).setClockOffset(0);
      if (!answer.isAccepted)
        this.skip(
          'clock',
          `the node's admin port refused POST /debug/clock-offset (status ${answer.status ?? 'none'}: ${answer.reason})`,
        );
    }
    if (this.options.families.includes('corrupt') && !this.options.isCorruptForced) {
      const status = await this.cluster.admin(first).status();
      if (!(status?.capabilities ?? []).includes('log-tail-repair')) {
        this.skip(
          'corrupt',
          'the node does not report the log-tail-repair capability in /status (detecting a damaged Raft log tail and repairing it from peers); --force-corrupt runs it anyway',
        );
      }
    }
  }

  isSkipped(family: NemesisFamily): boolean {
    return this.skipped.some((s) => s.family === family);
  }

  async start(fault: ScheduledFault): Promise<void> {
    const family = fault.fault.family;
    if (this.isSkipped(family)) {
      this.log.append({
        timeMs: this.nowMs(),
        faultId: fault.id,
        phase: 'skipped',
        family,
        description: describeFault(fault.fault),
      });
      return;
    }
    const prng = new SeededPrng(fault.seed);
    const active: ActiveFault = {
      fault,
      killed: [],
      paused: [],
      clockNode: undefined,
      isNetworkChanged: false,
      removedMember: undefined,
    };
    this.active.set(fault.id, active);
    try {
      const details = await this.apply(active, prng);
      this.injected++;
      this.injectedByFamily[family] = (this.injectedByFamily[family] ?? 0) + 1;
      this.log.append({
        timeMs: this.nowMs(),
        faultId: fault.id,
        phase: 'start',
        family,
        description: describeFault(fault.fault),
        details,
      });
      this.say(`fault #${fault.id} ${describeFault(fault.fault)} ${JSON.stringify(details)}`);
    } catch (err) {
      this.recordError(fault, 'start', err);
    }
  }

  async heal(fault: ScheduledFault): Promise<void> {
    const active = this.active.get(fault.id);
    if (active === undefined) return;
    this.active.delete(fault.id);
    try {
      await this.undo(active);
      this.log.append({
        timeMs: this.nowMs(),
        faultId: fault.id,
        phase: 'heal',
        family: fault.fault.family,
        description: describeFault(fault.fault),
      });
      this.say(`heal  #${fault.id} ${describeFault(fault.fault)}`);
    } catch (err) {
      this.recordError(fault, 'heal', err);
    }
  }

  /** Heals every fault still active, then makes sure every node runs, unpaused, with a clean network. */
  async healAll(): Promise<void> {
    for (const active of [...this.active.values()]) await this.heal(active.fault);
    this.cluster.healNetwork();
    for (const node of this.cluster.nodes) {
      node.resume();
      node.start();
    }
  }

  private async apply(active: ActiveFault, prng: SeededPrng): Promise<Record<string, unknown>> {
    const spec = active.fault.fault;
    const ids = this.cluster.ids;
    const leader = await this.cluster.leader();
    // With faults overlapping, a node may already be down or paused: 'one' picks among the
    // nodes still serving, so the fault does something (any node, if none is).
    const serving = ids.filter((id) => this.cluster.node(id).isRunning && !this.cluster.node(id).isPaused);
    const target = async (kind: 'one' | 'leader'): Promise<string> =>
      kind === 'leader' && leader !== undefined ? leader : pick(serving.length > 0 ? serving : ids, prng);
    switch (spec.family) {
      case 'kill': {
        const victims =
          spec.target === 'majority'
            ? shuffled(ids, prng).slice(0, Math.floor(ids.length / 2) + 1)
            : [await target(spec.target)];
        for (const id of victims) await this.cluster.node(id).kill9();
        active.killed = victims;
        return { nodes: victims, leaderBefore: leader ?? null };
      }
      case 'pause': {
        const id = await target(spec.target);
        this.cluster.node(id).pause();
        active.paused = [id];
        return { nodes: [id], leaderBefore: leader ?? null };
      }
      case 'partition': {
        const partition = partitionFor(spec.shape, ids, leader, prng);
        const mode: LinkMode = prng.intBelow(4) === 0 ? { kind: 'reset' } : { kind: 'blackhole' };
        for (const cut of partition.cuts) this.cluster.setNodeLink(cut.from, cut.to, mode);
        active.isNetworkChanged = true;
        return {
          partition: partition.description,
          mode: mode.kind,
          cuts: partition.cuts.map((c) => `${c.from}->${c.to}`),
          leaderBefore: leader ?? null,
        };
      }
      case 'clock': {
        const id = await target(spec.target);
        // A node restarted by an earlier fault's heal is running before its admin port listens: its
        // clock is set once it does. One that never does within the bound is a finding of its own.
        if (!(await this.cluster.waitUntilListening(id, nodeListeningBoundMs)))
          throw new Error(
            `${id}'s admin port did not answer within ${nodeListeningBoundMs} ms, so its clock was not set`,
          );
        const answer = await this.cluster.admin(id).setClockOffset(spec.offsetMs);
        if (!answer.isAccepted)
          throw new Error(`clock offset refused by ${id}: ${answer.status ?? ''} ${answer.reason}`);
        active.clockNode = id;
        return { nodes: [id], offsetMs: spec.offsetMs };
      }
      case 'latency':
        this.cluster.setAllNodeLinks({ kind: 'latency', delayMs: spec.delayMs });
        active.isNetworkChanged = true;
        return { delayMs: spec.delayMs };
      case 'corrupt': {
        const followers = ids.filter((id) => id !== leader);
        const id = pick(followers.length > 0 ? followers : ids, prng);
        const node = this.cluster.node(id);
        await node.kill9();
        const damage = damageLogTail(node.spec.dataDir, spec.how, spec.bytes, prng);
        node.start();
        return { nodes: [id], damage: damage ?? 'no log file to damage' };
      }
      case 'membership': {
        const id = await target(spec.target);
        const via = pick(
          ids.filter((other) => other !== id),
          prng,
        );
        let answer = await this.cluster.admin(via).removeMember(id, membershipCallTimeoutMs);
        for (let attempt = 1; !answer.isAccepted && attempt < membershipRemoveAttemptsMax; attempt++) {
          this.say(`removing ${id} through ${via} was refused (${answer.reason.slice(0, 120)}); asking again`);
          await new Promise((resolve) => setTimeout(resolve, membershipRemoveRetryDelayMs));
          answer = await this.cluster.admin(via).removeMember(id, membershipCallTimeoutMs);
        }
        if (!answer.isAccepted) throw new Error(`removing ${id} through ${via} was refused: ${answer.reason}`);
        // An operator stops a removed node and, to bring it back, starts it afresh as a joiner.
        const node = this.cluster.node(id);
        await node.kill9();
        rmSync(node.spec.dataDir, { recursive: true, force: true });
        mkdirSync(node.spec.dataDir, { recursive: true });
        node.isJoining = true;
        active.removedMember = id;
        return { nodes: [id], via, leaderBefore: leader ?? null };
      }
    }
  }

  private async undo(active: ActiveFault): Promise<void> {
    if (active.removedMember !== undefined) await this.readd(active.removedMember);
    for (const id of active.killed) this.cluster.node(id).start();
    for (const id of active.paused) this.cluster.node(id).resume();
    if (active.isNetworkChanged) this.cluster.healNetwork();
    if (active.clockNode !== undefined) {
      const answer = await this.cluster.admin(active.clockNode).setClockOffset(0);
      if (!answer.isAccepted) throw new Error(`clock offset reset refused by ${active.clockNode}: ${answer.reason}`);
    }
  }

  private async readd(id: string): Promise<void> {
    const node = this.cluster.node(id);
    node.start();
    const others = this.cluster.ids.filter((other) => other !== id);
    let lastReason = '';
    const deadlineMs = this.nowMs() + membershipReaddPatienceMs;
    // Any live member forwards to the leader; try each in turn, as an operator would.
    for (let round = 0; round === 0 || this.nowMs() < deadlineMs; round++) {
      if (round > 0) await new Promise((resolve) => setTimeout(resolve, membershipReaddRetryDelayMs));
      for (const via of others) {
        const answer = await this.cluster
          .admin(via)
          .addMember(id, `127.0.0.1:${node.spec.raftPort}`, membershipCallTimeoutMs);
        if (answer.isAccepted) return;
        lastReason = `${via}: ${answer.reason}`;
      }
      if (round === 0) this.say(`adding ${id} back was refused (${lastReason.slice(0, 120)}); asking again`);
    }
    throw new Error(`adding ${id} back failed for ${membershipReaddPatienceMs / 1000} s: ${lastReason}`);
  }

  private skip(family: NemesisFamily, reason: string): void {
    this.skipped.push({ family, reason });
    this.say(`skipped: ${family}: ${reason}`);
  }

  private recordError(fault: ScheduledFault, phase: 'start' | 'heal', err: unknown): void {
    const message = `fault #${fault.id} ${describeFault(fault.fault)} ${phase} failed: ${String((err as Error).message ?? err)}`;
    this.errors.push(message);
    this.log.append({
      timeMs: this.nowMs(),
      faultId: fault.id,
      phase: 'error',
      family: fault.fault.family,
      description: message,
    });
    this.say(message);
  }
}
