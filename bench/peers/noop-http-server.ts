// A node:http server that does no work: the ceiling of what one Node.js process serves on this
// machine. It reads each request body and answers with a canned SQS JSON response, so the bench
// drives it with exactly the requests it sends raftq: ReceiveMessage gets MaxNumberOfMessages
// canned messages of the body size the bench asks for (header x-bench-body-bytes), everything else
// an empty object.
//   node dist/bench/peers/noop-http-server.js PORT
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';

const port = Number(process.argv[2]);
if (!Number.isInteger(port) || port <= 0) {
  process.stderr.write('usage: noop-http-server PORT\n');
  process.exit(2);
}

const emptyBody = Buffer.from('{}');
/** Canned receive responses by (count, body size): built once, answered many times. */
const cannedReceives = new Map<string, Buffer>();

function cannedReceive(count: number, bodyBytes: number): Buffer {
  const key = `${count}:${bodyBytes}`;
  let canned = cannedReceives.get(key);
  if (canned === undefined) {
    const messages = Array.from({ length: count }, (_, i) => ({
      MessageId: `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`,
      ReceiptHandle: `noop-${i}`,
      MD5OfBody: '00000000000000000000000000000000',
      Body: 'x'.repeat(bodyBytes),
    }));
    canned = Buffer.from(JSON.stringify({ Messages: messages }));
    cannedReceives.set(key, canned);
  }
  return canned;
}

function answer(req: IncomingMessage, res: ServerResponse, body: Buffer): void {
  let response: Buffer = emptyBody;
  if (req.headers['x-amz-target'] === 'AmazonSQS.ReceiveMessage') {
    const count = /"MaxNumberOfMessages":(\d+)/.exec(body.toString('latin1'))?.[1];
    const bodyBytes = Number(req.headers['x-bench-body-bytes'] ?? 0);
    response = cannedReceive(Number(count ?? 1), Number.isInteger(bodyBytes) ? bodyBytes : 0);
  }
  res.writeHead(200, { 'content-type': 'application/x-amz-json-1.0', 'content-length': response.length });
  res.end(response);
}

const server = createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (chunk: Buffer) => chunks.push(chunk));
  req.on('end', () => answer(req, res, Buffer.concat(chunks)));
});
server.keepAliveTimeout = 60_000;
server.listen(port, '127.0.0.1', () => process.stdout.write(`listening on 127.0.0.1:${port}\n`));
process.on('SIGTERM', () => server.close(() => process.exit(0)));
