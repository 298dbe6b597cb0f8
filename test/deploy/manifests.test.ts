/**
 * deploy/compose, deploy/kubernetes and deploy/prometheus as far as this machine allows (no
 * Docker engine, no Kubernetes): the files are parsed and checked for what the docs promise; the
 * image's start command and the compose file's node commands run as processes; the alert rules
 * name only metrics a running node exports.
 */
import { execFile } from 'node:child_process';
import { CreateQueueCommand, ReceiveMessageCommand, SendMessageCommand } from '@aws-sdk/client-sqs';
import { join } from 'node:path';
import { parse, parseAllDocuments } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { raftLimits } from '../../src/base/limits.js';
import { makeTempDir } from '../support/temp-dir.js';
import { NodeProcess, sqsClient, waitFor } from './support/node-process.js';
import { assembleRuntimeStage, runtimeStageOf } from './support/image-layout.js';
import { AddressMap, deployFile, parseDockerfile, serveEnvNames } from './support/deploy-files.js';

type Json = any;

const dockerfile = parseDockerfile(deployFile('compose/Dockerfile'));
const compose: Json = parse(deployFile('compose/compose.yaml'), { merge: true });
const kubernetes: Json[] = parseAllDocuments(deployFile('kubernetes/raftq.yaml')).map((doc) => doc.toJSON());
const alerts: Json = parse(deployFile('prometheus/alerts.yml'));

function jsonArray(args: string): string[] {
  const parsed: unknown = JSON.parse(args);
  if (!Array.isArray(parsed) || !parsed.every((a) => typeof a === 'string'))
    throw new Error(`not an exec-form array: ${args}`);
  return parsed as string[];
}

/** The image's paths on this machine: /app is `appDir`, the data volume a temp dir. */
function onThisMachine(arg: string, dataDir: string, appDir: string): string {
  return arg.replace(/^\/app\//, `${appDir}/`).replace('/var/lib/raftq', dataDir);
}

/** The image's /app, laid out once per file from the Dockerfile's runtime COPY lines (image-layout.ts). */
const imageApp = makeTempDir('deploy-image-app');
let isImageAppAssembled = false;
function imageAppDir(): string {
  if (!isImageAppAssembled) {
    assembleRuntimeStage(runtimeStageOf(dockerfile), imageApp.path);
    isImageAppAssembled = true;
  }
  return imageApp.path;
}
afterAll(() => imageApp.cleanup());

function runHealthcheck(test: string[], adminAddress: string): Promise<number> {
  expect(test[0]).toBe('CMD');
  const [command, ...args] = test.slice(1).map((arg) => arg.replace('127.0.0.1:9325', adminAddress));
  expect(command).toBe('node');
  return new Promise((resolve) =>
    execFile(process.execPath, args, { timeout: 10_000 }, (error) =>
      resolve(error === null ? 0 : typeof error.code === 'number' ? error.code : 1),
    ),
  );
}

describe('the Dockerfile', () => {
  it('builds in one stage and runs the built dist/ as a non-root user in another', () => {
    const stages = dockerfile.filter((line) => line.instruction === 'FROM');
    expect(stages.length).toBeGreaterThanOrEqual(2);
    expect(stages[0]?.args).toMatch(/ AS build$/i);
    const runtime = dockerfile.slice(dockerfile.lastIndexOf(stages[stages.length - 1] as (typeof dockerfile)[number]));
    expect(runtime.some((line) => line.instruction === 'COPY' && /--from=build \S*dist /.test(line.args))).toBe(true);
    const user = runtime.filter((line) => line.instruction === 'USER').pop();
    expect(user?.args).toBeDefined();
    expect(['root', '0']).not.toContain(user?.args);
    expect(dockerfile.find((line) => line.instruction === 'RUN' && /npm run build/.test(line.args))).toBeDefined();
    expect(runtime.find((line) => line.instruction === 'STOPSIGNAL')?.args).toBe('SIGTERM');
  });
});

describe('the image', () => {
  const dir = makeTempDir('deploy-image');
  let node: NodeProcess | null = null;

  afterAll(async () => {
    await node?.kill();
    dir.cleanup();
  });

  it("holds what a node reads at run time: its start command, from exactly the runtime stage's COPY lines, serves SQS", async () => {
    expect(runtimeStageOf(dockerfile).workdir).toBe('/app');
    const appDir = imageAppDir();
    const entrypoint = jsonArray(dockerfile.find((line) => line.instruction === 'ENTRYPOINT')?.args ?? '[]');
    const cmd = jsonArray(dockerfile.find((line) => line.instruction === 'CMD')?.args ?? '[]');
    expect(cmd[0]).toBe('serve');
    const addresses = new AddressMap(() => false);
    const argv = await Promise.all(
      [...entrypoint.slice(1), ...cmd].map(async (arg) =>
        onThisMachine(await addresses.rewrite(arg, 'image'), dir.path, appDir),
      ),
    );
    const adminListen = await addresses.rewrite('127.0.0.1:9325', 'image');
    const sqsListen = await addresses.rewrite('0.0.0.0:9324', 'image');
    const env = {
      PATH: process.env['PATH'] ?? '',
      NODE_ENV: 'production',
      RAFTQ_ADMIN_LISTEN: adminListen,
      RAFTQ_RAFT_LISTEN: await addresses.rewrite('127.0.0.1:9326', 'image'),
    };
    node = new NodeProcess('image', argv, env, join(dir.path, 'image.log'), adminListen, { cwd: appDir });
    await node.waitReady();
    expect((await node.status()).role).toBe('leader');
    const sqs = sqsClient(`http://${sqsListen}`);
    try {
      const { QueueUrl } = await sqs.send(new CreateQueueCommand({ QueueName: 'image-check' }));
      await sqs.send(new SendMessageCommand({ QueueUrl, MessageBody: 'from the image layout' }));
      const received = await sqs.send(new ReceiveMessageCommand({ QueueUrl, WaitTimeSeconds: 5 }));
      expect(received.Messages?.map((m) => m.Body)).toEqual(['from the image layout']);
    } finally {
      sqs.destroy();
    }
    // The web console's files (copied into dist/ by the build) are in the runtime stage too.
    for (const path of ['/', '/console/console.js', '/console/dom.js', '/console/console.css'])
      expect((await fetch(`http://${adminListen}${path}`)).status, path).toBe(200);
    expect(await node.stop()).toBe(0);
  });
});

describe('the compose file', () => {
  const dir = makeTempDir('deploy-compose');
  const nodes = new Map<string, NodeProcess>();

  afterAll(async () => {
    await Promise.all([...nodes.values()].map((node) => node.kill()));
    dir.cleanup();
  });

  it('declares three nodes with volumes, health checks on /ready and a stop grace period for the hand-over', () => {
    const services = compose.services as Record<string, Json>;
    expect(Object.keys(services).sort()).toEqual(['n1', 'n2', 'n3']);
    for (const [name, service] of Object.entries(services)) {
      expect(service.command.slice(0, 3)).toEqual(['serve', '--id', name]);
      const volume = (service.volumes as string[])[0] as string;
      expect(volume.split(':')[1]).toBe('/var/lib/raftq');
      expect(Object.keys(compose.volumes)).toContain(volume.split(':')[0]);
      expect(service.healthcheck.test.join(' ')).toContain('/ready');
      expect(Number.parseInt(service.stop_grace_period, 10) * 1000).toBeGreaterThanOrEqual(
        2 * raftLimits.shutdownDrainMs.value,
      );
      expect(service.environment.RAFTQ_PEERS).toBe('n1=n1:9326,n2=n2:9326,n3=n3:9326');
      for (const key of Object.keys(service.environment)) expect(serveEnvNames).toContain(key);
      expect(service.build.dockerfile).toBe('deploy/compose/Dockerfile');
    }
  });

  it("its node commands, run as processes with the image's entrypoint, form a cluster that its health check finds ready", async () => {
    const entrypoint = jsonArray(dockerfile.find((line) => line.instruction === 'ENTRYPOINT')?.args ?? '[]');
    expect(entrypoint[0]).toBe('node');
    // Service names resolve to their containers there; here every container is a process on loopback.
    const addresses = new AddressMap((host) => ['n1', 'n2', 'n3'].includes(host));
    for (const [name, service] of Object.entries(compose.services as Record<string, Json>)) {
      const env: Record<string, string> = { PATH: process.env['PATH'] ?? '' };
      for (const [key, value] of Object.entries(service.environment as Record<string, string>)) {
        // A container listening on 0.0.0.0 is reached by its service name.
        const interpolated = value
          .replace(/\$\{RAFTQ_CLUSTER_SECRET:\?[^}]*\}/, 'compose-secret')
          .replace(/\b0\.0\.0\.0:/g, `${name}:`);
        expect(interpolated).not.toContain('${');
        env[key] = onThisMachine(await addresses.rewrite(interpolated, name), join(dir.path, name), imageAppDir());
      }
      const argv = [...entrypoint.slice(1), ...(service.command as string[])].map((arg) =>
        onThisMachine(arg, join(dir.path, name), imageAppDir()),
      );
      nodes.set(
        name,
        new NodeProcess(name, argv, env, join(dir.path, `${name}.log`), env['RAFTQ_ADMIN_LISTEN'] as string, {
          cwd: imageAppDir(),
        }),
      );
    }
    await Promise.all([...nodes.values()].map((node) => node.waitReady()));
    const n1 = nodes.get('n1') as NodeProcess;
    expect((await n1.status()).members.map((m) => m.id).sort()).toEqual(['n1', 'n2', 'n3']);
    const healthcheck = compose.services.n1.healthcheck.test as string[];
    expect(await runHealthcheck(healthcheck, n1.adminAddress)).toBe(0);
    await n1.stop();
    expect(await runHealthcheck(healthcheck, n1.adminAddress)).not.toBe(0);
  });

  it('the alert rules name only metrics a running node exports', async () => {
    const n2 = nodes.get('n2') as NodeProcess;
    const metricsText = await (await fetch(`http://${n2.adminAddress}/metrics`)).text();
    const exported = new Set([...metricsText.matchAll(/^# TYPE (\S+) /gm)].map((m) => m[1] as string));
    const rules = (alerts.groups as Json[]).flatMap((group) => group.rules as Json[]);
    expect(rules.map((rule) => rule.alert)).toEqual(
      expect.arrayContaining(['RaftqNoLeader', 'RaftqFollowerLagging', 'RaftqSlowFsync', 'RaftqReaperBacklog']),
    );
    for (const rule of rules) {
      expect(rule.labels.severity).toMatch(/^(critical|warning)$/);
      for (const [name] of (rule.expr as string).matchAll(/\braftq_[a-z_]+/g)) {
        const family = name.replace(/_(bucket|sum|count)$/, '');
        expect(exported, `${rule.alert}: ${name}`).toContain(family);
      }
    }
  });
});

describe('the Kubernetes manifests', () => {
  const byKind = (kind: string): Json[] => kubernetes.filter((doc) => doc?.kind === kind);
  const statefulSet = byKind('StatefulSet')[0];
  const pod = statefulSet?.spec.template.spec;
  const container = pod?.containers[0];
  const envOf = (name: string): Json => (container.env as Json[]).find((e) => e.name === name);
  const podLabels = statefulSet?.spec.template.metadata.labels;
  const selects = (selector: Json): boolean =>
    Object.entries(selector as Record<string, string>).every(([k, v]) => podLabels[k] === v);

  const podDir = makeTempDir('deploy-kubernetes');
  let podProcess: NodeProcess | null = null;

  beforeAll(() => {
    expect(statefulSet).toBeDefined();
  });

  afterAll(async () => {
    await podProcess?.kill();
    podDir.cleanup();
  });

  it("run three pods whose peers are the headless service's DNS names", () => {
    const headless = byKind('Service').find((s) => s.spec.clusterIP === 'None');
    expect(statefulSet.spec.serviceName).toBe(headless.metadata.name);
    expect(headless.spec.publishNotReadyAddresses).toBe(true);
    expect(statefulSet.spec.replicas).toBe(3);
    expect(statefulSet.spec.podManagementPolicy).toBe('Parallel');
    expect(envOf('RAFTQ_ID').valueFrom.fieldRef.fieldPath).toBe('metadata.name');
    const name = statefulSet.metadata.name as string;
    const raftPort = (container.ports as Json[]).find((p) => p.name === 'raft').containerPort as number;
    const expected = Array.from(
      { length: 3 },
      (_, i) => `${name}-${i}=${name}-${i}.${headless.metadata.name}.raftq.svc.cluster.local:${raftPort}`,
    ).join(',');
    expect(envOf('RAFTQ_PEERS').value).toBe(expected);
    expect(envOf('RAFTQ_RAFT_LISTEN').value).toBe(`0.0.0.0:${raftPort}`);
    for (const e of container.env as Json[]) expect(serveEnvNames).toContain(e.name);
  });

  it('expose SQS and admin through services, probe /ready and /health, and guard the exposed admin port with a token', () => {
    const services = byKind('Service').filter((s) => s.spec.clusterIP !== 'None');
    const portNames = new Set((container.ports as Json[]).map((p) => p.name));
    for (const wanted of ['sqs', 'admin']) {
      const service = services.find((s) => (s.spec.ports as Json[]).some((p) => p.targetPort === wanted));
      expect(service, wanted).toBeDefined();
      expect(selects(service.spec.selector)).toBe(true);
      expect(portNames).toContain(wanted);
    }
    expect(container.readinessProbe.httpGet).toEqual({ path: '/ready', port: 'admin' });
    expect(container.livenessProbe.httpGet).toEqual({ path: '/health', port: 'admin' });
    expect(envOf('RAFTQ_ADMIN_LISTEN').value).toMatch(/^0\.0\.0\.0:/);
    expect(envOf('RAFTQ_ADMIN_TOKEN').valueFrom.secretKeyRef.key).toBe('admin-token');
    expect(envOf('RAFTQ_CLUSTER_SECRET').valueFrom.secretKeyRef.key).toBe('cluster-secret');
  });

  it("point Prometheus's scrape annotations at a port and path that answer without a token; the admin port keeps /metrics behind it", async () => {
    const annotations = statefulSet.spec.template.metadata.annotations as Record<string, string>;
    expect(annotations['prometheus.io/scrape']).toBe('true');
    const scrapePort = Number(annotations['prometheus.io/port']);
    const scrapePath = annotations['prometheus.io/path'] as string;
    expect((container.ports as Json[]).map((p) => p.containerPort)).toContain(scrapePort);
    // Pod raftq-0 as a process with the container's environment and the image's entrypoint: the
    // pod's DNS name and its peers' become loopback ports; secrets are test values.
    const podName = `${statefulSet.metadata.name}-0`;
    const podHost = `${podName}.${statefulSet.spec.serviceName}.raftq.svc.cluster.local`;
    const addresses = new AddressMap(() => true);
    const adminToken = 'k8s-admin-token';
    const dataDir = join(podDir.path, podName);
    const env: Record<string, string> = { PATH: process.env['PATH'] ?? '' };
    for (const e of container.env as Json[]) {
      const secretKey = e.valueFrom?.secretKeyRef?.key as string | undefined;
      const raw: string =
        e.valueFrom?.fieldRef?.fieldPath === 'metadata.name'
          ? podName
          : secretKey === 'admin-token'
            ? adminToken
            : secretKey !== undefined
              ? `k8s-${secretKey}`
              : e.value;
      env[e.name] = onThisMachine(
        await addresses.rewrite(raw.replace(/\b0\.0\.0\.0:/g, `${podHost}:`), podName),
        dataDir,
        imageAppDir(),
      );
    }
    const entrypoint = jsonArray(dockerfile.find((line) => line.instruction === 'ENTRYPOINT')?.args ?? '[]');
    const argv = [...entrypoint.slice(1), ...(container.args as string[])].map((arg) =>
      onThisMachine(arg, dataDir, imageAppDir()),
    );
    podProcess = new NodeProcess(
      podName,
      argv,
      env,
      join(podDir.path, `${podName}.log`),
      env['RAFTQ_ADMIN_LISTEN'] as string,
      { cwd: imageAppDir() },
    );
    const scrapeUrl = `http://${await addresses.rewrite(`${podHost}:${scrapePort}`, podName)}${scrapePath}`;
    // Its peers are not running, so it has no leader: metrics answer all the same.
    let scrape: Response | null = null;
    await waitFor(
      async () => {
        if (!(podProcess as NodeProcess).isRunning)
          throw new Error(`${podName} exited:\n${(podProcess as NodeProcess).tail()}`);
        scrape = await fetch(scrapeUrl, { signal: AbortSignal.timeout(3_000) }).catch(() => null);
        return scrape !== null;
      },
      30_000,
      `${podName} to answer on ${scrapeUrl}`,
    );
    const answer = scrape as unknown as Response;
    expect(answer.status).toBe(200);
    expect(await answer.text()).toMatch(/^# TYPE raftq_raft_term gauge$/m);
    const adminMetrics = `http://${env['RAFTQ_ADMIN_LISTEN']}/metrics`;
    expect((await fetch(adminMetrics)).status).toBe(401);
    expect((await fetch(adminMetrics, { headers: { authorization: `Bearer ${adminToken}` } })).status).toBe(200);
  });

  it('keep at most one pod unavailable, one pod per machine, requested resources and time to hand over', () => {
    const budget = byKind('PodDisruptionBudget')[0];
    expect(budget.spec.maxUnavailable).toBe(1);
    expect(selects(budget.spec.selector.matchLabels)).toBe(true);
    const antiAffinity = pod.affinity.podAntiAffinity.requiredDuringSchedulingIgnoredDuringExecution[0];
    expect(antiAffinity.topologyKey).toBe('kubernetes.io/hostname');
    expect(selects(antiAffinity.labelSelector.matchLabels)).toBe(true);
    expect(container.resources.requests.cpu).toBeDefined();
    expect(container.resources.requests.memory).toBeDefined();
    expect(pod.terminationGracePeriodSeconds * 1000).toBeGreaterThanOrEqual(2 * raftLimits.shutdownDrainMs.value);
    expect(pod.securityContext.runAsNonRoot).toBe(true);
    const claim = statefulSet.spec.volumeClaimTemplates[0];
    const mount = (container.volumeMounts as Json[]).find((m) => m.name === claim.metadata.name);
    expect(envOf('RAFTQ_DATA_DIR').value.startsWith(`${mount.mountPath}/`)).toBe(true);
  });
});
