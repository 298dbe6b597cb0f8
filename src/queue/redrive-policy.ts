/**
 * RedrivePolicy and RedriveAllowPolicy: the JSON documents AWS stores as queue attributes.
 * Parsing here checks their shape; whether the named queues exist and match is checked against
 * state by the operations (at CreateQueue/SetQueueAttributes and again at move time).
 */
import { sqsLimits } from '../base/limits.js';
import { InvalidAttributeValueError } from './errors.js';

export interface RedrivePolicy {
  readonly deadLetterTargetArn: string;
  readonly maxReceiveCount: number;
}

export type RedrivePermission = 'allowAll' | 'denyAll' | 'byQueue';

export interface RedriveAllowPolicy {
  readonly redrivePermission: RedrivePermission;
  readonly sourceQueueArns?: readonly string[];
}

export interface QueueArnParts {
  readonly region: string;
  readonly accountId: string;
  readonly queueName: string;
}

const arnPattern = /^arn:aws[a-z-]*:sqs:([a-z0-9-]+):(\d{12}|[A-Za-z0-9_-]+):([A-Za-z0-9_-]{1,75}(?:\.fifo)?)$/;

export function parseQueueArn(arn: string): QueueArnParts | undefined {
  const match = arnPattern.exec(arn);
  if (match === null) return undefined;
  const [, region, accountId, queueName] = match;
  if (region === undefined || accountId === undefined || queueName === undefined) return undefined;
  return { region, accountId, queueName };
}

function parseJsonObject(attributeName: string, text: string): Record<string, unknown> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (cause) {
    throw new InvalidAttributeValueError(attributeName, text, 'must be a JSON object', { cause });
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw new InvalidAttributeValueError(attributeName, text, 'must be a JSON object');
  }
  return parsed as Record<string, unknown>;
}

export function parseRedrivePolicy(text: string): RedrivePolicy {
  const name = 'RedrivePolicy';
  const object = parseJsonObject(name, text);
  for (const key of Object.keys(object)) {
    if (key !== 'deadLetterTargetArn' && key !== 'maxReceiveCount') {
      throw new InvalidAttributeValueError(name, text, `unknown field ${key}`);
    }
  }
  const arn = object['deadLetterTargetArn'];
  if (typeof arn !== 'string' || parseQueueArn(arn) === undefined) {
    throw new InvalidAttributeValueError(name, text, 'deadLetterTargetArn must be a queue ARN');
  }
  const rawCount = object['maxReceiveCount'];
  const count = typeof rawCount === 'string' && /^\d{1,6}$/.test(rawCount) ? Number(rawCount) : rawCount;
  const countMax = sqsLimits.maxReceiveCountMax.value;
  if (typeof count !== 'number' || !Number.isInteger(count) || count < 1 || count > countMax) {
    throw new InvalidAttributeValueError(name, text, `maxReceiveCount must be an integer from 1 to ${countMax}`);
  }
  return { deadLetterTargetArn: arn, maxReceiveCount: count };
}

export function parseRedriveAllowPolicy(text: string): RedriveAllowPolicy {
  const name = 'RedriveAllowPolicy';
  const object = parseJsonObject(name, text);
  for (const key of Object.keys(object)) {
    if (key !== 'redrivePermission' && key !== 'sourceQueueArns')
      throw new InvalidAttributeValueError(name, text, `unknown field ${key}`);
  }
  const permission = object['redrivePermission'];
  if (permission !== 'allowAll' && permission !== 'denyAll' && permission !== 'byQueue') {
    throw new InvalidAttributeValueError(name, text, 'redrivePermission must be allowAll, denyAll or byQueue');
  }
  const arns = object['sourceQueueArns'];
  if (permission !== 'byQueue') {
    if (arns !== undefined)
      throw new InvalidAttributeValueError(name, text, 'sourceQueueArns is allowed only with byQueue');
    return { redrivePermission: permission };
  }
  const arnsMax = sqsLimits.redriveAllowSourceQueuesMax.value;
  if (!Array.isArray(arns) || arns.length < 1 || arns.length > arnsMax) {
    throw new InvalidAttributeValueError(name, text, `byQueue needs 1 to ${arnsMax} sourceQueueArns`);
  }
  for (const arn of arns) {
    if (typeof arn !== 'string' || parseQueueArn(arn) === undefined) {
      throw new InvalidAttributeValueError(name, text, 'sourceQueueArns must be queue ARNs');
    }
  }
  return { redrivePermission: permission, sourceQueueArns: arns as string[] };
}

/** Whether a dead-letter queue with this allow policy accepts messages from `sourceArn`. */
export function isRedriveAllowed(policy: RedriveAllowPolicy | undefined, sourceArn: string): boolean {
  if (policy === undefined) return true;
  switch (policy.redrivePermission) {
    case 'allowAll':
      return true;
    case 'denyAll':
      return false;
    case 'byQueue':
      return policy.sourceQueueArns?.includes(sourceArn) ?? false;
  }
}
