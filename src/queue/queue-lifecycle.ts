/**
 * CreateQueue, GetQueueUrl, DeleteQueue, PurgeQueue, ListQueues, ListDeadLetterSourceQueues.
 *
 * Purge and delete are O(1): they move the queue to a new generation (purge) or remove its meta
 * (delete), and write a tombstone for the superseded generation in the same transaction, so the
 * old rows become unreachable at once and the reaper clears them later (docs/TRAPS.md, traps 2, 6).
 */
import { Buffer } from 'node:buffer';
import { raftqLimits, sqsLimits } from '../base/limits.js';
import { keySuccessor } from '../storage/key-codec.js';
import type { KeyRange, ReadView, TxnWrite } from '../storage/txn.js';
import {
  InvalidAttributeValueError,
  InvalidParameterValueError,
  PurgeQueueInProgressError,
  QueueAlreadyExistsError,
  QueueDoesNotExistError,
} from './errors.js';
import { globalKeyParts, globalKeys, queueKeys } from './layout/key-layout.js';
import type { ListQueuesOptions, QueueNamePage } from './queue-api.js';
import { canonicalAttributeValue, defaultAttributes, mergeAttributes, parseQueueConfig } from './queue-config.js';
import type { QueueContext } from './queue-context.js';
import { encodeGeneration, encodeQueueMeta, type QueueMetaRecord } from './layout/queue-meta.js';
import { checkRedriveTarget } from './redrive-target.js';
import { parseQueueArn } from './redrive-policy.js';
import { validateTags } from './queue-tags.js';
import { encodeTombstone } from './layout/tombstone-row.js';

const presentMarker = Uint8Array.of(1);

/** Canonical values of the attributes a CreateQueue request gives, and the queue type they imply. */
function canonicalCreateAttributes(
  name: string,
  attributes: Readonly<Record<string, string>>,
): { isFifo: boolean; canonical: Record<string, string> } {
  const hasFifoName = name.endsWith('.fifo');
  const fifoGiven = attributes['FifoQueue'];
  const isFifo =
    fifoGiven === undefined
      ? hasFifoName
      : canonicalAttributeValue('FifoQueue', fifoGiven, { isFifo: true, phase: 'create' }) === 'true';
  if (isFifo !== hasFifoName) {
    throw new InvalidParameterValueError(
      'QueueName',
      isFifo ? 'the name of a FIFO queue must end with .fifo' : 'only a FIFO queue name may end with .fifo',
    );
  }
  const canonical: Record<string, string> = {};
  for (const [attributeName, value] of Object.entries(attributes)) {
    canonical[attributeName] = canonicalAttributeValue(attributeName, value, { isFifo, phase: 'create' });
  }
  return { isFifo, canonical };
}

/** Reads the target of a RedrivePolicy and throws if it cannot take this queue's messages. */
export async function requireRedriveTarget(
  ctx: QueueContext,
  view: ReadView,
  source: { name: string; isFifo: boolean },
  redrivePolicyText: string | undefined,
): Promise<Uint8Array[]> {
  if (redrivePolicyText === undefined) return [];
  const policy = parseQueueConfig({ RedrivePolicy: redrivePolicyText }).redrivePolicy;
  if (policy === undefined) return [];
  const check = await checkRedriveTarget(ctx, view, source, policy.deadLetterTargetArn);
  if (check.kind === 'refused') throw new InvalidAttributeValueError('RedrivePolicy', redrivePolicyText, check.reason);
  return [...check.target.readKeys];
}

/** The dlqsrc index rows to write when a queue's RedrivePolicy goes from `before` to `after`. */
export function deadLetterSourceWrites(
  sourceName: string,
  before: string | undefined,
  after: string | undefined,
): TxnWrite[] {
  const targetOf = (text: string | undefined) => {
    const policy = text === undefined ? undefined : parseQueueConfig({ RedrivePolicy: text }).redrivePolicy;
    return policy === undefined ? undefined : parseQueueArn(policy.deadLetterTargetArn)?.queueName;
  };
  const oldTarget = targetOf(before);
  const newTarget = targetOf(after);
  if (oldTarget === newTarget) return [];
  const writes: TxnWrite[] = [];
  if (oldTarget !== undefined) writes.push({ kind: 'delete', key: globalKeys.deadLetterSource(oldTarget, sourceName) });
  if (newTarget !== undefined)
    writes.push({ kind: 'put', key: globalKeys.deadLetterSource(newTarget, sourceName), value: presentMarker });
  return writes;
}

export async function createQueue(
  ctx: QueueContext,
  input: { name: string; attributes: Record<string, string>; tags: Record<string, string> },
): Promise<{ name: string }> {
  const { name } = input;
  const { isFifo, canonical } = canonicalCreateAttributes(name, input.attributes);
  const attributes = mergeAttributes(defaultAttributes({ isFifo }), canonical);
  validateTags(input.tags, {});
  return ctx.runner.run('CreateQueue', async ({ view, nowMs }) => {
    const existing = await ctx.maybeLoadQueue(view, name);
    if (existing !== undefined) {
      const current = existing.meta.attributes;
      for (const [attributeName, value] of Object.entries(canonical)) {
        if ((current[attributeName] ?? '') !== value) throw new QueueAlreadyExistsError(name, attributeName);
      }
      return { readKeys: existing.readKeys, writes: [], result: { name } };
    }
    const redriveReads = await requireRedriveTarget(ctx, view, { name, isFifo }, attributes['RedrivePolicy']);
    const lastGeneration = await readLastGeneration(view, name);
    const config = parseQueueConfig(attributes);
    const isHighThroughput =
      config.fifoThroughputLimit === 'perMessageGroupId' && config.deduplicationScope === 'messageGroup';
    const record: QueueMetaRecord = {
      name,
      generation: lastGeneration + 1,
      attributes,
      tags: { ...input.tags },
      createdAtMs: nowMs,
      lastModifiedAtMs: nowMs,
      partitionCount: isFifo && isHighThroughput ? raftqLimits.fifoPartitionsHighThroughput.value : 1,
    };
    const writes: TxnWrite[] = [
      { kind: 'put', key: queueKeys.meta(name), value: encodeQueueMeta(record) },
      { kind: 'put', key: queueKeys.generation(name), value: encodeGeneration(record.generation) },
      { kind: 'put', key: globalKeys.queueIndex(name), value: presentMarker },
      ...deadLetterSourceWrites(name, undefined, attributes['RedrivePolicy']),
    ];
    return { readKeys: [queueKeys.meta(name), queueKeys.generation(name), ...redriveReads], writes, result: { name } };
  });
}

async function readLastGeneration(view: ReadView, name: string): Promise<number> {
  const bytes = await view.get(queueKeys.generation(name));
  return bytes === undefined ? 0 : Number(new TextDecoder().decode(bytes));
}

export async function getQueueName(ctx: QueueContext, name: string): Promise<{ name: string }> {
  return ctx.runner.read(async (view) => {
    await ctx.loadQueue(view, name);
    return { name };
  });
}

export async function deleteQueue(ctx: QueueContext, name: string): Promise<void> {
  await ctx.runner.run('DeleteQueue', async ({ view, nowMs }) => {
    const queue = await ctx.loadQueue(view, name);
    const writes: TxnWrite[] = [
      { kind: 'delete', key: queueKeys.meta(name) },
      { kind: 'delete', key: globalKeys.queueIndex(name) },
      // The gen row stays: a queue created later under this name starts above every old generation.
      { kind: 'put', key: globalKeys.tombstone(name, queue.meta.generation), value: encodeTombstone(nowMs) },
      ...deadLetterSourceWrites(name, queue.meta.attributes['RedrivePolicy'], undefined),
    ];
    return { readKeys: queue.readKeys, writes, result: undefined };
  });
}

export async function purgeQueue(ctx: QueueContext, name: string): Promise<void> {
  await ctx.runner.run('PurgeQueue', async ({ view, nowMs }) => {
    const queue = await ctx.loadQueue(view, name);
    const { meta } = queue;
    const cooldownMs = sqsLimits.purgeCooldownMs.value;
    if (meta.lastPurgeAtMs !== undefined && nowMs < meta.lastPurgeAtMs + cooldownMs) {
      throw new PurgeQueueInProgressError(name, meta.lastPurgeAtMs, meta.lastPurgeAtMs + cooldownMs - nowMs);
    }
    const generation = queue.lastGeneration + 1;
    const { config: _config, ...record } = meta;
    const writes: TxnWrite[] = [
      {
        kind: 'put',
        key: queueKeys.meta(name),
        value: encodeQueueMeta({ ...record, generation, lastPurgeAtMs: nowMs }),
      },
      { kind: 'put', key: queueKeys.generation(name), value: encodeGeneration(generation) },
      { kind: 'put', key: globalKeys.tombstone(name, meta.generation), value: encodeTombstone(nowMs) },
    ];
    return { readKeys: queue.readKeys, writes, result: undefined };
  });
}

function encodeNextToken(lastName: string): string {
  return Buffer.from(lastName, 'utf8').toString('base64url');
}

function decodeNextToken(token: string): string {
  const name = Buffer.from(token, 'base64url').toString('utf8');
  if (token === '' || !/^[A-Za-z0-9_.-]{1,80}$/.test(name))
    throw new InvalidParameterValueError('NextToken', 'not a token this service issued');
  return name;
}

async function pageOfNames(
  view: ReadView,
  range: KeyRange,
  keyOfName: (name: string) => Uint8Array,
  nameOfKey: (key: Uint8Array) => string,
  options: { maxResults?: number; nextToken?: string },
): Promise<QueueNamePage> {
  const pageMax = sqsLimits.listQueuesResultsMax.value;
  const limit = Math.min(options.maxResults ?? pageMax, pageMax);
  let gte = range.gte;
  if (options.nextToken !== undefined) {
    const after = keySuccessor(keyOfName(decodeNextToken(options.nextToken)));
    if (Buffer.compare(after, gte) > 0) gte = after;
  }
  const rows = await view.scan({ gte, lt: range.lt }, { limit: limit + 1 });
  const names = rows.slice(0, limit).map((row) => nameOfKey(row.key));
  const last = names[names.length - 1];
  // Only a request that asked for pages (MaxResults) gets a NextToken, as in AWS.
  const hasMore = rows.length > limit && options.maxResults !== undefined && last !== undefined;
  return hasMore ? { names, nextToken: encodeNextToken(last) } : { names };
}

export async function listQueues(ctx: QueueContext, options: ListQueuesOptions): Promise<QueueNamePage> {
  return ctx.runner.read(async (view) => {
    const range = globalKeys.queueIndexNamePrefixRange(options.prefix ?? '');
    return pageOfNames(view, range, globalKeys.queueIndex, globalKeyParts.queueIndexName, options);
  });
}

export async function listDeadLetterSourceQueues(
  ctx: QueueContext,
  name: string,
  options: { maxResults?: number; nextToken?: string },
): Promise<QueueNamePage> {
  return ctx.runner.read(async (view) => {
    if ((await ctx.maybeLoadQueue(view, name)) === undefined) throw new QueueDoesNotExistError(name);
    return pageOfNames(
      view,
      globalKeys.deadLetterSourceRange(name),
      (source) => globalKeys.deadLetterSource(name, source),
      globalKeyParts.deadLetterSourceName,
      options,
    );
  });
}
