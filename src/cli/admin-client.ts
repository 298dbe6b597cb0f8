/** The CLI's side of the admin port: `raftq status`, `raftq members …`, `raftq leader transfer`. */
import { UsageError } from './flags.js';

export const adminSecretHeader = 'x-raftq-cluster-secret';

export class AdminCallError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
    this.name = 'AdminCallError';
  }
}

export async function adminCall(
  admin: string,
  method: 'GET' | 'POST' | 'DELETE',
  path: string,
  options: { body?: unknown; clusterSecret?: string; adminToken?: string; timeoutMs?: number } = {},
): Promise<unknown> {
  if (!/^[^/\s]+:\d+$/.test(admin)) throw new UsageError(`--admin must be HOST:PORT, got "${admin}"`);
  const headers: Record<string, string> = {};
  if (options.body !== undefined) headers['content-type'] = 'application/json';
  if (options.clusterSecret !== undefined && options.clusterSecret !== '') headers[adminSecretHeader] = options.clusterSecret;
  if (options.adminToken !== undefined && options.adminToken !== '') headers['authorization'] = `Bearer ${options.adminToken}`;
  const response = await fetch(`http://${admin}${path}`, {
    method,
    headers,
    ...(options.body === undefined ? {} : { body: JSON.stringify(options.body) }),
    signal: AbortSignal.timeout(options.timeoutMs ?? 60_000),
  });
  const text = await response.text();
  let parsed: unknown = text;
  try {
    parsed = JSON.parse(text);
  } catch {
    // Not JSON (e.g. /metrics): hand back the text.
  }
  if (!response.ok) {
    const message = typeof parsed === 'object' && parsed !== null && 'error' in parsed ? String((parsed as { error: unknown }).error) : text;
    throw new AdminCallError(response.status, `${method} ${path} on ${admin}: ${response.status} ${message}`);
  }
  return parsed;
}
