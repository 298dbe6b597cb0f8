/**
 * Publishes orders to the `orders` queue, creating it (with its dead-letter queue) on first run.
 *
 *   npm run build && node dist/examples/producer.js [COUNT]
 *
 * The endpoint comes from RAFTQ_ENDPOINT (default: a local `npx raftq serve`). Against AWS, drop
 * `endpoint` and the credentials and let the SDK read its usual environment.
 */
import { CreateQueueCommand, GetQueueAttributesCommand, SQSClient } from '@aws-sdk/client-sqs';
// In your project: from 'raftq/client'.
import { createProducer } from '../src/client/index.js';

const endpoint = process.env['RAFTQ_ENDPOINT'] ?? 'http://127.0.0.1:9324';
const count = Number(process.argv[2] ?? '10');

const client = new SQSClient({
  endpoint,
  region: 'us-east-1',
  credentials: { accessKeyId: 'example', secretAccessKey: 'example' },
});

/** The queue and its dead-letter queue: after 5 failed deliveries a message is moved aside. */
async function ensureQueues(): Promise<string> {
  const dlq = await client.send(new CreateQueueCommand({ QueueName: 'orders-dlq' }));
  const { Attributes } = await client.send(
    new GetQueueAttributesCommand({ QueueUrl: dlq.QueueUrl, AttributeNames: ['QueueArn'] }),
  );
  const orders = await client.send(
    new CreateQueueCommand({
      QueueName: 'orders',
      Attributes: {
        VisibilityTimeout: '30',
        RedrivePolicy: JSON.stringify({ deadLetterTargetArn: Attributes?.['QueueArn'], maxReceiveCount: 5 }),
      },
    }),
  );
  return orders.QueueUrl as string;
}

const queueUrl = await ensureQueues();
const producer = createProducer({ queueUrl, client });
const sends: Array<Promise<unknown>> = [];
for (let i = 1; i <= count; i++) {
  // Every tenth order is malformed on purpose, to show where such a message ends up.
  const body =
    i % 10 === 0
      ? `{"orderId": ${i}, "lines": [`
      : JSON.stringify({ orderId: i, lines: [{ sku: 'tea', quantity: i }] });
  sends.push(producer.send({ body, messageAttributes: { source: { DataType: 'String', StringValue: 'example' } } }));
}
// send() calls made together leave in batches of up to 10; each resolves once SQS stored it.
await Promise.all(sends);
await producer.close();
client.destroy();
console.log(`published ${count} orders to ${queueUrl}`);
