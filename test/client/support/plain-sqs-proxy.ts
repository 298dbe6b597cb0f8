import { createServer, type IncomingMessage, type Server } from 'node:http';
import { freePort } from '../../support/ports.js';

/**
 * A loopback proxy in front of raftq that behaves like a plain SQS for raftq's extensions: it
 * answers any X-Amz-Target naming one with the 400 UnknownOperationException that AWS's JSON
 * endpoint gives an action it does not know, and forwards everything else untouched. It counts the
 * extension calls it refused, so a test can see the client detect the gap once and remember it.
 */
export interface PlainSqsProxy {
  readonly endpoint: string;
  readonly refusedExtensionCalls: number;
  close(): Promise<void>;
}

const extensionTargets = new Set(['AmazonSQS.MoveMessageToDeadLetterQueue']);

export async function startPlainSqsProxy(upstream: string): Promise<PlainSqsProxy> {
  let refused = 0;
  const server: Server = createServer((req, res) => {
    // A client that goes away (an aborted long poll) takes its upstream request with it, as it
    // would if it had been connected to raftq directly.
    const upstreamAbort = new AbortController();
    res.on('close', () => upstreamAbort.abort());
    void readBody(req)
      .then(async (body) => {
        const target = req.headers['x-amz-target'];
        if (typeof target === 'string' && extensionTargets.has(target)) {
          refused++;
          res.writeHead(400, {
            'content-type': 'application/x-amz-json-1.0',
            'x-amzn-query-error': 'InvalidAction;Sender',
          });
          res.end(JSON.stringify({ __type: 'com.amazon.coral.service#UnknownOperationException', message: null }));
          return;
        }
        const headers: Record<string, string> = {};
        for (const [name, value] of Object.entries(req.headers)) {
          if (typeof value === 'string' && name !== 'host' && name !== 'connection' && name !== 'content-length')
            headers[name] = value;
        }
        const answer = await fetch(`${upstream}${req.url ?? '/'}`, {
          method: req.method ?? 'POST',
          headers,
          signal: upstreamAbort.signal,
          ...(body.length > 0 ? { body } : {}),
        });
        const answerHeaders: Record<string, string> = {};
        answer.headers.forEach((value, name) => {
          if (
            name !== 'content-length' &&
            name !== 'transfer-encoding' &&
            name !== 'connection' &&
            name !== 'content-encoding'
          )
            answerHeaders[name] = value;
        });
        const answerBody = Buffer.from(await answer.arrayBuffer());
        res.writeHead(answer.status, { ...answerHeaders, 'content-length': String(answerBody.length) });
        res.end(answerBody);
      })
      .catch((error: unknown) => {
        if (res.headersSent || res.destroyed) return;
        res.writeHead(502);
        res.end(String(error));
      });
  });
  const port = await freePort();
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  return {
    endpoint: `http://127.0.0.1:${port}`,
    get refusedExtensionCalls() {
      return refused;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function readBody(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}
