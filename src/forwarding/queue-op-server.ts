/**
 * The leader's handler of forwarded queue operations: decodes each, runs it on this node's
 * QueueService against its freshest state, and encodes the answer. Errors are thrown and travel
 * back with their code, message and retryability (op-stream-server.ts). A long poll waits here,
 * with this node's waiters, until it has messages, its wait ends, or the follower cancels it.
 */
import type { OpHandler } from '../cluster/op-stream-server.js';
import type { QueueService } from '../queue/queue-service.js';
import {
  decodeChangeVisibilityArgs,
  decodeDeleteArgs,
  decodeReceiveArgs,
  decodeSendArgs,
  encodeHandleResult,
  encodeReceiveResult,
  encodeSendResult,
} from './queue-op-codec.js';
import { QueueOpKind } from './queue-op-kinds.js';

export function queueOpHandler(queueService: QueueService): OpHandler {
  return async (kind, args, options) => {
    switch (kind) {
      case QueueOpKind.sendMessages: {
        const { queue, entries, senderId, messageIds, idempotencyKey } = decodeSendArgs(args);
        // A send always comes with its ids and key (forwarding-queue-operations.ts); without them it could not be repeated safely.
        if (idempotencyKey === '' || messageIds.length !== entries.length)
          throw new Error('a forwarded send needs its message ids and idempotency key');
        return encodeSendResult(
          await queueService.sendMessages(queue, [...entries], { senderId, messageIds, idempotencyKey }),
        );
      }
      case QueueOpKind.receiveMessages: {
        const { queue, ...receive } = decodeReceiveArgs(args);
        // Only a receive may wait, so only it makes the call's signal (op-stream-server.ts).
        return encodeReceiveResult(await queueService.receiveMessages(queue, { ...receive, signal: options.signal }));
      }
      case QueueOpKind.deleteMessages: {
        const { queue, entries } = decodeDeleteArgs(args);
        return encodeHandleResult(await queueService.deleteMessages(queue, [...entries]));
      }
      case QueueOpKind.changeMessageVisibility: {
        const { queue, entries } = decodeChangeVisibilityArgs(args);
        return encodeHandleResult(await queueService.changeMessageVisibility(queue, [...entries]));
      }
      default:
        throw new Error(`unknown forwarded queue operation ${kind}`);
    }
  };
}
