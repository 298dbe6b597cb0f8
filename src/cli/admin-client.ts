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

/** Nothing at the admin address answered: no node runs there, the host is unknown, or it timed out. */
export class AdminUnreachableError extends Error {
  constructor(
    readonly admin: string,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'AdminUnreachableError';
  }
}

/**
 * fetch() on the admin address `admin`; a failure to get any answer says which address was tried
 * and what happened there, rather than fetch's bare "fetch failed".
 */
export async function fetchAdmin(
  admin: string,
  path: string,
  init: RequestInit,
  timeoutMs: number | null,
): Promise<Response> {
  try {
    return await fetch(`http://${admin}${path}`, {
      ...init,
      ...(timeoutMs === null ? {} : { signal: AbortSignal.timeout(timeoutMs) }),
    });
  } catch (error) {
    throw new AdminUnreachableError(admin, unreachableMessage(admin, error, timeoutMs), { cause: error });
  }
}

function unreachableMessage(admin: string, error: unknown, timeoutMs: number | null): string {
  if (error instanceof Error && error.name === 'TimeoutError') return `${admin} did not answer within ${timeoutMs} ms`;
  const code = error instanceof Error ? (error.cause as NodeJS.ErrnoException | undefined)?.code : undefined;
  const hint = `is the node running, and is ${admin} its --admin-listen? Give --admin HOST:PORT of a running node`;
  if (code === 'ECONNREFUSED') return `nothing answered at ${admin} (connection refused): ${hint}`;
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN')
    return `cannot reach ${admin}: its host name does not resolve (${code})`;
  if (code === 'ETIMEDOUT' || code === 'EHOSTUNREACH' || code === 'ENETUNREACH')
    return `cannot reach ${admin} (${code}): ${hint}`;
  const detail =
    error instanceof Error ? ((error.cause as Error | undefined)?.message ?? error.message) : String(error);
  return `no answer from ${admin}: ${detail}`;
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
  if (options.clusterSecret !== undefined && options.clusterSecret !== '')
    headers[adminSecretHeader] = options.clusterSecret;
  if (options.adminToken !== undefined && options.adminToken !== '')
    headers['authorization'] = `Bearer ${options.adminToken}`;
  const response = await fetchAdmin(
    admin,
    path,
    { method, headers, ...(options.body === undefined ? {} : { body: JSON.stringify(options.body) }) },
    options.timeoutMs ?? 60_000,
  );
  const text = await response.text();
  let parsed: unknown = text;
  try {
    parsed = JSON.parse(text);
  } catch {
    // Not JSON (e.g. /metrics): hand back the text.
  }
  if (!response.ok) {
    const message =
      typeof parsed === 'object' && parsed !== null && 'error' in parsed
        ? String((parsed as { error: unknown }).error)
        : text;
    throw new AdminCallError(response.status, `${method} ${path} on ${admin}: ${response.status} ${message}`);
  }
  return parsed;
}
