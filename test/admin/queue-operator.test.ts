/**
 * The operator's view of the queues on a real node process: the admin port's /queues calls (behind
 * the bearer token), the CLI commands over them, the per-queue and per-action metrics after a known
 * workload, the access log, and the Grafana dashboard and alert rules against the live /metrics.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  ChangeMessageVisibilityCommand,
  CreateQueueCommand,
  DeleteQueueCommand,
  GetQueueUrlCommand,
  ReceiveMessageCommand,
  SendMessageCommand,
  type SQSClient,
} from '@aws-sdk/client-sqs';
import { parse } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePorts } from '../support/ports.js';
import { makeTempDir } from '../support/temp-dir.js';
import { NodeProcess, mainScript, repoRoot, runCli, sqsClient, waitFor } from '../deploy/support/node-process.js';

const token = 'operator-test-token';
const accountId = '000000000000';
const arnOf = (name: string) => `arn:aws:sqs:us-east-1:${accountId}:${name}`;

describe('the queues, seen by an operator', () => {
  const dir = makeTempDir('queue-operator');
  let node: NodeProcess;
  let admin = '';
  let sqs: SQSClient;
  let sqsEndpoint = '';
  const urls = new Map<string, string>();
  /** The receipt handle of the message left in flight in "work". */
  let inFlightHandle = '';

  const call = async (
    method: string,
    path: string,
    options: { body?: unknown; auth?: string | null } = {},
  ): Promise<{ status: number; json: any }> => {
    const headers: Record<string, string> = { 'content-type': 'application/json' };
    const auth = options.auth === undefined ? token : options.auth;
    if (auth !== null) headers['authorization'] = `Bearer ${auth}`;
    const hasBody = options.body !== undefined && method !== 'GET';
    const response = await fetch(`http://${admin}${path}`, {
      method,
      headers,
      ...(hasBody ? { body: JSON.stringify(options.body) } : {}),
      signal: AbortSignal.timeout(30_000),
    });
    const text = await response.text();
    return { status: response.status, json: text === '' ? null : JSON.parse(text) };
  };
  const metrics = async (): Promise<string> => {
    const response = await fetch(`http://${admin}/metrics`, { headers: { authorization: `Bearer ${token}` } });
    expect(response.status).toBe(200);
    return response.text();
  };
  const sample = (text: string, name: string, labels: Record<string, string> = {}): number | undefined => {
    const wanted = Object.entries(labels).map(([k, v]) => `${k}="${v}"`);
    for (const line of text.split('\n')) {
      if (!line.startsWith(`${name}{`) && !line.startsWith(`${name} `)) continue;
      const labelText = line.startsWith(`${name}{`) ? line.slice(name.length + 1, line.indexOf('}')) : '';
      const present = labelText === '' ? [] : labelText.split(',');
      if (wanted.length === present.length && wanted.every((w) => present.includes(w)))
        return Number(line.slice(line.lastIndexOf(' ') + 1));
    }
    return undefined;
  };
  const cli = (args: string[]) => runCli([...args, '--admin', admin, '--admin-token', token]);
  const createQueue = async (name: string, attributes: Record<string, string> = {}) => {
    const created = await sqs.send(new CreateQueueCommand({ QueueName: name, Attributes: attributes }));
    urls.set(name, created.QueueUrl as string);
  };
  const url = (name: string) => urls.get(name) as string;
  const receive = (name: string, options: { max?: number; visibilityTimeout?: number } = {}) =>
    sqs.send(
      new ReceiveMessageCommand({
        QueueUrl: url(name),
        MaxNumberOfMessages: options.max ?? 1,
        WaitTimeSeconds: 0,
        MessageSystemAttributeNames: ['All'],
        ...(options.visibilityTimeout === undefined ? {} : { VisibilityTimeout: options.visibilityTimeout }),
      }),
    );

  beforeAll(async () => {
    const [sqsPort, adminPort, raftPort] = (await freePorts(3)) as [number, number, number];
    admin = `127.0.0.1:${adminPort}`;
    sqsEndpoint = `http://127.0.0.1:${sqsPort}`;
    const argv = [
      mainScript,
      'serve',
      '--id',
      'n1',
      '--data-dir',
      join(dir.path, 'n1'),
      '--sqs-listen',
      `127.0.0.1:${sqsPort}`,
      '--admin-listen',
      admin,
      '--raft-listen',
      `127.0.0.1:${raftPort}`,
      '--admin-token',
      token,
      '--access-log',
      '--reaper-interval-ms',
      '200',
    ];
    node = new NodeProcess('n1', argv, process.env, join(dir.path, 'n1.log'), admin);
    await node.waitReady();
    sqs = sqsClient(sqsEndpoint);

    // The known workload the counts and metrics below are checked against.
    await createQueue('dlq');
    await createQueue('work', {
      RedrivePolicy: JSON.stringify({ deadLetterTargetArn: arnOf('dlq'), maxReceiveCount: 1 }),
    });
    await createQueue('orphan-dlq');
    await createQueue('orphan', {
      RedrivePolicy: JSON.stringify({ deadLetterTargetArn: arnOf('orphan-dlq'), maxReceiveCount: 1 }),
    });
    await sqs.send(new DeleteQueueCommand({ QueueUrl: url('orphan-dlq') }));
    // "first": received once and left visible, then due on the next receive, which moves it to
    // "dlq" and so answers nothing (an empty receive).
    await sqs.send(new SendMessageCommand({ QueueUrl: url('work'), MessageBody: 'first' }));
    expect((await receive('work', { visibilityTimeout: 0 })).Messages?.[0]?.Body).toBe('first');
    expect((await receive('work', { visibilityTimeout: 600 })).Messages ?? []).toHaveLength(0);
    for (const body of ['second', 'third'])
      await sqs.send(new SendMessageCommand({ QueueUrl: url('work'), MessageBody: body }));
    await sqs.send(new SendMessageCommand({ QueueUrl: url('work'), MessageBody: 'later', DelaySeconds: 900 }));
    // "second" is received and kept in flight.
    const second = await receive('work', { visibilityTimeout: 600 });
    expect(second.Messages?.[0]?.Body).toBe('second');
    inFlightHandle = second.Messages?.[0]?.ReceiptHandle as string;
    // "orphan": its dead-letter queue is gone, so the due message is delivered again (a skipped move).
    await sqs.send(new SendMessageCommand({ QueueUrl: url('orphan'), MessageBody: 'stuck' }));
    expect((await receive('orphan', { visibilityTimeout: 0 })).Messages).toHaveLength(1);
    expect((await receive('orphan', { visibilityTimeout: 600 })).Messages?.[0]?.Body).toBe('stuck');
    // Two receives that find nothing.
    expect((await receive('orphan')).Messages ?? []).toHaveLength(0);
    expect((await receive('orphan')).Messages ?? []).toHaveLength(0);
    // A request for a queue that does not exist.
    await expect(sqs.send(new GetQueueUrlCommand({ QueueName: 'nowhere' }))).rejects.toThrow();
  });

  afterAll(async () => {
    sqs?.destroy();
    await node?.kill();
    dir.cleanup();
  });

  it('refuses every queue call without the admin token, or with a wrong one', async () => {
    for (const [method, path] of [
      ['GET', '/queues'],
      ['GET', '/queues/work'],
      ['GET', '/queues/work/messages'],
      ['POST', '/queues/work/purge'],
      ['POST', '/queues/dlq/redrive'],
      ['POST', '/queues/work/messages'],
    ] as const) {
      expect((await call(method, path, { auth: null, body: { body: 'x' } })).status, `${method} ${path}`).toBe(401);
      expect((await call(method, path, { auth: 'wrong', body: { body: 'x' } })).status, `${method} ${path}`).toBe(401);
    }
    // Nothing was sent or purged by the refused calls.
    expect((await call('GET', '/queues/work')).json).toMatchObject({ visible: 1, inFlight: 1, delayed: 1 });
  });

  it('answers 404 for a queue that does not exist, on every queue call', async () => {
    for (const [method, path] of [
      ['GET', '/queues/nowhere'],
      ['GET', '/queues/nowhere/messages'],
      ['POST', '/queues/nowhere/purge'],
      ['POST', '/queues/nowhere/redrive'],
      ['POST', '/queues/nowhere/messages'],
    ] as const) {
      const answer = await call(method, path, { body: { body: 'x' } });
      expect(answer.status, `${method} ${path}`).toBe(404);
      expect(answer.json.error).toContain('QueueDoesNotExist');
    }
  });

  it('GET /queues lists every queue with exact counts, oldest age and dead-letter target', async () => {
    const answer = await call('GET', '/queues');
    expect(answer.status).toBe(200);
    const byName = new Map((answer.json.queues as any[]).map((q) => [q.name, q]));
    expect([...byName.keys()]).toEqual(['dlq', 'orphan', 'work']);
    expect(byName.get('work')).toMatchObject({
      type: 'standard',
      visible: 1,
      inFlight: 1,
      delayed: 1,
      deadLetterTarget: 'dlq',
      countsExact: true,
    });
    expect(byName.get('dlq')).toMatchObject({ visible: 1, inFlight: 0, delayed: 0, deadLetterTarget: null });
    expect(byName.get('orphan')).toMatchObject({ visible: 0, inFlight: 1, deadLetterTarget: 'orphan-dlq' });
    expect(byName.get('work').oldestMessageAgeSeconds).toBeGreaterThanOrEqual(0);
  });

  it('GET /queues/NAME gives attributes, counts, tags, the queues it is the dead-letter queue of, and running move tasks', async () => {
    const answer = await call('GET', '/queues/dlq');
    expect(answer.status).toBe(200);
    expect(answer.json).toMatchObject({
      name: 'dlq',
      type: 'standard',
      visible: 1,
      arn: arnOf('dlq'),
      tags: {},
      deadLetterSourceQueues: ['work'],
      moveTasks: [],
    });
    expect(answer.json.attributes.ApproximateNumberOfMessages).toBe('1');
    expect((await call('GET', '/queues/work')).json.attributes.RedrivePolicy).toContain(arnOf('dlq'));
  });

  it('a peek shows messages as they are and changes nothing: counts, receive counts and visibility stay', async () => {
    const before = (await call('GET', '/queues/work')).json;
    const peeked = await call('GET', '/queues/work/messages?limit=10');
    expect(peeked.status).toBe(200);
    const messages = peeked.json.messages as any[];
    expect(messages.map((m) => [m.body, m.state, m.receiveCount])).toEqual([
      ['third', 'visible', 0],
      ['second', 'inflight', 1],
      ['later', 'delayed', 0],
    ]);
    expect(messages[1].inFlight).toBe(true);
    expect(Object.keys(messages[0])).not.toContain('receiptHandle');
    const again = await call('GET', '/queues/work/messages?limit=10');
    expect(again.json.messages).toEqual(messages);
    const after = (await call('GET', '/queues/work')).json;
    expect([after.visible, after.inFlight, after.delayed]).toEqual([before.visible, before.inFlight, before.delayed]);
    // The in-flight message is still held by its receive (its receipt handle still works) ...
    await sqs.send(
      new ChangeMessageVisibilityCommand({
        QueueUrl: url('work'),
        ReceiptHandle: inFlightHandle,
        VisibilityTimeout: 600,
      }),
    );
    // ... and the visible one was never received: its first receive counts 1.
    const received = await receive('work', { visibilityTimeout: 0 });
    expect(received.Messages?.[0]?.Body).toBe('third');
    expect(received.Messages?.[0]?.Attributes?.ApproximateReceiveCount).toBe('1');
    // The dead-lettered message is visible in the dead-letter queue, with where it came from.
    const dead = (await call('GET', '/queues/dlq/messages')).json.messages as any[];
    expect(dead).toHaveLength(1);
    expect(dead[0]).toMatchObject({ body: 'first', state: 'visible', deadLetterSourceArn: arnOf('work') });
    expect((await call('GET', '/queues/work/messages?limit=1')).json.messages).toHaveLength(1);
    for (const limit of ['0', '101', 'x'])
      expect((await call('GET', `/queues/work/messages?limit=${limit}`)).status).toBe(400);
  });

  it("exports per-queue and per-action metrics with the workload's figures, under Prometheus names", async () => {
    const text = await metrics();
    expect(sample(text, 'raftq_queues')).toBe(3);
    expect(sample(text, 'raftq_queue_messages', { queue: 'work', state: 'visible' })).toBe(1);
    expect(sample(text, 'raftq_queue_messages', { queue: 'work', state: 'inflight' })).toBe(1);
    expect(sample(text, 'raftq_queue_messages', { queue: 'work', state: 'delayed' })).toBe(1);
    expect(sample(text, 'raftq_queue_messages', { queue: 'dlq', state: 'visible' })).toBe(1);
    expect(sample(text, 'raftq_queue_oldest_message_age_seconds', { queue: 'work' })).toBeGreaterThanOrEqual(0);
    expect(sample(text, 'raftq_queue_dead_lettered_total', { queue: 'work' })).toBe(1);
    expect(sample(text, 'raftq_queue_redrive_skipped_total', { queue: 'orphan' })).toBe(1);
    expect(sample(text, 'raftq_queue_redrive_skipped_total', { queue: 'work' })).toBe(0);
    expect(sample(text, 'raftq_queue_empty_receives_total', { queue: 'orphan' })).toBe(2);
    expect(sample(text, 'raftq_queue_empty_receives_total', { queue: 'work' })).toBe(1);
    // The receives on 'work' and 'orphan' built those queues' indexes; 'work' had rows to scan.
    expect(sample(text, 'raftq_queue_index_builds_total')).toBeGreaterThanOrEqual(2);
    expect(sample(text, 'raftq_queue_index_build_rows_total')).toBeGreaterThanOrEqual(1);
    expect(sample(text, 'raftq_queue_index_build_seconds_total')).toEqual(expect.any(Number));
    expect(sample(text, 'raftq_sqs_requests_total', { action: 'SendMessage', code: 'OK' })).toBe(5);
    expect(sample(text, 'raftq_sqs_requests_total', { action: 'CreateQueue', code: 'OK' })).toBe(4);
    expect(
      sample(text, 'raftq_sqs_requests_total', {
        action: 'GetQueueUrl',
        code: 'AWS.SimpleQueueService.NonExistentQueue',
      }),
    ).toBe(1);
    expect(sample(text, 'raftq_sqs_request_duration_seconds_count', { action: 'SendMessage' })).toBe(5);
    expect(text).toMatch(/^# TYPE raftq_cluster_clock_offset_seconds gauge$/m);
    expect(text).toMatch(/^# TYPE raftq_peer_dropped_messages_total counter$/m);
    expect(text).toMatch(/^# TYPE raftq_state_gc_passes_total counter$/m);
    expect(text).toMatch(/^# TYPE raftq_state_gc_read_bytes_total counter$/m);
    for (const name of ['reads', 'reads_untaught', 'read_iterators'])
      expect(text).toMatch(new RegExp(`^# TYPE raftq_state_engine_${name}_total counter$`, 'm'));
    expect(sample(text, 'raftq_state_engine_reads_total')).toBeGreaterThanOrEqual(
      sample(text, 'raftq_state_engine_reads_untaught_total') ?? Number.POSITIVE_INFINITY,
    );
    expect(text).not.toMatch(/raftq_cluster_clock_offset_ms|raftq_state_gc_passes /);
  });

  it('times the garbage-collection steps that follow the writes (raftq_state_gc_step_seconds)', async () => {
    // The node has applied the workload's writes, so collection steps run until a pass completes.
    let count = 0;
    await waitFor(
      async () => {
        count = sample(await metrics(), 'raftq_state_gc_step_seconds_count') ?? 0;
        return count > 0;
      },
      10_000,
      'a garbage-collection step',
    );
    expect(count).toBeGreaterThan(0);
    expect(sample(await metrics(), 'raftq_state_gc_step_seconds_sum')).toBeGreaterThanOrEqual(0);
  });

  it('--access-log writes one JSON line per SQS request', async () => {
    await waitFor(() => readFileSync(node.logFile, 'utf8').includes('"GetQueueUrl"'), 10_000, 'the access log line');
    const lines = readFileSync(node.logFile, 'utf8')
      .split('\n')
      .filter((line) => line.includes('"layer":"access"'))
      .map((line) => JSON.parse(line));
    expect(lines.filter((l) => l.action === 'SendMessage')).toHaveLength(5);
    expect(lines.find((l) => l.action === 'GetQueueUrl')).toMatchObject({
      queue: 'nowhere',
      status: 400,
      code: 'AWS.SimpleQueueService.NonExistentQueue',
    });
    expect(lines.find((l) => l.action === 'SendMessage')).toMatchObject({ queue: 'work', status: 200, code: 'OK' });
    expect(typeof lines[0].ms).toBe('number');
  });

  it('the Grafana dashboard and the alert rules name only metrics the live node exports', async () => {
    const exported = new Set([...(await metrics()).matchAll(/^# TYPE (\S+) /gm)].map((m) => m[1] as string));
    const dashboard = JSON.parse(readFileSync(join(repoRoot, 'deploy/grafana/raftq-dashboard.json'), 'utf8'));
    const alerts = parse(readFileSync(join(repoRoot, 'deploy/prometheus/alerts.yml'), 'utf8'));
    const expressions: Array<[string, string]> = [
      ...(dashboard.panels as any[]).flatMap((panel) =>
        (panel.targets as any[]).map((t): [string, string] => [panel.title, t.expr]),
      ),
      ...(alerts.groups as any[]).flatMap((group) =>
        (group.rules as any[]).map((rule): [string, string] => [rule.alert, rule.expr]),
      ),
    ];
    const named = new Set<string>();
    for (const [where, expr] of expressions) {
      for (const [name] of expr.matchAll(/\braftq_[a-z_]+/g)) {
        const family = name.replace(/_(bucket|sum|count)$/, '');
        named.add(family);
        expect(exported, `${where}: ${name}`).toContain(family);
      }
    }
    for (const family of [
      'raftq_queue_messages',
      'raftq_queue_oldest_message_age_seconds',
      'raftq_queue_dead_lettered_total',
      'raftq_queue_redrive_skipped_total',
      'raftq_sqs_requests_total',
      'raftq_sqs_request_duration_seconds',
      'raftq_raft_commit_index',
    ]) {
      expect(named, family).toContain(family);
    }
    const alertNames = (alerts.groups as any[]).flatMap((group) => (group.rules as any[]).map((rule) => rule.alert));
    expect(alertNames).toEqual(
      expect.arrayContaining([
        'RaftqQueueBacklogGrowing',
        'RaftqQueueOldMessage',
        'RaftqDeadLettering',
        'RaftqRedriveSkipped',
      ]),
    );
  });

  it("raftq queues prints a table by default and the API's JSON with --output json", async () => {
    const table = await cli(['queues']);
    expect(table.code, table.stderr).toBe(0);
    const lines = table.stdout.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^NAME\s+TYPE\s+VISIBLE\s+INFLIGHT\s+DELAYED\s+OLDEST\s+DEAD-LETTER$/);
    expect(lines.slice(1).map((line) => line.split(/\s+/).filter((cell, i) => i !== 5))).toEqual([
      ['dlq', 'standard', '1', '0', '0', '-'],
      ['orphan', 'standard', '0', '1', '0', 'orphan-dlq'],
      ['work', 'standard', '1', '1', '1', 'dlq'],
    ]);
    const json = await cli(['queues', '--output', 'json']);
    expect(json.code, json.stderr).toBe(0);
    // The same document as the API's (ages aside: they move with the clock between the two calls).
    const withoutAges = (doc: any) => (doc.queues as any[]).map(({ oldestMessageAgeSeconds, ...rest }) => rest);
    expect(withoutAges(JSON.parse(json.stdout))).toEqual(withoutAges((await call('GET', '/queues')).json));
    const refused = await runCli(['queues', '--admin', admin]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('401');
  });

  it('raftq peek shows messages in a table or as JSON without receiving them', async () => {
    const table = await cli(['peek', 'dlq']);
    expect(table.code, table.stderr).toBe(0);
    expect(table.stdout).toMatch(
      /^MESSAGE ID\s+STATE\s+RECEIVES\s+SENT\s+GROUP\s+BODY\n\S+\s+visible\s+0\s+\S+\s+-\s+first\n$/,
    );
    const json = await cli(['peek', 'work', '--limit', '2', '--output', 'json']);
    expect(json.code, json.stderr).toBe(0);
    expect(JSON.parse(json.stdout).messages).toHaveLength(2);
    const missing = await cli(['peek', 'nowhere']);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('404');
  });

  it('raftq send, redrive and purge act on the queue', async () => {
    const sent = await cli(['send', 'orphan', 'hello from the cli']);
    expect(sent.code, sent.stderr).toBe(0);
    expect(sent.stdout).toMatch(/^sent \S+ to orphan\n$/);
    const peeked = (await call('GET', '/queues/orphan/messages')).json.messages as any[];
    expect(peeked.find((m) => m.body === 'hello from the cli')).toMatchObject({
      state: 'visible',
      receiveCount: 0,
      senderId: 'raftq-admin',
    });

    const redriven = await cli(['redrive', 'dlq']);
    expect(redriven.code, redriven.stderr).toBe(0);
    expect(redriven.stdout).toMatch(/^redrive of dlq started: task \S+\n$/);
    await waitFor(
      async () => (await call('GET', '/queues/dlq')).json.visible === 0,
      30_000,
      'the dead-letter queue to empty',
    );
    const back = (await call('GET', '/queues/work/messages?limit=10')).json.messages as any[];
    expect(back.map((m) => m.body)).toContain('first');
    const notDeadLetterQueue = await cli(['redrive', 'orphan']);
    expect(notDeadLetterQueue.code).toBe(1);
    expect(notDeadLetterQueue.stderr).toContain('400');

    const purged = await cli(['purge', 'work']);
    expect(purged.code, purged.stderr).toBe(0);
    expect(purged.stdout).toBe('purged work\n');
    expect((await call('GET', '/queues/work')).json).toMatchObject({ visible: 0, inFlight: 0, delayed: 0 });
    // AWS allows one purge a minute per queue: a second one is refused as a conflict.
    expect((await call('POST', '/queues/work/purge')).status).toBe(409);
  });

  it('POST /queues/NAME/messages refuses a bad message and sends nothing', async () => {
    const before = (await call('GET', '/queues/orphan')).json.visible;
    expect((await call('POST', '/queues/orphan/messages', { body: {} })).status).toBe(400);
    expect((await call('POST', '/queues/orphan/messages', { body: { body: '' } })).status).toBe(400);
    expect((await call('POST', '/queues/orphan/messages', { body: { body: 'x', delaySeconds: 901 } })).status).toBe(
      400,
    );
    // A deduplication id belongs to FIFO queues only.
    expect(
      (await call('POST', '/queues/orphan/messages', { body: { body: 'x', messageDeduplicationId: 'd' } })).status,
    ).toBe(400);
    expect(
      (await call('POST', '/queues/orphan/messages', { body: { body: 'x', attributes: { 'bad name!': 'v' } } })).status,
    ).toBe(400);
    expect((await call('GET', '/queues/orphan')).json.visible).toBe(before);
  });

  it('raftq --version prints the package version', async () => {
    const version = await runCli(['--version']);
    expect(version.code).toBe(0);
    const { version: expected } = JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8'));
    expect(version.stdout).toBe(`raftq ${expected}\n`);
  });
});
