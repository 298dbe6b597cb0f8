/**
 * The admin port (docs/OPERATIONS.md): GET /health, /ready, /status, /metrics; the web console (GET /,
 * console-route.ts) and the cluster view it shows (GET /cluster); the queues (/queues…,
 * queue-routes.ts); membership and leader transfer for `raftq members` and `raftq leader
 * transfer`; debug calls when enabled. Loopback by
 * default. Calls that change the cluster need the cluster secret (header x-raftq-cluster-secret)
 * when the node has one.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { timingSafeEqual } from 'node:crypto';
import type { Logger } from 'pino';
import type { ClusterNode } from '../cluster/cluster-node.js';
import { isRaftqError, isRetryable } from '../base/errors.js';
import { debugClockOffset, debugKeys, debugLoad, debugSnapshot, debugTxn } from './debug-routes.js';
import { HttpError, readJsonBody, sendJson } from './http-json.js';
import { requireAdminToken } from './admin-token.js';
import { streamBackup } from './backup-route.js';
import { routeQueues } from './queue-routes.js';
import { clusterView } from './cluster-route.js';
import { serveConsole } from './console-route.js';
import type { QueueService } from '../queue/queue-service.js';

export interface AdminServerOptions {
  readonly host: string;
  readonly port: number;
  readonly node: ClusterNode;
  readonly logger: Logger;
  readonly isDebugEnabled: boolean;
  readonly clusterSecret: string;
  /** Bearer token for every call but /health and /ready; '' (the default) when on loopback. */
  readonly adminToken?: string;
  /** The queues /queues… shows and acts on (queue-routes.ts); without it those calls answer 503. */
  readonly queueService?: QueueService;
}

export interface AdminServer {
  readonly port: number;
  close(): Promise<void>;
}

export const adminSecretHeader = 'x-raftq-cluster-secret';
const readyCheckTimeoutMs = 1_000;

export async function startAdminServer(options: AdminServerOptions): Promise<AdminServer> {
  const server = createServer((request, response) => {
    route(options, request, response).catch((error: unknown) => answerError(options, response, error));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => resolve());
  });
  const address = server.address();
  const port = typeof address === 'object' && address !== null ? address.port : options.port;
  return {
    port,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

async function route(options: AdminServerOptions, request: IncomingMessage, response: ServerResponse): Promise<void> {
  const { node } = options;
  const url = new URL(request.url ?? '/', 'http://admin');
  const method = request.method ?? 'GET';
  const path = url.pathname;
  if (await serveConsole(method, path, response)) return;
  requireAdminToken(options.adminToken ?? '', request, path);
  if (method === 'GET' && path === '/health') return sendJson(response, 200, { status: 'ok', id: node.id });
  if (method === 'GET' && path === '/ready') {
    const isReady = await node.isReady(readyCheckTimeoutMs);
    return sendJson(response, isReady ? 200 : 503, {
      ready: isReady,
      id: node.id,
      leader: node.leaderId(),
      appliedIndex: node.appliedIndex(),
    });
  }
  if (method === 'GET' && path === '/status') return sendJson(response, 200, await node.status());
  if (method === 'GET' && path === '/cluster') return sendJson(response, 200, await clusterView(node));
  if (method === 'GET' && path === '/metrics') {
    const text = await node.metrics.registry.metrics();
    response.writeHead(200, { 'content-type': node.metrics.registry.contentType });
    response.end(text);
    return;
  }
  if (method === 'GET' && path === '/backup') {
    // Every message of every queue leaves in a backup: it needs the secret like a membership change.
    requireSecret(options, request);
    return streamBackup(node, response, options.logger);
  }
  if (method === 'POST' && path === '/members') {
    requireSecret(options, request);
    const body = await readJsonBody(request);
    const id = body['id'];
    const address = body['address'];
    if (typeof id !== 'string' || typeof address !== 'string')
      throw new HttpError(400, 'expected {"id": "...", "address": "HOST:PORT"}');
    const status = await node.membershipAdmin.addMember(id, address);
    return sendJson(response, 200, { id, address, status });
  }
  const memberMatch = /^\/members\/([^/]+)$/.exec(path);
  if (method === 'DELETE' && memberMatch !== null) {
    requireSecret(options, request);
    const id = decodeURIComponent(memberMatch[1] as string);
    await node.membershipAdmin.removeMember(id);
    return sendJson(response, 200, { id, removed: true });
  }
  if (method === 'POST' && path === '/leader/transfer') {
    requireSecret(options, request);
    const body = await readJsonBody(request);
    const id = body['id'];
    if (typeof id !== 'string') throw new HttpError(400, 'expected {"id": "..."}');
    await node.membershipAdmin.transferLeader(id);
    return sendJson(response, 200, { leader: node.leaderId() });
  }
  if (await routeQueues(options.queueService, method, url, request, response)) return;
  if (path.startsWith('/debug/')) {
    if (!options.isDebugEnabled)
      throw new HttpError(404, 'debug endpoints are off (start the node with --debug-endpoints)');
    requireSecret(options, request);
    if (method === 'POST' && path === '/debug/txn')
      return sendJson(response, 200, await debugTxn(node, await readJsonBody(request)));
    if (method === 'GET' && path === '/debug/keys')
      return sendJson(response, 200, await debugKeys(node, url.searchParams));
    if (method === 'POST' && path === '/debug/clock-offset')
      return sendJson(response, 200, debugClockOffset(node, await readJsonBody(request)));
    if (method === 'POST' && path === '/debug/snapshot') return sendJson(response, 200, await debugSnapshot(node));
    if (method === 'POST' && path === '/debug/load')
      return sendJson(response, 200, await debugLoad(node, await readJsonBody(request)));
  }
  throw new HttpError(404, `no route for ${method} ${path}`);
}

function requireSecret(options: AdminServerOptions, request: IncomingMessage): void {
  if (options.clusterSecret === '') return;
  const presented = request.headers[adminSecretHeader];
  const expected = Buffer.from(options.clusterSecret);
  const actual = Buffer.from(typeof presented === 'string' ? presented : '');
  if (actual.length !== expected.length || !timingSafeEqual(actual, expected)) {
    options.logger.warn({ path: request.url }, 'refused an admin call: wrong or missing cluster secret');
    throw new HttpError(401, `this call needs the cluster secret in the ${adminSecretHeader} header`);
  }
}

function answerError(options: AdminServerOptions, response: ServerResponse, error: unknown): void {
  if (response.headersSent) {
    response.destroy();
    return;
  }
  if (error instanceof HttpError) return sendJson(response, error.status, { error: error.message });
  if (isRaftqError(error)) {
    // Retryable conditions (no leader, outcome unknown) are 503: the caller may try again.
    return sendJson(response, isRetryable(error) ? 503 : 409, {
      error: error.message,
      code: error.code,
      retryable: isRetryable(error),
    });
  }
  options.logger.error({ err: error }, 'admin request failed');
  sendJson(response, 500, { error: error instanceof Error ? error.message : String(error) });
}
