/**
 * Admin calls for tests and fault injection, off unless the node runs with --debug-endpoints:
 *   POST /debug/txn           {"txnId"?, "reads"?: [tuple…], "writes": [{"key": tuple, "value"?: string, "valueBase64"?: string, "isNewKey"?: true, "delete"?: true}]}
 *                             reads at the node's applied point (or after ReadIndex with "linearizable": true),
 *                             commits, answers {"outcome": {...}}. Tuples are JSON arrays of strings and integers.
 *   GET  /debug/keys?prefix=JSON-tuple[&linearizable=1]   → {"keys": [{"key": tuple, "value": string}…]}
 *   POST /debug/clock-offset  {"offsetMs": n} shifts this node's cluster clock (never the host clock)
 *   POST /debug/snapshot      takes a snapshot now and compacts the log behind it
 *   POST /debug/load          {"durationMs", "concurrency", "valueBytes"} commits small txns from
 *                             inside the node for a while (bench/raft.ts); answers count and latencies
 */
import { Buffer } from 'node:buffer';
import { randomUUID } from 'node:crypto';
import type { ClusterNode } from '../cluster/cluster-node.js';
import { decodeKey, encodeKey, prefixRange, type KeyTuple } from '../storage/key-codec.js';
import type { TxnWrite } from '../storage/txn.js';
import { HttpError, type JsonBody } from './http-json.js';

const utf8 = new TextEncoder();
const utf8Decoder = new TextDecoder();
const debugKeysMax = 100_000;

function tupleOf(value: unknown, field: string): KeyTuple {
  if (
    !Array.isArray(value) ||
    value.length === 0 ||
    !value.every((e) => typeof e === 'string' || (typeof e === 'number' && Number.isSafeInteger(e)))
  ) {
    throw new HttpError(400, `${field} must be a non-empty array of strings and integers`);
  }
  return value as KeyTuple;
}

export async function debugTxn(node: ClusterNode, body: JsonBody): Promise<unknown> {
  const writesIn = body['writes'];
  if (!Array.isArray(writesIn)) throw new HttpError(400, 'writes must be an array');
  const writes: TxnWrite[] = writesIn.map((w: unknown, i: number) => {
    const write = (w ?? {}) as Record<string, unknown>;
    const key = encodeKey(tupleOf(write['key'], `writes[${i}].key`));
    if (write['delete'] === true) return { kind: 'delete', key };
    // Binary rows (bench/backlog.ts writes message rows this way to fill a queue fast); isNewKey as TxnWrite has it.
    if (typeof write['valueBase64'] === 'string') {
      return {
        kind: 'put',
        key,
        value: new Uint8Array(Buffer.from(write['valueBase64'], 'base64')),
        ...(write['isNewKey'] === true ? { isNewKey: true as const } : {}),
      };
    }
    if (typeof write['value'] !== 'string') throw new HttpError(400, `writes[${i}].value must be a string`);
    return { kind: 'put', key, value: utf8.encode(write['value']) };
  });
  const readsIn = body['reads'] ?? [];
  if (!Array.isArray(readsIn)) throw new HttpError(400, 'reads must be an array');
  const readKeys = readsIn.map((r: unknown, i: number) => encodeKey(tupleOf(r, `reads[${i}]`)));
  const txnId = typeof body['txnId'] === 'string' ? body['txnId'] : randomUUID();
  const view = await node.readView({ linearizable: body['linearizable'] === true });
  try {
    const outcome = await node.commit({ txnId, startTsUs: view.ts, nowMs: node.nowMs(), readKeys, writes });
    // The HTTP answer keeps its field name, `commitTs` (microseconds): callers of /debug/txn read it.
    if (outcome.kind === 'committed') return { txnId, outcome: { kind: 'committed', commitTs: outcome.commitTsUs } };
    return {
      txnId,
      outcome: outcome.kind === 'conflict' ? { kind: 'conflict', key: decodeKey(outcome.key) } : outcome,
    };
  } finally {
    view.release();
  }
}

export async function debugKeys(node: ClusterNode, query: URLSearchParams): Promise<unknown> {
  const prefixText = query.get('prefix') ?? '[]';
  let prefix: unknown;
  try {
    prefix = JSON.parse(prefixText);
  } catch {
    throw new HttpError(400, 'prefix must be a JSON array');
  }
  const range = prefixRange(tupleOf(prefix, 'prefix'));
  const view = await node.readView({ linearizable: query.get('linearizable') === '1' });
  try {
    const rows = await view.scan(range, { limit: debugKeysMax });
    return {
      appliedTs: view.ts,
      keys: rows.map((row) => ({ key: decodeKey(row.key), value: utf8Decoder.decode(row.value) })),
    };
  } finally {
    view.release();
  }
}

export function debugClockOffset(node: ClusterNode, body: JsonBody): unknown {
  const offsetMs = body['offsetMs'];
  if (typeof offsetMs !== 'number' || !Number.isFinite(offsetMs)) throw new HttpError(400, 'offsetMs must be a number');
  node.clock.setArtificialOffsetMs(offsetMs);
  node.logger.warn({ offsetMs }, 'artificial cluster clock offset set');
  return { offsetMs, nowMs: node.nowMs() };
}

export async function debugSnapshot(node: ClusterNode): Promise<unknown> {
  await node.runInLoop(async () => {
    const bounds = node.logBounds();
    const index = Math.min(node.appliedIndex(), bounds.lastIndex);
    if (index > bounds.snapshotIndex)
      await node.takeSnapshot(index, Math.max(bounds.firstIndex - 1, index - node.config.snapshotCatchUpEntries));
  });
  return node.logBounds();
}

const loadDurationMsMax = 120_000;
const loadConcurrencyMax = 4_096;

/** Commits one-key txns from `concurrency` loops for `durationMs`; latencies in ms, sorted. */
export async function debugLoad(node: ClusterNode, body: JsonBody): Promise<unknown> {
  const durationMs = Number(body['durationMs'] ?? 5_000);
  const concurrency = Number(body['concurrency'] ?? 16);
  const valueBytes = Number(body['valueBytes'] ?? 100);
  if (!(durationMs > 0 && durationMs <= loadDurationMsMax))
    throw new HttpError(400, `durationMs must be in (0, ${loadDurationMsMax}]`);
  if (!(Number.isInteger(concurrency) && concurrency > 0 && concurrency <= loadConcurrencyMax))
    throw new HttpError(400, `concurrency must be 1-${loadConcurrencyMax}`);
  if (!(Number.isInteger(valueBytes) && valueBytes >= 0 && valueBytes <= 65_536))
    throw new HttpError(400, 'valueBytes must be 0-65536');
  const value = new Uint8Array(valueBytes).fill(0x61);
  const latenciesMs: number[] = [];
  const errors = new Map<string, number>();
  const endAtMs = Date.now() + durationMs;
  const runId = randomUUID().slice(0, 8);
  let sequence = 0;
  const loop = async (worker: number): Promise<void> => {
    while (Date.now() < endAtMs) {
      const i = sequence++;
      const started = performance.now();
      try {
        const view = await node.readView({ linearizable: false });
        view.release();
        const outcome = await node.commit({
          txnId: `load-${runId}-${i}`,
          startTsUs: view.ts,
          nowMs: node.nowMs(),
          readKeys: [],
          writes: [{ kind: 'put', key: encodeKey(['load', node.id, worker, i]), value }],
        });
        if (outcome.kind === 'committed') latenciesMs.push(performance.now() - started);
        else errors.set(outcome.kind, (errors.get(outcome.kind) ?? 0) + 1);
      } catch (error) {
        const name = error instanceof Error ? error.name : 'Error';
        errors.set(name, (errors.get(name) ?? 0) + 1);
      }
    }
  };
  const started = performance.now();
  await Promise.all(Array.from({ length: concurrency }, (_, worker) => loop(worker)));
  const elapsedMs = performance.now() - started;
  latenciesMs.sort((a, b) => a - b);
  const at = (q: number): number =>
    latenciesMs[Math.min(latenciesMs.length - 1, Math.floor(q * latenciesMs.length))] ?? 0;
  return {
    commits: latenciesMs.length,
    elapsedMs,
    errors: Object.fromEntries(errors),
    p50Ms: at(0.5),
    p90Ms: at(0.9),
    p99Ms: at(0.99),
    maxMs: latenciesMs[latenciesMs.length - 1] ?? 0,
  };
}
