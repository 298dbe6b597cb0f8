import type { Model } from './model.js';

/**
 * Queue metadata as a register per queue name: absent, or present with the value of one attribute
 * (the workload uses VisibilityTimeout, an integer it chooses). The operations are the SQS calls
 * that read or write it: CreateQueue, DeleteQueue, SetQueueAttributes, GetQueueAttributes,
 * GetQueueUrl, and ListQueues with the queue's own name as prefix (no other name starts with it),
 * which reads whether the queue exists.
 */
export type MetadataInput =
  | { readonly op: 'create'; readonly queue: string; readonly value: number }
  | { readonly op: 'delete'; readonly queue: string }
  | { readonly op: 'set'; readonly queue: string; readonly value: number }
  | { readonly op: 'get'; readonly queue: string }
  | { readonly op: 'get-url'; readonly queue: string }
  | { readonly op: 'list'; readonly queue: string };

/**
 * What a call answered. SQS errors that are answers about the register (the queue does not exist,
 * it exists with other attributes) are outputs, not failures: they say something about the state.
 */
export type MetadataOutput =
  | { readonly kind: 'ok' }
  | { readonly kind: 'value'; readonly value: number }
  | { readonly kind: 'does-not-exist' }
  | { readonly kind: 'already-exists' }
  /** ListQueues: the names listed. */
  | { readonly kind: 'listed'; readonly names: readonly string[] };

/** null: no such queue. */
export type MetadataState = number | null;

/**
 * CreateQueue on an existing queue returns its URL when the given attributes match and
 * QueueAlreadyExists when they differ, as in AWS.
 */
export const queueMetadataModel: Model<MetadataState, MetadataInput, MetadataOutput> = {
  init: () => null,
  partitionKey: (input) => input.queue,
  hashState: (state) => (state === null ? '-' : String(state)),
  step(state, input, output) {
    switch (input.op) {
      case 'create': {
        if (state === null || state === input.value)
          return output === undefined || output.kind === 'ok' ? input.value : undefined;
        return output === undefined || output.kind === 'already-exists' ? state : undefined;
      }
      case 'delete':
        if (state === null) return output === undefined || output.kind === 'does-not-exist' ? null : undefined;
        return output === undefined || output.kind === 'ok' ? null : undefined;
      case 'set':
        if (state === null) return output === undefined || output.kind === 'does-not-exist' ? null : undefined;
        return output === undefined || output.kind === 'ok' ? input.value : undefined;
      case 'get':
        if (output === undefined) return state;
        if (state === null) return output.kind === 'does-not-exist' ? null : undefined;
        return output.kind === 'value' && output.value === state ? state : undefined;
      case 'get-url':
        if (output === undefined) return state;
        return output.kind === (state === null ? 'does-not-exist' : 'ok') ? state : undefined;
      case 'list': {
        if (output === undefined) return state;
        if (output.kind !== 'listed') return undefined;
        const isListed = output.names.length === 1 && output.names[0] === input.queue;
        return (state === null ? output.names.length === 0 : isListed) ? state : undefined;
      }
    }
  },
  describe(input, output) {
    const args = 'value' in input ? `${input.op}(${input.queue}, ${input.value})` : `${input.op}(${input.queue})`;
    if (output === undefined) return `${args} -> ?`;
    if (output.kind === 'listed') return `${args} -> [${output.names.join(', ')}]`;
    return `${args} -> ${output.kind === 'value' ? output.value : output.kind}`;
  },
};
