import { existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { SeededPrng } from '../../src/base/prng.js';
import { HistoryFileWriter } from '../history/history-file.js';
import { HistoryRecorder } from '../history/history-recorder.js';
import { pairOperations } from '../history/operation-pairs.js';
import { generateSchedule, scheduleSteps } from '../nemesis/nemesis-schedule.js';
import { NemesisLog, faultWindows, largestClockSpreadMs } from '../nemesis/nemesis-event.js';
import { renderReportHtml } from '../report/report-html.js';
import { runValidity, type RunResults, type WorkloadReport } from '../report/run-results.js';
import { MetadataWorkload } from '../workloads/metadata-workload.js';
import { QueueWorkload } from '../workloads/queue-workload.js';
import { SqsEndpoint } from '../workloads/sqs-endpoint.js';
import type { Workload, WorkloadContext } from '../workloads/workload.js';
import { checkCluster } from '../checkers/cluster-checker.js';
import { NemesisExecutor } from './nemesis-executor.js';
import { scanNodeLogs } from './node-log-scan.js';
import { awaitReplicaConvergence, type ReplicaConvergence } from './replica-convergence.js';
import type { RunOptions, WorkloadName } from './run-options.js';
import { runOnUntilEnoughToCheck } from './run-on-until-checked.js';
import { TestCluster } from './test-cluster.js';

export interface RunOutcome {
  readonly dir: string;
  readonly results: RunResults;
  /** The one-line verdict the runner prints last. */
  readonly verdictLine: string;
}

export class ClusterCliMissingError extends Error {
  override readonly name = 'ClusterCliMissingError';
  constructor(readonly cliPath: string) {
    super(`skipped: the cluster CLI is not built (${cliPath} does not exist; run npm run build)`);
  }
}

const progressIntervalMs = 5_000;
/** How long the replicas get, after the drain, to be caught at one applied index. */
const replicaConvergenceMsMax = 30_000;
const nodeStopGraceMs = 5_000;
/** The node a failpoint runs on (and which leads the run). */
const failpointNode = 'n1';
/** How long the node asked to lead may take to win leadership (its own bound is a few election timeouts). */
const leaderTransferTimeoutMs = 15_000;

/**
 * One run: start a cluster behind proxies, run the workloads while the nemesis follows its
 * seeded schedule, heal, wait for the cluster, drain, check, and write the store:
 * history.jsonl, nemesis.jsonl, logs/<node>.log, results.json, report.html.
 */
export async function runJepsen(options: RunOptions, say: (line: string) => void): Promise<RunOutcome> {
  const cliPath = resolve(options.cliPath);
  if (!existsSync(cliPath)) throw new ClusterCliMissingError(cliPath);
  const startedAt = new Date();
  const name = options.name ?? `${startedAt.toISOString().replace(/[:.]/g, '-')}-seed${options.seed}`;
  const dir = resolve(options.storeDir, name);
  // A named run replaces an earlier one of the same name: stale data directories would make the
  // new cluster start from the old one's state.
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  const runStartMs = performance.now();
  const nowMs = (): number => performance.now() - runStartMs;
  const log = (line: string): void => say(`[${(nowMs() / 1000).toFixed(1).padStart(6)}s] ${line}`);
  log(
    `run ${name}: seed ${options.seed}, ${options.nodes} nodes, ${options.timeSeconds} s, nemesis ${options.nemesis.join(',') || 'none'}, workloads ${options.workloads.join(',')}${options.failpoint === undefined ? '' : `, failpoint ${options.failpoint} on ${failpointNode}`}`,
  );
  log(`store ${dir}`);

  const historyFile = new HistoryFileWriter(join(dir, 'history.jsonl'));
  const recorder = new HistoryRecorder(nowMs, historyFile);
  const nemesisLog = new NemesisLog(join(dir, 'nemesis.jsonl'));
  const runErrors: string[] = [];
  const testCluster = await TestCluster.create({
    nodeCount: options.nodes,
    runDir: dir,
    cliPath,
    extraNodeArgs: ['--debug-endpoints', '--log-level', 'info'],
    // A failpoint goes to the first node only: the bug is one node's, as a real one would be. That
    // node is made leader below: every node forwards its clients' operations to the leader, so a
    // bug in a follower's queue service sees only its own clients' requests, and a short run can
    // pass without one that shows it.
    extraArgsByNode:
      options.failpoint === undefined ? {} : { [failpointNode]: ['--test-failpoint', options.failpoint] },
    adminTimeoutMs: 2_000,
  });
  const endpoints = testCluster.ids.map(
    (id) => new SqsEndpoint(id, testCluster.clientUrl(id), options.requestTimeoutMs),
  );
  const executor = new NemesisExecutor(testCluster, nemesisLog, nowMs, log, {
    families: options.nemesis,
    isCorruptForced: options.isCorruptForced,
  });
  const workloads = options.workloads.map((w) => makeWorkload(w, options));
  let workloadReports: Record<string, WorkloadReport> = {};
  /** The run got through its drain and final replica states: its history is there to check. */
  let isRunComplete = false;
  let drainFromMs: number | undefined;
  let notReadyAfterHeal: string[] = [];
  let faultsScheduled = 0;
  const drains: { workload: string; isEmpty: boolean }[] = [];
  let replicas: ReplicaConvergence = { isConverged: false, states: [], silent: [] };
  try {
    testCluster.startAll();
    const ready = await testCluster.waitUntilReady(options.recoverySecondsMax * 1000);
    if (!ready.isReady) {
      const exits = testCluster.nodes.flatMap((n) => n.unexpectedExits);
      throw new Error(
        `the cluster did not become ready: ${ready.notReady.join(',')} not ready after ${options.recoverySecondsMax} s${exits.length > 0 ? ` (${exits.join('; ')})` : ''}; see ${join(dir, 'logs')}`,
      );
    }
    log(`cluster ready, leader ${(await testCluster.leader()) ?? 'unknown'}`);
    if (options.failpoint !== undefined && (await testCluster.leader()) !== failpointNode) {
      const moved = await testCluster.admin(failpointNode).transferLeader(failpointNode, leaderTransferTimeoutMs);
      if (!moved.isAccepted)
        throw new Error(`could not make ${failpointNode} (the failpoint's node) leader: ${moved.reason}`);
      log(`leadership moved to ${failpointNode}, which runs the failpoint`);
    }
    for (const w of workloads) await w.setup(endpoints);
    await executor.probe();

    const stop = stopSignal();
    const ctx: WorkloadContext = {
      recorder,
      endpoints,
      prng: new SeededPrng(options.seed ^ 0x5eed),
      isRunning: stop.isRunning,
      pause: stop.pause,
      nowMs,
    };
    const phaseStartMs = nowMs();
    const schedule =
      options.nemesis.length === 0
        ? []
        : generateSchedule({
            seed: options.seed,
            families: options.nemesis,
            runMs: options.timeSeconds * 1000,
            warmupMs: options.warmupSeconds * 1000,
            faultMsMin: options.faultSecondsMin * 1000,
            faultMsMax: options.faultSecondsMax * 1000,
            quietMsMin: options.quietSecondsMin * 1000,
            quietMsMax: options.quietSecondsMax * 1000,
            clockOffsetMsMax: options.clockOffsetMsMax,
            overlapOneIn: options.overlapOneIn,
          });
    faultsScheduled = schedule.length;
    log(
      `schedule: ${schedule.length} faults${schedule.some((f, i) => i > 0 && f.startMs < (schedule[i - 1]?.healMs ?? 0)) ? ', some overlapping' : ''}`,
    );
    const progress = setInterval(() => log(progressLine(recorder, testCluster)), progressIntervalMs);
    const running = Promise.all(workloads.map((w) => w.run(ctx)));
    // Faults may overlap: starts and heals are carried out in time order.
    for (const step of scheduleSteps(schedule)) {
      await stop.pause(phaseStartMs + step.atMs - nowMs());
      if (step.kind === 'start') await executor.start(step.fault);
      else await executor.heal(step.fault);
    }
    await stop.pause(phaseStartMs + options.timeSeconds * 1000 - nowMs());
    if (workloads.some((w) => w.opsToCheck() < options.opsPerWorkloadMin)) {
      await executor.healAll();
      await runOnUntilEnoughToCheck(workloads, options, { pause: stop.pause, nowMs, log });
    }
    log('fault phase over: healing everything and stopping the clients');
    drainFromMs = nowMs();
    await executor.healAll();
    stop.stop();
    await running;
    const recovered = await testCluster.waitUntilReady(options.recoverySecondsMax * 1000);
    notReadyAfterHeal = recovered.notReady;
    log(
      recovered.isReady
        ? 'cluster ready again; draining'
        : `cluster not fully ready (${recovered.notReady.join(',')}); draining anyway`,
    );
    const drainCtx: WorkloadContext = {
      ...ctx,
      isRunning: () => true,
      pause: (ms) => new Promise((r) => setTimeout(r, Math.max(0, ms))),
    };
    const drainDeadlineMs = nowMs() + options.drainSecondsMax * 1000;
    await Promise.all(
      workloads.map(async (w) => {
        const drained = await w.drain(drainCtx, drainDeadlineMs);
        log(
          `drained ${w.name}: ${drained.received} messages${drained.isEmpty ? '' : ' (NOT EMPTY at the drain deadline)'}`,
        );
        drains.push({ workload: w.name, isEmpty: drained.isEmpty });
      }),
    );
    clearInterval(progress);
    replicas = await awaitReplicaConvergence(testCluster.ids, (id) => testCluster.admin(id).status(), {
      boundMs: replicaConvergenceMsMax,
      pollMs: 200,
      nowMs,
    });
    log(
      `final replica states${replicas.isConverged ? '' : ' (NOT at one applied index)'}: ${replicas.states.map((s) => `${s.node} applied ${s.appliedIndex} digest ${s.stateDigest?.slice(0, 12) ?? 'none'}`).join('; ')}`,
    );
    isRunComplete = true;
  } catch (err) {
    runErrors.push(String((err as Error).stack ?? err));
    log(`run error: ${String((err as Error).message ?? err)}`);
  } finally {
    await executor.healAll().catch((err: unknown) => runErrors.push(`final heal: ${String(err)}`));
    for (const e of endpoints) e.destroy();
    await testCluster.shutdown(nodeStopGraceMs);
    historyFile.close();
    nemesisLog.close();
  }
  // Checked once the cluster is down: the checkers' synchronous work starves this process, which
  // carries the nodes' link proxies; checked while it ran, the nodes lost each other and elected
  // no leader for a minute (harmless to a verdict on a history already taken, but noise in the logs).
  if (isRunComplete) {
    try {
      const pairs = pairOperations(recorder.history());
      const clockAllowanceMs = options.clockAllowanceMsBase + largestClockSpreadMs(nemesisLog.all());
      log(`checking ${pairs.length} operations (clock allowance ${clockAllowanceMs} ms)`);
      workloadReports = Object.fromEntries(
        workloads.map((w) => [w.name, w.check(pairs, { clockAllowanceMs, nowMs: () => performance.now() })]),
      );
    } catch (err) {
      runErrors.push(String((err as Error).stack ?? err));
      log(`check error: ${String((err as Error).message ?? err)}`);
    }
  }

  const clusterResult = checkCluster({
    unexpectedExits: testCluster.nodes.flatMap((n) => n.unexpectedExits),
    nemesisErrors: executor.errors,
    notReadyAfterHeal,
    drains,
    replicas,
    fatalLogLines: scanNodeLogs(testCluster.ids.map((id) => ({ node: id, path: join(dir, 'logs', `${id}.log`) }))),
  });
  if (!clusterResult.valid)
    log(
      `cluster checker: ${clusterResult.problems.length} problem(s): ${clusterResult.problems.slice(0, 3).join(' | ')}`,
    );
  const endMs = nowMs();
  const results: RunResults = {
    valid: runValidity(
      Object.values(workloadReports).map((w) => w.valid),
      clusterResult.valid,
      runErrors,
    ),
    run: {
      name,
      seed: options.seed,
      nodes: options.nodes,
      timeSeconds: options.timeSeconds,
      nemesis: options.nemesis,
      workloads: options.workloads,
      ...(options.failpoint === undefined ? {} : { failpoint: options.failpoint }),
      startedAt: startedAt.toISOString(),
      durationMs: Math.round(endMs),
    },
    workloads: workloadReports,
    cluster: clusterResult,
    nemesis: {
      faultsScheduled,
      faultsInjected: executor.faultsInjected,
      byFamily: executor.byFamily,
      skipped: executor.skipped,
      errors: executor.errors,
    },
    runErrors,
  };
  writeFileSync(join(dir, 'results.json'), `${JSON.stringify(results, null, 2)}\n`);
  const pairs = pairOperations(recorder.history());
  writeFileSync(
    join(dir, 'report.html'),
    renderReportHtml({
      results,
      pairs,
      windows: faultWindows(nemesisLog.all()),
      endMs,
      ...(drainFromMs === undefined ? {} : { drainFromMs }),
    }),
  );
  return { dir, results, verdictLine: verdictLine(results, pairs.length, dir) };
}

export function makeWorkload(name: WorkloadName, options: RunOptions): Workload {
  const queueOptions = {
    producers: options.producers,
    consumers: options.consumers,
    groups: options.fifoGroups,
    sendsPerSecond: options.sendsPerSecond,
    visibilityTimeoutSeconds: options.visibilityTimeoutSeconds,
    resendFraction: 0.05,
    batchSendFraction: 0.2,
    abandonFraction: 0.05,
  };
  switch (name) {
    case 'queue':
      return new QueueWorkload({ ...queueOptions, name, queueName: 'jepsen-standard', isFifo: false });
    case 'fifo':
      return new QueueWorkload({ ...queueOptions, name, queueName: 'jepsen-fifo.fifo', isFifo: true });
    case 'metadata':
      return new MetadataWorkload({
        clients: 3,
        queues: 3,
        opsPerSecond: options.metadataOpsPerSecond,
        searchStepsMax: 5_000_000,
        searchTimeMsMax: 60_000,
      });
  }
}

function stopSignal(): { isRunning: () => boolean; pause: (ms: number) => Promise<void>; stop: () => void } {
  let isRunning = true;
  const waiters = new Set<() => void>();
  return {
    isRunning: () => isRunning,
    pause: (ms) =>
      new Promise<void>((resolveWait) => {
        if (!isRunning || ms <= 0) return resolveWait();
        const done = (): void => {
          clearTimeout(timer);
          waiters.delete(done);
          resolveWait();
        };
        const timer = setTimeout(done, ms);
        waiters.add(done);
      }),
    stop: () => {
      isRunning = false;
      for (const done of [...waiters]) done();
    },
  };
}

function progressLine(recorder: HistoryRecorder, cluster: TestCluster): string {
  const counts = { ok: 0, fail: 0, info: 0 };
  for (const op of recorder.history()) if (op.type !== 'invoke') counts[op.type]++;
  const nodes = cluster.nodes.map((n) => `${n.id}:${!n.isRunning ? 'down' : n.isPaused ? 'paused' : 'up'}`).join(' ');
  return `ops ok ${counts.ok} fail ${counts.fail} info ${counts.info} | ${nodes}`;
}

export function verdictLine(results: RunResults, operations: number, dir: string): string {
  const verdict = results.valid === true ? 'VALID' : results.valid === false ? 'INVALID' : 'UNKNOWN';
  const parts = Object.entries(results.workloads).map(([name, w]) => {
    const c = w.checkers as unknown as Record<string, Record<string, unknown>>;
    const total = c['total-queue'];
    const extra =
      total === undefined
        ? ''
        : ` lost ${String(total['lostCount'])} unexpected ${String(total['unexpectedCount'])} dup ${String(total['duplicatedCount'])}`;
    return `${name}=${String(w.valid)}${extra}`;
  });
  const errors = results.runErrors.length > 0 ? ` run-errors ${results.runErrors.length}` : '';
  const problems =
    results.cluster.problems.length > 0
      ? ` cluster problems ${results.cluster.problems.length} (${results.cluster.problems[0] ?? ''})`
      : '';
  return `jepsen ${verdict}: ${parts.join(', ')}; ${operations} ops, ${results.nemesis.faultsInjected} faults${errors}${problems} — ${join(dir, 'report.html')}`;
}
