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
