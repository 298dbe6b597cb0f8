/**
 * Whether a dead-letter queue can take a source queue's messages: it exists, it is of the same
 * type, it is not the source itself, and its RedriveAllowPolicy admits the source (docs/TRAPS.md, trap 9).
 * Checked when the policy is set and again at every move, since the target can be deleted and
 * recreated as another type in between.
 */
import type { ReadView } from '../storage/txn.js';
import type { LoadedQueue, QueueContext } from './queue-context.js';
import { isRedriveAllowed, parseQueueArn } from './redrive-policy.js';

export type RedriveTargetCheck =
  { readonly kind: 'ok'; readonly target: LoadedQueue } | { readonly kind: 'refused'; readonly reason: string };

export async function checkRedriveTarget(
  ctx: QueueContext,
  view: ReadView,
  source: { name: string; isFifo: boolean },
  deadLetterTargetArn: string,
): Promise<RedriveTargetCheck> {
  const arn = parseQueueArn(deadLetterTargetArn);
  if (arn === undefined) return { kind: 'refused', reason: 'deadLetterTargetArn is not a queue ARN' };
  if (arn.accountId !== ctx.accountId || arn.region !== ctx.region) {
    return { kind: 'refused', reason: 'the dead-letter queue must be in the same account and region' };
  }
  if (arn.queueName === source.name) return { kind: 'refused', reason: 'a queue cannot be its own dead-letter queue' };
  const target = await ctx.maybeLoadQueue(view, arn.queueName);
  if (target === undefined) return { kind: 'refused', reason: `the dead-letter queue ${arn.queueName} does not exist` };
  if (target.meta.config.isFifo !== source.isFifo) {
    return {
      kind: 'refused',
      reason: 'the dead-letter queue of a FIFO queue must be FIFO, and of a standard queue standard',
    };
  }
  if (!isRedriveAllowed(target.meta.config.redriveAllowPolicy, ctx.queueArn(source.name))) {
    return { kind: 'refused', reason: `the RedriveAllowPolicy of ${arn.queueName} does not admit this queue` };
  }
  return { kind: 'ok', target };
}
