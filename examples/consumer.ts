/**
 * Processes the orders that examples/producer.ts publishes, until SIGINT or SIGTERM, then lists
 * the dead letters with their causes.
 *
 *   npm run build && node dist/examples/consumer.js
 */
import { SQSClient } from '@aws-sdk/client-sqs';
// In your project: from 'raftq/client'.
import { consume, deadLetters, doNotRetry, type Delivery } from '../src/client/index.js';

const endpoint = process.env['RAFTQ_ENDPOINT'] ?? 'http://127.0.0.1:9324';
const queueUrl = process.env['ORDERS_QUEUE_URL'] ?? `${endpoint}/000000000000/orders`;

const client = new SQSClient({
  endpoint,
  region: 'us-east-1',
  credentials: { accessKeyId: 'example', secretAccessKey: 'example' },
});

interface Order {
  readonly orderId: number;
  readonly lines: ReadonlyArray<{ sku: string; quantity: number }>;
}

/** Records each order once, by id: a second delivery of the same order changes nothing. */
const fulfilled = new Set<number>();

async function handleOrder(delivery: Delivery): Promise<void> {
  let order: Order;
  try {
    order = JSON.parse(delivery.message.body) as Order;
  } catch (error) {
    // A payload that does not parse will not parse on the fifth attempt either.
    throw doNotRetry(error);
  }
  if (delivery.receiveCount > 1)
    console.log(`order ${order.orderId}: delivery ${delivery.receiveCount}, handled before or not`);
  fulfilled.add(order.orderId);
  console.log(`order ${order.orderId}: fulfilled`);
}

const stop = new AbortController();
process.once('SIGINT', () => stop.abort());
process.once('SIGTERM', () => stop.abort());

await consume({
  queueUrl,
  client,
  signal: stop.signal,
  handler: handleOrder,
  handlerIsIdempotent: true,
  parallelism: 4,
  visibilityTimeoutSeconds: 30,
  retryDelayMs: 1_000,
  retryDelayMsMax: 60_000,
  onError: (error, context) => {
    if (context.stage === 'handler')
      console.log(`message ${context.messageId}: failed (${error instanceof Error ? error.message : String(error)})`);
  },
});

for (const dead of await deadLetters({ queueUrl, client })) {
  console.log(
    `dead letter ${dead.messageId}: ${dead.cause.name}: ${dead.cause.message} (delivery ${dead.receiveCount})`,
  );
}
client.destroy();
console.log(`stopped after fulfilling ${fulfilled.size} orders`);
