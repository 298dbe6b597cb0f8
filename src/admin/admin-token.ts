/**
 * The bearer token that guards the admin port when it listens beyond loopback (`--admin-token`).
 * /health and /ready stay open (load balancers and Kubernetes probes carry no token), and so do the
 * web console's static files (console-route.ts), which hold no data; everything
 * else — /status, /metrics, backups, membership, debug calls — needs `Authorization: Bearer TOKEN`.
 */
import { timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { HttpError } from './http-json.js';

/** Paths answered without the token. */
export const openAdminPaths: ReadonlySet<string> = new Set(['/health', '/ready']);

/** True when the request carries `token` as its bearer token (or no token is configured). */
export function hasAdminToken(token: string, request: IncomingMessage): boolean {
  if (token === '') return true;
  const header = request.headers.authorization ?? '';
  const match = /^Bearer\s+(.+)$/i.exec(header);
  const presented = Buffer.from(match?.[1]?.trim() ?? '');
  const expected = Buffer.from(token);
  return presented.length === expected.length && timingSafeEqual(presented, expected);
}

export function requireAdminToken(token: string, request: IncomingMessage, path: string): void {
  if (openAdminPaths.has(path) || hasAdminToken(token, request)) return;
  throw new HttpError(401, 'this admin call needs the admin token: Authorization: Bearer TOKEN');
}

/** Loopback hosts: an admin port there needs no token, anything else does. */
export function isLoopbackHost(host: string): boolean {
  return host === 'localhost' || host === '::1' || /^127\.\d+\.\d+\.\d+$/.test(host);
}
