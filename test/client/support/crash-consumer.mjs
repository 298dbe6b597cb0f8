// A consumer process for the crash test: it consumes with the built client library and, when its
// handler starts, prints one JSON line and then works forever, until the test kills it (SIGKILL).
// Usage: node crash-consumer.mjs ENDPOINT QUEUE_URL VISIBILITY_TIMEOUT_SECONDS
import { SQSClient } from '@aws-sdk/client-sqs';
import { consume } from '../../../dist/src/client/index.js';

const [endpoint, queueUrl, visibilityTimeoutSeconds] = process.argv.slice(2);
const client = new SQSClient({
  endpoint,
  region: 'us-east-1',
  credentials: { accessKeyId: 'AKIDCRASH', secretAccessKey: 'secret' },
});
const stop = new AbortController();

await consume({
  queueUrl,
  client,
  signal: stop.signal,
  handlerIsIdempotent: true,
  visibilityTimeoutSeconds: Number(visibilityTimeoutSeconds),
  handler: async (delivery) => {
    process.stdout.write(
      `${JSON.stringify({ started: delivery.message.messageId, receiveCount: delivery.receiveCount, body: delivery.message.body })}\n`,
    );
    // Busy with the message until killed: no lease is ever released by this process.
    await new Promise(() => {});
  },
});
