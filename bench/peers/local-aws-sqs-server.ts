// Runs local-aws-sqs (an in-memory, single-process SQS emulator) on loopback: the bench's
// reference for the cost of the SQS protocol path with no durability at all.
//   node dist/bench/peers/local-aws-sqs-server.js PORT
import { createSqsServer } from 'local-aws-sqs';

const port = Number(process.argv[2]);
if (!Number.isInteger(port) || port <= 0) {
  process.stderr.write('usage: local-aws-sqs-server PORT\n');
  process.exit(2);
}
const server = await createSqsServer({
  port,
  hostname: '127.0.0.1',
  // The bench deletes and recreates queues between workloads; AWS's 60 s wait would stall it.
  emulateQueueCreationLifecycle: false,
});
server.keepAliveTimeout = 60_000;
process.stdout.write(`listening on 127.0.0.1:${port}\n`);
process.on('SIGTERM', () => server.close(() => process.exit(0)));
