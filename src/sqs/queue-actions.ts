import { sqsLimits } from '../base/limits.js';
import {
  compact,
  optionalIntInRange,
  optionalString,
  queueNameOf,
  requireString,
  stringList,
  stringMap,
  type ActionHandler,
} from './action-context.js';
import { SqsApiError } from './errors.js';
import { queueNameRule, validateQueueName } from './queue-url.js';
import type { ModelStructure } from './service-model.js';

/**
 * The queue-level actions: lifecycle, attributes, tags, permissions, dead-letter sources and
 * message move tasks. Each decodes its parameters, calls the queue layer once, and shapes the
 * output; attribute semantics (names, ranges, defaults) are the queue layer's.
 */

const listResultsRange = {
  min: 1,
  max: sqsLimits.listQueuesResultsMax.value,
  reason: `MaxResults must be an integer between 1 and ${sqsLimits.listQueuesResultsMax.value}.`,
};

export const createQueue: ActionHandler = async (ctx, input) => {
  const name = validateQueueName(optionalString(input, 'QueueName'));
  const attributes = stringMap(input, 'Attributes');
  // Without FifoQueue=true AWS creates a standard queue, whose name may not end in .fifo.
  if (name.endsWith('.fifo') && (attributes['FifoQueue'] ?? 'false').toLowerCase() === 'false')
    throw new SqsApiError('InvalidParameterValue', queueNameRule);
  const created = await ctx.queueService.createQueue({ name, attributes, tags: stringMap(input, 'tags') });
  return { QueueUrl: ctx.queueUrl(created.name) };
};

export const getQueueUrl: ActionHandler = async (ctx, input) => {
  const name = requireString(input, 'QueueName');
  const found = await ctx.queueService.getQueueName(name);
  return { QueueUrl: ctx.queueUrl(found.name) };
};

export const deleteQueue: ActionHandler = async (ctx, input) => {
  await ctx.queueService.deleteQueue(queueNameOf(input));
  return {};
};

export const listQueues: ActionHandler = async (ctx, input) => {
  const maxResults = optionalIntInRange(input, 'MaxResults', listResultsRange);
  const nextToken = optionalString(input, 'NextToken');
  const prefix = optionalString(input, 'QueueNamePrefix');
  const page = await ctx.queueService.listQueues({
    ...(prefix !== undefined && prefix !== '' ? { prefix } : {}),
    ...(maxResults !== undefined ? { maxResults } : {}),
    ...(nextToken !== undefined && nextToken !== '' ? { nextToken } : {}),
  });
  return compact({
    QueueUrls: page.names.length > 0 ? page.names.map((n) => ctx.queueUrl(n)) : undefined,
    NextToken: page.nextToken,
  });
};

export const getQueueAttributes: ActionHandler = async (ctx, input) => {
  const attributes = await ctx.queueService.getQueueAttributes(queueNameOf(input), stringList(input, 'AttributeNames'));
  return Object.keys(attributes).length > 0 ? { Attributes: attributes } : {};
};

export const setQueueAttributes: ActionHandler = async (ctx, input) => {
  const name = queueNameOf(input);
  if (input['Attributes'] === undefined)
    throw new SqsApiError('MissingParameter', 'The request must contain the parameter Attribute.N.Name.');
  await ctx.queueService.setQueueAttributes(name, stringMap(input, 'Attributes'));
  return {};
};

export const purgeQueue: ActionHandler = async (ctx, input) => {
  await ctx.queueService.purgeQueue(queueNameOf(input));
  return {};
};

export const tagQueue: ActionHandler = async (ctx, input) => {
  const name = queueNameOf(input);
  const tags = stringMap(input, 'Tags');
  if (Object.keys(tags).length === 0)
    throw new SqsApiError('MissingParameter', 'The request must contain the parameter Tags.');
  await ctx.queueService.tagQueue(name, tags);
  return {};
};

export const untagQueue: ActionHandler = async (ctx, input) => {
  const name = queueNameOf(input);
  const tagKeys = stringList(input, 'TagKeys');
  if (tagKeys.length === 0)
    throw new SqsApiError('MissingParameter', 'The request must contain the parameter TagKeys.');
  await ctx.queueService.untagQueue(name, tagKeys);
  return {};
};

export const listQueueTags: ActionHandler = async (ctx, input) => {
  const tags = await ctx.queueService.listQueueTags(queueNameOf(input));
  return Object.keys(tags).length > 0 ? { Tags: tags } : {};
};

export const addPermission: ActionHandler = async (ctx, input) => {
  const name = queueNameOf(input);
  const label = requireString(input, 'Label');
  const accountIds = stringList(input, 'AWSAccountIds');
  const actions = stringList(input, 'Actions');
  if (accountIds.length === 0)
    throw new SqsApiError('MissingParameter', 'The request must contain the parameter AWSAccountId.');
  if (actions.length === 0)
    throw new SqsApiError('MissingParameter', 'The request must contain the parameter ActionName.');
  validatePermissionLabel(label);
  const knownActions = new Set(ctx.model.operationNames());
  for (const action of actions) {
    if (action !== '*' && !knownActions.has(action)) {
      throw new SqsApiError(
        'InvalidParameterValue',
        `Value SQS:${action.slice(0, 128)} for parameter ActionName is invalid. Reason: Only the name of an SQS action or * may be granted.`,
      );
    }
  }
  await ctx.queueService.addPermission(name, { label, accountIds, actions });
  return {};
};

const permissionLabelPattern = /^[A-Za-z0-9_-]+$/;

/** AddPermission's Label: 1-80 alphanumeric characters, hyphens and underscores, as AWS documents. */
function validatePermissionLabel(label: string): void {
  const max = sqsLimits.permissionLabelLengthMax.value;
  if (label.length > max || !permissionLabelPattern.test(label)) {
    throw new SqsApiError(
      'InvalidParameterValue',
      `Value ${label.slice(0, 128)} for parameter Label is invalid. Reason: Can only include alphanumeric characters, hyphens, or underscores. 1 to ${max} in length.`,
    );
  }
}

export const removePermission: ActionHandler = async (ctx, input) => {
  await ctx.queueService.removePermission(queueNameOf(input), requireString(input, 'Label'));
  return {};
};

export const listDeadLetterSourceQueues: ActionHandler = async (ctx, input) => {
  const name = queueNameOf(input);
  const maxResults = optionalIntInRange(input, 'MaxResults', listResultsRange);
  const nextToken = optionalString(input, 'NextToken');
  const page = await ctx.queueService.listDeadLetterSourceQueues(name, {
    ...(maxResults !== undefined ? { maxResults } : {}),
    ...(nextToken !== undefined && nextToken !== '' ? { nextToken } : {}),
  });
  // queueUrls is a required member of the result: present even when empty.
  return compact({ queueUrls: page.names.map((n) => ctx.queueUrl(n)), NextToken: page.nextToken });
};

export const startMessageMoveTask: ActionHandler = async (ctx, input) => {
  const sourceArn = requireString(input, 'SourceArn');
  const destinationArn = optionalString(input, 'DestinationArn');
  const rateMax = sqsLimits.moveTaskMessagesPerSecondMax.value;
  const maxNumberOfMessagesPerSecond = optionalIntInRange(input, 'MaxNumberOfMessagesPerSecond', {
    min: 1,
    max: rateMax,
    reason: `MaxNumberOfMessagesPerSecond must be between 1 and ${rateMax}.`,
  });
  const started = await ctx.queueService.startMessageMoveTask({
    sourceArn,
    ...(destinationArn !== undefined && destinationArn !== '' ? { destinationArn } : {}),
    ...(maxNumberOfMessagesPerSecond !== undefined ? { maxNumberOfMessagesPerSecond } : {}),
  });
  return { TaskHandle: started.taskHandle };
};

export const listMessageMoveTasks: ActionHandler = async (ctx, input) => {
  const sourceArn = requireString(input, 'SourceArn');
  const maxResults = optionalIntInRange(input, 'MaxResults', {
    min: 1,
    max: 10,
    reason: 'MaxResults must be between 1 and 10.',
  });
  const tasks = await ctx.queueService.listMessageMoveTasks({
    sourceArn,
    ...(maxResults !== undefined ? { maxResults } : {}),
  });
  const results: ModelStructure[] = tasks.map((task) =>
    compact({
      TaskHandle: task.status === 'RUNNING' ? task.taskHandle : undefined,
      Status: task.status,
      SourceArn: task.sourceArn,
      DestinationArn: task.destinationArn,
      MaxNumberOfMessagesPerSecond: task.maxNumberOfMessagesPerSecond,
      ApproximateNumberOfMessagesMoved: task.approximateNumberOfMessagesMoved,
      ApproximateNumberOfMessagesToMove: task.approximateNumberOfMessagesToMove,
      FailureReason: task.failureReason,
      StartedTimestamp: task.startedTimestampMs,
    }),
  );
  return results.length > 0 ? { Results: results } : {};
};

export const cancelMessageMoveTask: ActionHandler = async (ctx, input) => {
  const cancelled = await ctx.queueService.cancelMessageMoveTask(requireString(input, 'TaskHandle'));
  return { ApproximateNumberOfMessagesMoved: cancelled.approximateNumberOfMessagesMoved };
};
