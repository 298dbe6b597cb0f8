/** Drains a queue of the queue layer: `consumers` loops of ReceiveMessage(10) + DeleteMessageBatch until a receive comes back empty (or `limit` messages were consumed). */
import type { QueueService } from '../src/queue/queue-service.js';

export async function drainQueue(
  service: QueueService,
  queue: string,
  consumers: number,
  limit = Number.POSITIVE_INFINITY,
): Promise<number> {
  let received = 0;
  await Promise.all(
    Array.from({ length: consumers }, async () => {
      while (received < limit) {
        const messages = await service.receiveMessages(queue, {
          maxMessages: 10,
          waitTimeSeconds: 0,
          visibilityTimeoutSeconds: 60,
        });
        if (messages.length === 0) return;
        received += messages.length;
        await service.deleteMessages(
          queue,
          messages.map((m, k) => ({ entryId: `d${k}`, receiptHandle: m.receiptHandle })),
        );
      }
    }),
  );
  return received;
}
