/**
 * deleteDeadLetter(): removes one dead letter for good, once it has been looked at and judged not
 * worth replaying.
 */
import { DeleteMessageCommand } from '@aws-sdk/client-sqs';
import { scanDeadLetterQueue } from './dead-letter-scan.js';
import { isFromSource, locateDeadLetterQueue, withClient } from './dead-letters.js';
import { DeadLetterNotFoundError } from './errors.js';
import type { DeadLetterTarget } from './replay-dead-letter.js';

export async function deleteDeadLetter(options: DeadLetterTarget): Promise<void> {
  await withClient(options.client, async (client) => {
    const { source, deadLetterQueueUrl } = await locateDeadLetterQueue(client, options.queueUrl);
    const scan = await scanDeadLetterQueue(client, deadLetterQueueUrl, {
      take: (m) => m.MessageId === options.messageId && isFromSource(m, source),
    });
    const [message] = scan.taken;
    if (message === undefined)
      throw new DeadLetterNotFoundError(options.queueUrl, options.messageId, scan.scannedCount);
    await client.send(
      new DeleteMessageCommand({ QueueUrl: deadLetterQueueUrl, ReceiptHandle: message.ReceiptHandle ?? '' }),
    );
  });
}
