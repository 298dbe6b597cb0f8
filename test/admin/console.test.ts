/**
 * The web console in a real browser (headless Chromium from the system, driven by playwright-core,
 * which downloads no browser) against real node processes: a cluster of three members of which two
 * run, each with the admin token. The console is opened on n1's admin port and used as an operator
 * would: the token prompt, the cluster and queue tables, filter and sort by keyboard, a queue's
 * peeked messages (an HTML body is text), a test message, a purge after confirmation, a redrive.
 * With RAFTQ_CONSOLE_SCREENSHOTS=DIR it saves the screenshots docs/OPERATIONS.md shows.
 */
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { CreateQueueCommand, ReceiveMessageCommand, SendMessageCommand, type SQSClient } from '@aws-sdk/client-sqs';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePorts } from '../support/ports.js';
import { makeTempDir } from '../support/temp-dir.js';
import { NodeProcess, mainScript, sqsClient, waitFor } from '../deploy/support/node-process.js';

const token = 'console-test-token';
const chromiumPath = process.env['RAFTQ_CHROMIUM'] ?? '/usr/bin/chromium';
const screenshotDir = process.env['RAFTQ_CONSOLE_SCREENSHOTS'] ?? '';
const accountId = '000000000000';
const arnOf = (name: string) => `arn:aws:sqs:us-east-1:${accountId}:${name}`;
/** The body that would run script if the console rendered message bodies as HTML. */
const hostileBody = '<img src=x onerror="window.__injected = 1"><script>window.__injected = 2</script><b>bold?</b>';

describe('the web console, in a browser', () => {
  const dir = makeTempDir('console');
  const nodes = new Map<string, NodeProcess>();
  const admins = new Map<string, string>();
  let sqs: SQSClient;
  let browser: Browser;
  let page: Page;
  let consoleUrl = '';
  const urls = new Map<string, string>();

  const call = async (method: string, path: string, on = 'n1'): Promise<any> => {
    const response = await fetch(`http://${admins.get(on)}${path}`, {
      method,
      headers: { authorization: `Bearer ${token}` },
      signal: AbortSignal.timeout(30_000),
    });
    expect(response.status, `${method} ${path}`).toBe(200);
    return response.json();
  };
  const createQueue = async (name: string, attributes: Record<string, string> = {}) => {
    urls.set(
      name,
      (await sqs.send(new CreateQueueCommand({ QueueName: name, Attributes: attributes }))).QueueUrl as string,
    );
  };
  const send = (
    name: string,
    body: string,
    extra: { DelaySeconds?: number; MessageGroupId?: string; MessageDeduplicationId?: string } = {},
  ) => sqs.send(new SendMessageCommand({ QueueUrl: urls.get(name), MessageBody: body, ...extra }));
  const receive = (name: string, visibilityTimeout: number) =>
    sqs.send(
      new ReceiveMessageCommand({
        QueueUrl: urls.get(name),
        MaxNumberOfMessages: 1,
        WaitTimeSeconds: 0,
        VisibilityTimeout: visibilityTimeout,
      }),
    );
  /** The text of each cell of the table row marked `data-KEY="value"`, header cell first. */
  const rowCells = (attribute: string, value: string) =>
    page.locator(`tr[${attribute}="${value}"]`).locator('th, td').allTextContents();
  const queueOrder = async () =>
    page
      .locator('#queues-table tbody tr[data-queue]')
      .evaluateAll((rows) => rows.map((row) => row.getAttribute('data-queue')));
  // Expressions evaluated in the page are strings: this project's types hold no DOM.
  const focusedId = () => page.evaluate<string | undefined>('document.activeElement?.id');
  const screenshot = async (name: string) => {
    if (screenshotDir === '') return;
    mkdirSync(screenshotDir, { recursive: true });
    await page.screenshot({ path: join(screenshotDir, `${name}.png`), fullPage: true });
  };
  /** Polls the page until `read` gives `expected`; the console refreshes every few seconds. */
  const eventually = async <T>(read: () => Promise<T>, expected: T, what: string) => {
    let last: T | undefined;
    await waitFor(
      async () => {
        last = await read();
        return JSON.stringify(last) === JSON.stringify(expected);
      },
      30_000,
      what,
    ).catch((error: Error) => {
      throw new Error(`${error.message}; last seen ${JSON.stringify(last)}`);
    });
  };

  beforeAll(async () => {
    if (!existsSync(chromiumPath))
      throw new Error(
        `no browser at ${chromiumPath}: install Debian's chromium (.ci/install-system-deps) or set RAFTQ_CHROMIUM`,
      );
    const ports = new Map<string, { sqs: string; admin: string; raft: string }>();
    for (const id of ['n1', 'n2', 'n3']) {
      const [sqsPort, adminPort, raftPort] = (await freePorts(3)) as [number, number, number];
      ports.set(id, { sqs: `127.0.0.1:${sqsPort}`, admin: `127.0.0.1:${adminPort}`, raft: `127.0.0.1:${raftPort}` });
      admins.set(id, `127.0.0.1:${adminPort}`);
    }
    const peers = [...ports].map(([id, p]) => `${id}=${p.raft}`).join(',');
    // n3 is a member that never starts: two of three are a quorum, and the console shows it unreachable.
    for (const id of ['n1', 'n2']) {
      const p = ports.get(id) as { sqs: string; admin: string; raft: string };
      const argv = [
        mainScript,
        'serve',
        '--id',
        id,
        '--data-dir',
        join(dir.path, id),
        '--sqs-listen',
        p.sqs,
        '--admin-listen',
        p.admin,
        '--raft-listen',
        p.raft,
        '--peers',
        peers,
        '--admin-token',
        token,
      ];
      nodes.set(id, new NodeProcess(id, argv, process.env, join(dir.path, `${id}.log`), p.admin));
    }
    await Promise.all([...nodes.values()].map((node) => node.waitReady(60_000)));
    sqs = sqsClient(`http://${ports.get('n1')?.sqs}`);

    await createQueue('work-dlq');
    await createQueue('work', {
      RedrivePolicy: JSON.stringify({ deadLetterTargetArn: arnOf('work-dlq'), maxReceiveCount: 1 }),
    });
    await createQueue('alpha');
    await createQueue('orders.fifo', { FifoQueue: 'true', ContentBasedDeduplication: 'true' });
    // "first" is received once and left visible; the next receive moves it to work-dlq.
    await send('work', 'first');
    expect((await receive('work', 0)).Messages?.[0]?.Body).toBe('first');
    expect((await receive('work', 600)).Messages ?? []).toHaveLength(0);
    // work: one visible, one in flight, one delayed; one of the two visible bodies is the hostile one.
    await send('work', hostileBody);
    await send('work', 'plain body');
    await send('work', 'later', { DelaySeconds: 900 });
    expect((await receive('work', 600)).Messages).toHaveLength(1);
    for (const body of ['a1', 'a2', 'a3']) await send('alpha', body);
    for (const body of ['o1', 'o2']) await send('orders.fifo', body, { MessageGroupId: 'g' });

    browser = await chromium.launch({ executablePath: chromiumPath, args: ['--no-sandbox'] });
    page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    consoleUrl = `http://${admins.get('n1')}/`;
  });

  afterAll(async () => {
    await browser?.close();
    sqs?.destroy();
    await Promise.all([...nodes.values()].map((node) => node.kill()));
    dir.cleanup();
  });

  it('serves the page without the token, and nothing else without it', async () => {
    const pageResponse = await fetch(consoleUrl);
    expect(pageResponse.status).toBe(200);
    expect(pageResponse.headers.get('content-security-policy')).toContain("script-src 'self'");
    expect(await pageResponse.text()).not.toContain(token);
    expect((await fetch(`${consoleUrl}cluster`)).status).toBe(401);
  });

  it('asks once for the admin token, says when it is wrong, keeps it for the tab and never shows it', async () => {
    await page.goto(consoleUrl);
    const dialog = page.locator('#token-dialog');
    await dialog.waitFor({ state: 'visible' });
    // Typed by keyboard: the field has the focus when the prompt opens.
    await page.keyboard.type('not-the-token');
    await page.keyboard.press('Enter');
    await eventually(
      () => page.locator('#token-error').textContent(),
      'The node refused that token.',
      'the refusal to show',
    );
    await expect.poll(() => dialog.isVisible()).toBe(true);
    // Escape does not get rid of it, even twice.
    await page.keyboard.press('Escape');
    await page.keyboard.press('Escape');
    // The prompt reopens itself when the browser closes it: wait for that, not for a moment.
    await expect.poll(() => dialog.isVisible()).toBe(true);
    await expect.poll(() => focusedId()).toBe('token-input');
    await page.keyboard.type(token);
    await page.keyboard.press('Enter');
    await dialog.waitFor({ state: 'hidden' });
    await page.locator('#cluster-table tr[data-member="n1"]').waitFor();
    expect(await page.content()).not.toContain(token);
    expect(await page.locator('#token-input').inputValue()).toBe('');
    // A reload in the same tab does not ask again.
    await page.reload();
    await page.locator('#queues-table tr[data-queue="work"]').waitFor();
    expect(await dialog.isVisible()).toBe(false);
  });

  it('shows every member of the cluster with the values the nodes report, and the one that is down', async () => {
    const status = await call('GET', '/status');
    const leader = status.leader as string;
    const n3 = async () => {
      const cells = await rowCells('data-member', 'n3');
      return [cells[0], cells[2], cells[3], cells[8]];
    };
    await eventually(n3, ['n3', 'voter', '-', 'unreachable'], 'n3 to show unreachable');
    for (const id of ['n1', 'n2']) {
      const before = await call('GET', '/status', id);
      await page.reload();
      await page.locator(`tr[data-member="${id}"]`).waitFor();
      const cells = await rowCells('data-member', id);
      const after = await call('GET', '/status', id);
      const [member, , membership, role, term, commit, applied, lag, health] = cells;
      expect(member).toBe(id === 'n1' ? 'n1 (this node)' : id);
      expect(membership).toBe('voter');
      expect(role).toBe(id === leader ? 'leader' : 'follower');
      expect(Number(term)).toBe(status.term);
      expect(health).toBe('ok');
      const number = (text: string | undefined) => Number((text ?? '').replace(/,/g, ''));
      expect(number(commit)).toBeGreaterThanOrEqual(before.commitIndex);
      expect(number(commit)).toBeLessThanOrEqual(after.commitIndex);
      expect(number(applied)).toBeGreaterThanOrEqual(before.appliedIndex);
      expect(number(applied)).toBeLessThanOrEqual(after.appliedIndex);
      expect(number(lag)).toBeGreaterThanOrEqual(0);
    }
    expect(await page.locator('#node-id').textContent()).toBe('node n1');
    await screenshot('console-overview');
  });

  it('lists the queues created through SQS with their counts, type and dead-letter queue', async () => {
    await page.locator('#queues-table tr[data-queue="orders.fifo"]').waitFor();
    expect(await queueOrder()).toEqual(['alpha', 'orders.fifo', 'work', 'work-dlq']);
    const [name, type, visible, inFlight, delayed, oldest, deadLetter] = await rowCells('data-queue', 'work');
    expect([name, type, visible, inFlight, delayed, deadLetter]).toEqual([
      'work',
      'standard',
      '1',
      '1',
      '1',
      'work-dlq',
    ]);
    expect(oldest).toMatch(/^\d+(s|m\d\ds)$/);
    expect((await rowCells('data-queue', 'work-dlq')).slice(0, 5)).toEqual(['work-dlq', 'standard', '1', '0', '0']);
    expect((await rowCells('data-queue', 'orders.fifo')).slice(0, 3)).toEqual(['orders.fifo', 'fifo', '2']);
    expect((await rowCells('data-queue', 'alpha')).slice(0, 3)).toEqual(['alpha', 'standard', '3']);
    expect(await page.locator('#queue-count').textContent()).toBe('4 queues');
  });

  it('filters by name and sorts by a column, by keyboard', async () => {
    await page.locator('body').focus();
    await page.keyboard.press('/');
    expect(await focusedId()).toBe('queue-filter');
    await page.keyboard.type('WORK');
    expect(await queueOrder()).toEqual(['work', 'work-dlq']);
    expect(await page.locator('#queue-count').textContent()).toBe('2 of 4 queues');
    await page.keyboard.type('-d');
    expect(await queueOrder()).toEqual(['work-dlq']);
    await page.locator('#queue-filter').fill('');
    expect(await queueOrder()).toEqual(['alpha', 'orders.fifo', 'work', 'work-dlq']);

    // Sorting: the column header is a button; Enter sorts ascending, again descending (ties by name).
    await page.locator('button[data-sort="visible"]').focus();
    await page.keyboard.press('Enter');
    expect(await queueOrder()).toEqual(['work', 'work-dlq', 'orders.fifo', 'alpha']);
    expect(await page.locator('th:has(button[data-sort="visible"])').getAttribute('aria-sort')).toBe('ascending');
    expect(await page.evaluate<string | null>("document.activeElement?.getAttribute('data-sort') ?? null")).toBe(
      'visible',
    );
    await page.keyboard.press('Enter');
    expect(await queueOrder()).toEqual(['alpha', 'orders.fifo', 'work', 'work-dlq']);
    expect(await page.locator('th:has(button[data-sort="visible"])').getAttribute('aria-sort')).toBe('descending');
    // The order holds across a refresh of the data.
    const refreshed = await page.locator('#refresh-state').textContent();
    await waitFor(async () => (await page.locator('#refresh-state').textContent()) !== refreshed, 30_000, 'a refresh');
    expect(await queueOrder()).toEqual(['alpha', 'orders.fifo', 'work', 'work-dlq']);
    await page.locator('button[data-sort="name"]').click();
  });

  it('shows a queue: its peeked messages, an HTML body as text, and changes nothing by peeking', async () => {
    const countsBefore = await call('GET', '/queues/work');
    await page.locator('tr[data-queue="work"] th a').focus();
    await page.keyboard.press('Enter');
    await page.locator('#messages-table').waitFor();
    expect(page.url()).toBe(`${consoleUrl}#/queues/work`);
    expect(await page.locator('#queue-title').textContent()).toBe('work');
    const bodies = await page.locator('#messages-table pre.body').allTextContents();
    expect(bodies.sort()).toEqual([hostileBody, 'later', 'plain body'].sort());
    // The hostile body is text: no element came of it and none of its script ran.
    expect(await page.locator('#messages-table img, #messages-table script, #messages-table b').count()).toBe(0);
    expect(await page.evaluate<number | undefined>('window.__injected')).toBeUndefined();
    const states = await page
      .locator('#messages-table tbody tr')
      .evaluateAll((rows) => rows.map((row) => row.children[1]?.textContent));
    expect(states.sort()).toEqual(['delayed', 'inflight', 'visible']);
    expect(await page.locator('[data-count="visible"]').textContent()).toBe('1');
    expect(await page.locator('[data-count="inFlight"]').textContent()).toBe('1');
    expect(await page.locator('[data-count="delayed"]').textContent()).toBe('1');
    // Links between the queue and its dead-letter queue, and the attributes as GetQueueAttributes gives them.
    expect(await page.locator('#queue-relations a').allTextContents()).toEqual(['work-dlq']);
    expect(await page.locator('#queue-attributes-table tr[data-key="RedrivePolicy"] td').textContent()).toContain(
      arnOf('work-dlq'),
    );
    await page.locator('#peek-button').click();
    await page.locator('#messages-table').waitFor();
    // Peeking twice received nothing: counts and receive counts as before.
    const countsAfter = await call('GET', '/queues/work');
    for (const field of ['visible', 'inFlight', 'delayed']) expect(countsAfter[field], field).toBe(countsBefore[field]);
    const peeked = await call('GET', '/queues/work/messages?limit=10');
    expect(peeked.messages.filter((m: any) => m.state !== 'inflight').map((m: any) => m.receiveCount)).toEqual([0, 0]);
    await screenshot('console-queue');
  });

  it('sends a test message from the queue page', async () => {
    await page.goto(`${consoleUrl}#/queues/alpha`);
    await page.locator('#send-body').waitFor({ state: 'visible' });
    await page.locator('#send-body').fill('from the console <i>x</i>');
    await page.locator('#send-body').focus();
    await page.keyboard.press('Tab'); // to the delay field, then the send button
    await page.keyboard.press('Tab');
    expect(await focusedId()).toBe('send-button');
    await page.keyboard.press('Enter');
    await waitFor(
      async () => ((await page.locator('#action-status').textContent()) ?? '').startsWith('Sent message '),
      30_000,
      'the send',
    );
    const messageId = ((await page.locator('#action-status').textContent()) as string).slice(
      'Sent message '.length,
      -1,
    );
    await page.locator(`#messages-table tr[data-message-id="${messageId}"]`).waitFor();
    expect(await page.locator(`tr[data-message-id="${messageId}"] pre.body`).textContent()).toBe(
      'from the console <i>x</i>',
    );
    const peeked = await call('GET', '/queues/alpha/messages?limit=10');
    expect(peeked.messages.find((m: any) => m.messageId === messageId)).toMatchObject({
      body: 'from the console <i>x</i>',
      senderId: 'raftq-admin',
    });
    expect(await page.locator('[data-count="visible"]').textContent()).toBe('4');
  });

  it('purges a queue only after confirmation', async () => {
    await page.locator('#purge-button').click();
    const dialog = page.locator('#confirm-dialog');
    await dialog.waitFor({ state: 'visible' });
    expect(await page.locator('#confirm-text').textContent()).toBe(
      'Purge alpha? This deletes its 4 messages and cannot be undone.',
    );
    // Cancel has the focus: Enter there purges nothing.
    expect(await focusedId()).toBe('confirm-cancel');
    await page.keyboard.press('Enter');
    await dialog.waitFor({ state: 'hidden' });
    expect(await page.locator('#action-status').textContent()).toBe('Purge cancelled.');
    expect((await call('GET', '/queues/alpha')).visible).toBe(4);
    // Escape cancels too.
    await page.locator('#purge-button').click();
    await dialog.waitFor({ state: 'visible' });
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'hidden' });
    expect((await call('GET', '/queues/alpha')).visible).toBe(4);

    await page.locator('#purge-button').click();
    await dialog.waitFor({ state: 'visible' });
    await page.locator('#confirm-ok').click();
    await eventually(() => page.locator('#action-status').textContent(), 'Purged alpha.', 'the purge');
    expect((await call('GET', '/queues/alpha')).visible).toBe(0);
    await eventually(
      () => page.locator('#peeked-messages').textContent(),
      'The queue holds no message.',
      'the empty peek',
    );
    expect(await page.locator('[data-count="visible"]').textContent()).toBe('0');
  });

  it('starts a redrive from a dead-letter queue, which moves its message back', async () => {
    await page.goto(`${consoleUrl}#/queues/work-dlq`);
    await page.locator('#redrive').waitFor({ state: 'visible' });
    expect(await page.locator('#queue-relations a').allTextContents()).toEqual(['work']);
    // The page peeks the queue after it shows the queue's details: the table fills a moment later.
    await eventually(
      () => page.locator('#messages-table pre.body').allTextContents(),
      ['first'],
      'the peek of work-dlq',
    );
    await page.locator('#redrive-button').click();
    await eventually(
      () => page.locator('#action-status').textContent(),
      'Redrive of work-dlq started.',
      'the redrive to start',
    );
    await waitFor(async () => (await call('GET', '/queues/work-dlq')).visible === 0, 30_000, 'work-dlq to empty');
    const work = await call('GET', '/queues/work/messages?limit=10');
    expect(work.messages.map((m: any) => m.body)).toContain('first');
    await eventually(
      () => page.locator('[data-count="visible"]').textContent(),
      '0',
      'the page to show work-dlq empty',
    );
  });

  it('GET /cluster answers the members with their health, behind the token', async () => {
    expect((await fetch(`http://${admins.get('n2')}/cluster`)).status).toBe(401);
    const view = await call('GET', '/cluster', 'n2');
    expect(view.id).toBe('n2');
    expect(view.members.map((m: any) => [m.id, m.membership, m.isSelf, m.health])).toEqual([
      ['n1', 'voter', false, 'ok'],
      ['n2', 'voter', true, 'ok'],
      ['n3', 'voter', false, 'unreachable'],
    ]);
    const leaderRow = view.members.find((m: any) => m.id === view.leader);
    expect(leaderRow).toMatchObject({ role: 'leader', term: view.term });
  });
});
