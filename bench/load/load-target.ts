// Where a load generator sends its traffic, as plain data: it crosses from the coordinator to
// worker processes over IPC.

export type LoadTarget =
  | {
      readonly kind: 'sqs';
      /** Base URLs (http://127.0.0.1:PORT), one per node; client slots are spread over them. */
      readonly endpoints: readonly string[];
      /** The no-op server answers ReceiveMessage with canned messages of the size this header asks for. */
      readonly isNoop: boolean;
    }
  | { readonly kind: 'amqp'; readonly urls: readonly string[] }
  | { readonly kind: 'nats'; readonly servers: readonly string[] }
  | { readonly kind: 'etcd'; readonly endpoints: readonly string[] };

/** A queue (or stream, or key prefix) created for one cell and dropped after it. */
export interface QueueRef {
  readonly name: string;
  /** SQS queue URL; absent for the other protocols. */
  readonly url?: string;
}

/**
 * The same target narrowed to its `nodeNumber`th node (1-based; `--only-node`): every client slot
 * then talks to that node alone. On a raftq cluster this separates what serving clients costs a
 * node from what replicating costs the others (a follower's clients are forwarded to the leader).
 */
export function onlyNodeOf(target: LoadTarget, nodeNumber: number): LoadTarget {
  const pick = (list: readonly string[]): string[] => {
    const chosen = list[nodeNumber - 1];
    if (chosen === undefined) throw new Error(`--only-node ${nodeNumber}: this system has ${list.length} node(s)`);
    return [chosen];
  };
  switch (target.kind) {
    case 'sqs':
    case 'etcd':
      return { ...target, endpoints: pick(target.endpoints) };
    case 'amqp':
      return { ...target, urls: pick(target.urls) };
    case 'nats':
      return { ...target, servers: pick(target.servers) };
  }
}
