// etcd (three members) through its HTTP/JSON gateway, as a queue built from keys: a send is a put
// (a batch of 10 is one txn of 10 puts); a receive is a linearizable range read of the oldest keys
// of the slot's own partition followed by their deletion (one txn for a batch). Each consumer slot
// owns a partition so consumers do not race for the same keys; producers spread messages over all
// partitions. Both halves are Raft commits, as in raftq.
import { setMaxListeners } from 'node:events';
import { setTimeout as delay } from 'node:timers/promises';
import { Pool } from 'undici';
import type { ConsumedBatch, DriverOptions, LoadDriver } from './load-driver.js';
import { LoadOperationError } from './load-driver.js';
import { bodyTemplate, nowEpochMicros, readTimestampMicros, timestampDigits } from './message-body.js';

/** Pause after a receive that found nothing: etcd has no long poll, and a tight loop would only burn the CPU the servers need. */
const emptyReceivePauseMs = 5;

export function etcdPartitionPrefix(queue: string, partition: number): string {
  return `${queue}/${String(partition).padStart(4, '0')}/`;
}

/** The end of a prefix's range: the prefix with its last byte incremented. */
export function prefixRangeEnd(prefix: string): string {
  const bytes = Buffer.from(prefix, 'latin1');
  bytes[bytes.length - 1] = (bytes[bytes.length - 1] ?? 0) + 1;
  return bytes.toString('latin1');
}

const b64 = (text: string | Buffer): string => Buffer.from(text as string, 'latin1').toString('base64');

interface PutTemplate {
  readonly request: Buffer;
  readonly keyOffsets: readonly number[];
  readonly timestampOffsets: readonly number[];
}

export class EtcdDriver implements LoadDriver {
  private readonly pools: Pool[];
  private readonly templates = new Map<number, PutTemplate>();
  private readonly sequence = new Map<number, number>();
  private readonly valueTail: string;
  private readonly aborter = new AbortController();

  constructor(private readonly options: DriverOptions) {
    if (options.target.kind !== 'etcd') throw new TypeError('EtcdDriver needs an etcd target');
    // Every request of every slot listens on this one signal.
    setMaxListeners(0, this.aborter.signal);
    const endpoints = options.target.endpoints;
    const slots = [...options.producerSlots, ...options.consumerSlots];
    this.pools = endpoints.map(
      (origin, e) =>
        new Pool(origin, {
          connections: Math.max(1, slots.filter((s) => s % endpoints.length === e).length),
          pipelining: 1,
          keepAliveTimeout: 60_000,
        }),
    );
    // The base64 of the body after its timestamp: the timestamp is 18 bytes, a whole number of
    // base64 quanta, so the two halves encode independently.
    this.valueTail = bodyTemplate(options.messageBytes).subarray(timestampDigits).toString('base64');
  }

  private keyFor(slot: number, seq: number): string {
    const partition = (slot + seq) % Math.max(1, this.options.partitions);
    return `${etcdPartitionPrefix(this.options.queue.name, partition)}${String(slot).padStart(4, '0')}-${String(seq).padStart(12, '0')}`;
  }

  async open(): Promise<void> {
    for (const slot of this.options.producerSlots) {
      const keyB64Length = b64(this.keyFor(slot, 0)).length;
      const parts: string[] = [];
      const keyOffsets: number[] = [];
      const timestampOffsets: number[] = [];
      let length = 0;
      const push = (text: string, offsets?: number[]): void => {
        offsets?.push(length);
        parts.push(text);
        length += text.length;
      };
      const putBody = (): void => {
        push('{"key":"');
        push('A'.repeat(keyB64Length), keyOffsets);
        push('","value":"');
        push('A'.repeat(24), timestampOffsets);
        push(`${this.valueTail}"}`);
      };
      if (this.options.batchSize === 1) putBody();
      else {
        push('{"success":[');
        for (let i = 0; i < this.options.batchSize; i++) {
          push(i === 0 ? '{"request_put":' : ',{"request_put":');
          putBody();
          push('}');
        }
        push(']}');
      }
      this.templates.set(slot, { request: Buffer.from(parts.join(''), 'latin1'), keyOffsets, timestampOffsets });
      this.sequence.set(slot, 0);
    }
  }

  private async call(slot: number, path: string, body: Buffer | string): Promise<string> {
    const pool = this.pools[slot % this.pools.length] as Pool;
    const response = await pool.request({
      path,
      method: 'POST',
      body,
      signal: this.aborter.signal,
      headers: { 'content-type': 'application/json' },
    });
    const text = await response.body.text();
    if (response.statusCode !== 200)
      throw new LoadOperationError(path, `HTTP ${response.statusCode}: ${text.slice(0, 300)}`);
    return text;
  }

  async produce(slot: number): Promise<number> {
    const template = this.templates.get(slot);
    if (template === undefined) throw new TypeError(`slot ${slot} is not a producer slot`);
    const timestampB64 = b64(String(nowEpochMicros()).padStart(timestampDigits, '0'));
    let seq = this.sequence.get(slot) ?? 0;
    for (let i = 0; i < this.options.batchSize; i++) {
      template.request.write(b64(this.keyFor(slot, seq++)), template.keyOffsets[i] ?? 0, 'latin1');
      template.request.write(timestampB64, template.timestampOffsets[i] ?? 0, 'latin1');
    }
    this.sequence.set(slot, seq);
    await this.call(slot, this.options.batchSize === 1 ? '/v3/kv/put' : '/v3/kv/txn', template.request);
    return this.options.batchSize;
  }

  async consume(slot: number): Promise<ConsumedBatch> {
    // Consumer slots are numbered 0..partitions-1 across all workers: slot i owns partition i.
    const prefix = etcdPartitionPrefix(this.options.queue.name, slot);
    const text = await this.call(
      slot,
      '/v3/kv/range',
      JSON.stringify({ key: b64(prefix), range_end: b64(prefixRangeEnd(prefix)), limit: this.options.batchSize }),
    );
    const kvs = (JSON.parse(text) as { kvs?: { key: string; value?: string }[] }).kvs ?? [];
    if (kvs.length === 0) {
      await delay(emptyReceivePauseMs, undefined, { signal: this.aborter.signal }).catch(() => undefined);
      return { count: 0, sentAtMicros: [] };
    }
    if (kvs.length === 1) await this.call(slot, '/v3/kv/deleterange', JSON.stringify({ key: kvs[0]?.key }));
    else
      await this.call(
        slot,
        '/v3/kv/txn',
        JSON.stringify({ success: kvs.map((kv) => ({ request_delete_range: { key: kv.key } })) }),
      );
    const sentAtMicros: number[] = [];
    for (const kv of kvs) {
      const sentAt = readTimestampMicros(Buffer.from((kv.value ?? '').slice(0, 24), 'base64'));
      if (sentAt !== null) sentAtMicros.push(sentAt);
    }
    return { count: kvs.length, sentAtMicros };
  }

  interrupt(): void {
    this.aborter.abort();
  }

  async close(): Promise<void> {
    await Promise.all(this.pools.map((pool) => pool.destroy()));
  }
}

/** Removes every key of a cell. */
export async function deleteEtcdPrefix(endpoint: string, queue: string): Promise<void> {
  const pool = new Pool(endpoint, { connections: 1 });
  try {
    const prefix = `${queue}/`;
    const response = await pool.request({
      path: '/v3/kv/deleterange',
      method: 'POST',
      body: JSON.stringify({ key: b64(prefix), range_end: b64(prefixRangeEnd(prefix)) }),
    });
    const text = await response.body.text();
    if (response.statusCode !== 200)
      throw new LoadOperationError('deleterange', `HTTP ${response.statusCode}: ${text.slice(0, 300)}`);
  } finally {
    await pool.destroy();
  }
}
