/**
 * GetQueueAttributes, SetQueueAttributes, TagQueue, UntagQueue, ListQueueTags, AddPermission and
 * RemovePermission: read-modify-write of the meta row under the txn retry loop.
 */
import type { ReadView, TxnWrite } from '../storage/txn.js';
import { InvalidAttributeNameError, InvalidParameterValueError } from './errors.js';
import { queueKeys } from './layout/key-layout.js';
import { countMessages } from './message-counts.js';
import type { PermissionGrant } from './queue-api.js';
import { queueAttributeTable, type QueueFacts } from './queue-attributes.js';
import { canonicalAttributeValue, isKnownAttributeName, mergeAttributes } from './queue-config.js';
import type { QueueContext } from './queue-context.js';
import { encodeQueueMeta, type QueueMeta, type QueueMetaRecord } from './layout/queue-meta.js';
import { deadLetterSourceWrites, requireRedriveTarget } from './queue-lifecycle.js';
import { validateTags } from './queue-tags.js';

function recordOf(meta: QueueMeta): QueueMetaRecord {
  const { config: _config, ...record } = meta;
  return record;
}

/** Read-modify-write of one queue's meta row. `change` returns the new record, or undefined for no change. */
async function updateMeta(
  ctx: QueueContext,
  operation: string,
  name: string,
  change: (
    meta: QueueMeta,
    nowMs: number,
    view: ReadView,
  ) => Promise<{ record: QueueMetaRecord; extraReads?: Uint8Array[]; extraWrites?: TxnWrite[] } | undefined>,
): Promise<void> {
  await ctx.runner.run(operation, async ({ view, nowMs }) => {
    const queue = await ctx.loadQueue(view, name);
    const changed = await change(queue.meta, nowMs, view);
    if (changed === undefined) return { readKeys: queue.readKeys, writes: [], result: undefined };
    return {
      readKeys: [...queue.readKeys, ...(changed.extraReads ?? [])],
      writes: [
        { kind: 'put', key: queueKeys.meta(name), value: encodeQueueMeta(changed.record) },
        ...(changed.extraWrites ?? []),
      ],
      result: undefined,
    };
  });
}

export async function getQueueAttributes(
  ctx: QueueContext,
  name: string,
  attributeNames: readonly string[],
): Promise<Record<string, string>> {
  const wanted = new Set<string>();
  for (const attributeName of attributeNames) {
    if (attributeName === 'All') {
      for (const spec of queueAttributeTable) wanted.add(spec.name);
    } else if (isKnownAttributeName(attributeName)) {
      wanted.add(attributeName);
    } else {
      throw new InvalidAttributeNameError(attributeName, 'unknown attribute');
    }
  }
  return ctx.runner.read(async (view, nowMs) => {
    const queue = await ctx.loadQueue(view, name);
    const { meta } = queue;
    const needsCounts = queueAttributeTable.some(
      (spec) => spec.access === 'readOnly' && spec.needsCounts === true && wanted.has(spec.name),
    );
    const counts = needsCounts
      ? await countMessages(view, queue.keys, meta.partitionCount, nowMs, meta.config.messageRetentionSeconds)
      : undefined;
    const facts: QueueFacts = {
      createdAtMs: meta.createdAtMs,
      lastModifiedAtMs: meta.lastModifiedAtMs,
      queueArn: ctx.queueArn(name),
      ...(counts === undefined ? {} : { counts }),
    };
    const result: Record<string, string> = {};
    for (const spec of queueAttributeTable) {
      if (!wanted.has(spec.name)) continue;
      const value = spec.access === 'readOnly' ? spec.render(facts) : meta.attributes[spec.name];
      if (value !== undefined) result[spec.name] = value;
    }
    return result;
  });
}

export async function setQueueAttributes(
  ctx: QueueContext,
  name: string,
  attributes: Readonly<Record<string, string>>,
): Promise<void> {
  await updateMeta(ctx, 'SetQueueAttributes', name, async (meta, nowMs, view) => {
    const canonical: Record<string, string> = {};
    for (const [attributeName, value] of Object.entries(attributes)) {
      canonical[attributeName] = canonicalAttributeValue(attributeName, value, {
        isFifo: meta.config.isFifo,
        phase: 'set',
      });
    }
    const merged = mergeAttributes(meta.attributes, canonical);
    const redriveBefore = meta.attributes['RedrivePolicy'];
    const redriveAfter = merged['RedrivePolicy'];
    const extraReads =
      redriveAfter !== undefined && redriveAfter !== redriveBefore
        ? await requireRedriveTarget(ctx, view, { name, isFifo: meta.config.isFifo }, redriveAfter)
        : [];
    return {
      record: { ...recordOf(meta), attributes: merged, lastModifiedAtMs: nowMs },
      extraReads,
      extraWrites: deadLetterSourceWrites(name, redriveBefore, redriveAfter),
    };
  });
}

export async function tagQueue(ctx: QueueContext, name: string, tags: Readonly<Record<string, string>>): Promise<void> {
  await updateMeta(ctx, 'TagQueue', name, async (meta) => ({
    record: { ...recordOf(meta), tags: validateTags(tags, meta.tags) },
  }));
}

export async function untagQueue(ctx: QueueContext, name: string, tagKeys: readonly string[]): Promise<void> {
  await updateMeta(ctx, 'UntagQueue', name, async (meta) => {
    const tags = { ...meta.tags };
    for (const key of tagKeys) delete tags[key];
    return { record: { ...recordOf(meta), tags } };
  });
}

export async function listQueueTags(ctx: QueueContext, name: string): Promise<Record<string, string>> {
  return ctx.runner.read(async (view) => ({ ...(await ctx.loadQueue(view, name)).meta.tags }));
}

interface PolicyStatement {
  Sid: string;
  Effect: 'Allow';
  Principal: { AWS: string[] };
  Action: string[];
  Resource: string;
}

interface PolicyDocument {
  Version: string;
  Id: string;
  Statement: PolicyStatement[];
}

function readPolicy(ctx: QueueContext, meta: QueueMeta): PolicyDocument {
  const text = meta.attributes['Policy'];
  const empty: PolicyDocument = {
    Version: '2012-10-17',
    Id: `${ctx.queueArn(meta.name)}/SQSDefaultPolicy`,
    Statement: [],
  };
  if (text === undefined) return empty;
  const parsed = JSON.parse(text) as Partial<PolicyDocument>;
  return { ...empty, ...parsed, Statement: Array.isArray(parsed.Statement) ? parsed.Statement : [] };
}

export async function addPermission(ctx: QueueContext, name: string, grant: PermissionGrant): Promise<void> {
  await updateMeta(ctx, 'AddPermission', name, async (meta, nowMs) => {
    const policy = readPolicy(ctx, meta);
    if (policy.Statement.some((s) => s.Sid === grant.label)) {
      throw new InvalidParameterValueError('Label', `a permission labelled ${grant.label} already exists`);
    }
    policy.Statement.push({
      Sid: grant.label,
      Effect: 'Allow',
      Principal: { AWS: grant.accountIds.map((id) => `arn:aws:iam::${id}:root`) },
      Action: grant.actions.map((action) => (action === '*' ? 'SQS:*' : `SQS:${action}`)),
      Resource: ctx.queueArn(name),
    });
    return {
      record: {
        ...recordOf(meta),
        attributes: { ...meta.attributes, Policy: JSON.stringify(policy) },
        lastModifiedAtMs: nowMs,
      },
    };
  });
}

export async function removePermission(ctx: QueueContext, name: string, label: string): Promise<void> {
  await updateMeta(ctx, 'RemovePermission', name, async (meta, nowMs) => {
    const policy = readPolicy(ctx, meta);
    const remaining = policy.Statement.filter((s) => s.Sid !== label);
    if (remaining.length === policy.Statement.length) {
      throw new InvalidParameterValueError('Label', `no permission labelled ${label} exists`);
    }
    const attributes = { ...meta.attributes };
    if (remaining.length === 0) delete attributes['Policy'];
    else attributes['Policy'] = JSON.stringify({ ...policy, Statement: remaining });
    return { record: { ...recordOf(meta), attributes, lastModifiedAtMs: nowMs } };
  });
}
