import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { LazyCancellation } from '../base/cancellation.js';
import { SystemClock, type Clock } from '../base/clock.js';
import { raftqLimits } from '../base/limits.js';
import type { QueueOperations } from '../queue/queue-operations.js';
import { loadCredentialsFile } from './credentials-file.js';
import { awsErrors } from './errors.js';
import { encodeJsonError } from './json-protocol.js';
import { encodeXmlError } from './query-protocol.js';
import { defaultSqsServiceModel, type SqsServiceModel } from './service-model.js';
import { SigV4Verifier } from './sigv4-verifier.js';
import { SqsRequestHandler, type GatewayLogger } from './sqs-request-handler.js';
import type { SqsRequestObserver } from './request-observer.js';

/**
 * The SQS endpoint of a node: node:http with keep-alive, both AWS protocols on one port. The body
 * size limit is enforced before buffering (Content-Length first, then while streaming) with a 413
 * the client can read before the connection closes, and close() drains: it stops accepting, ends
 * long polls, waits for in-flight requests (bounded), then drops what is left.
 */

export interface SqsServerOptions {
  readonly host: string;
  readonly port: number;
  readonly queueService: QueueOperations;
  /** Turns SigV4 verification on; without it every caller is accepted (logged once at start). */
  readonly credentialsFile?: string;
  readonly logger: GatewayLogger;
  /** Account id in queue URLs and, without auth, the SenderId of messages. */
  readonly accountId?: string;
  readonly region?: string;
  readonly clock?: Clock;
  readonly model?: SqsServiceModel;
  /** PEM certificate and key: serve HTTPS instead of HTTP (queue URLs then say https). */
  readonly tls?: { readonly certPem: Buffer; readonly keyPem: Buffer };
  /** Told about every answered request: metrics and the access log. */
  readonly observer?: SqsRequestObserver;
}

export interface SqsServer {
  readonly port: number;
  close(): Promise<void>;
}

export const defaultAccountId = '000000000000';

export async function startSqsServer(options: SqsServerOptions): Promise<SqsServer> {
  const model = options.model ?? defaultSqsServiceModel();
  const accountId = options.accountId ?? defaultAccountId;
  const clock = options.clock ?? new SystemClock();
  let verifier: SigV4Verifier | undefined;
  if (options.credentialsFile !== undefined) {
    const credentials = loadCredentialsFile(options.credentialsFile);
    verifier = new SigV4Verifier(credentials, clock);
    options.logger.info(
      { credentialsFile: options.credentialsFile, accessKeys: credentials.size },
      'SQS gateway verifies SigV4 signatures',
    );
  } else {
    options.logger.warn(
      {},
      'SQS gateway accepts any caller: no --credentials-file, so SigV4 signatures are not verified',
    );
  }

  const inFlight = new Set<LazyCancellation>();
  const settled = new Set<Promise<void>>();
  let isClosing = false;
  const serverOptions = { keepAliveTimeout: 60_000, headersTimeout: 65_000, requestTimeout: 0 };
  // An https.Server has every http.Server method used here; only its constructor differs.
  const server: Server =
    options.tls === undefined
      ? createServer(serverOptions)
      : (createHttpsServer({
          ...serverOptions,
          cert: options.tls.certPem,
          key: options.tls.keyPem,
        }) as unknown as Server);
  const handlerRef: { current?: SqsRequestHandler } = {};

  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    const cancellation = new LazyCancellation();
    inFlight.add(cancellation);
    const done = serveRequest(req, res, cancellation, () => handlerRef.current, options.logger).finally(() => {
      inFlight.delete(cancellation);
      settled.delete(done);
    });
    settled.add(done);
  });
  server.on('clientError', (err, socket) => {
    if (socket.writable) socket.end('HTTP/1.1 400 Bad Request\r\nConnection: close\r\nContent-Length: 0\r\n\r\n');
    else socket.destroy(err);
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;
  handlerRef.current = new SqsRequestHandler({
    queueService: options.queueService,
    model,
    accountId,
    logger: options.logger,
    defaultHost: `${options.host}:${port}`,
    scheme: options.tls === undefined ? 'http' : 'https',
    ...(verifier !== undefined ? { verifier } : {}),
    ...(options.observer !== undefined ? { observer: options.observer } : {}),
  });
  options.logger.info({ host: options.host, port, accountId }, 'SQS gateway listening');

  return {
    port,
    async close() {
      if (isClosing) return;
      isClosing = true;
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      for (const cancellation of inFlight) cancellation.abort(new Error('server closing'));
      server.closeIdleConnections();
      await waitBounded(Promise.allSettled([...settled]), raftqLimits.gatewayDrainTimeoutMs.value);
      // Answered connections are idle now; only a request still stuck past the drain is cut.
      server.closeIdleConnections();
      if (!(await waitBounded(closed, 1_000))) {
        server.closeAllConnections();
        await closed;
      }
    },
  };
}

async function serveRequest(
  req: IncomingMessage,
  res: ServerResponse,
  cancellation: LazyCancellation,
  handler: () => SqsRequestHandler | undefined,
  logger: GatewayLogger,
): Promise<void> {
  res.on('close', () => {
    if (!res.writableFinished) cancellation.abort(new Error('client went away'));
  });
  try {
    const body = await readBodyBounded(req);
    if (body === undefined) {
      await respondTooLarge(req, res, cancellation.signal);
      return;
    }
    const current = handler();
    if (current === undefined) {
      res.writeHead(503, { 'content-length': '0' }).end();
      return;
    }
    const response = await current.handle(
      { method: req.method ?? 'GET', rawUrl: req.url ?? '/', rawHeaders: req.rawHeaders, body },
      cancellation,
    );
    if (res.destroyed) return;
    const payload = Buffer.from(response.body, 'utf8');
    res.writeHead(response.status, { ...response.headers, 'content-length': String(payload.byteLength) });
    // Settle once the bytes are handed to the socket, so a draining close() never cuts a reply.
    await new Promise<void>((resolve) => {
      res.once('close', resolve);
      res.end(payload, resolve);
    });
  } catch (err) {
    logger.error({ err }, 'SQS request failed outside the handler');
    if (!res.headersSent && !res.destroyed) res.writeHead(500, { 'content-length': '0' }).end();
    else res.destroy();
  }
}

/**
 * The body, or undefined as soon as it is known to exceed httpRequestBytesMax (nothing more is
 * buffered; what is still arriving is left to respondTooLarge).
 */
function readBodyBounded(req: IncomingMessage): Promise<Buffer | undefined> {
  const max = raftqLimits.httpRequestBytesMax.value;
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > max) return Promise.resolve(undefined);
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let total = 0;
    const onData = (chunk: Buffer) => {
      total += chunk.byteLength;
      if (total > max) {
        req.off('data', onData);
        req.pause();
        chunks.length = 0;
        resolve(undefined);
        return;
      }
      chunks.push(chunk);
    };
    req.on('data', onData);
    req.on('end', () => {
      if (total <= max) resolve(Buffer.concat(chunks, total));
    });
    req.on('error', reject);
  });
}

/**
 * Answers an oversize body with a 413 in the request's protocol, then closes the connection. The
 * answer goes out at once, but the connection is closed only once the client has finished sending:
 * closing a socket with unread bytes in it sends a reset, and a client still writing its body
 * then sees ECONNRESET instead of the answer waiting in its receive buffer. So the rest of the
 * body is read and thrown away (bounded in bytes and time), and only a client that goes past the
 * bounds is cut.
 */
async function respondTooLarge(req: IncomingMessage, res: ServerResponse, signal: AbortSignal): Promise<void> {
  const definition = awsErrors.RequestEntityTooLarge;
  const message = `The request body is larger than ${raftqLimits.httpRequestBytesMax.value} bytes.`;
  const requestId = randomUUID();
  // The same protocol choice as the request handler's: a target, or a JSON-typed body.
  const isJson =
    req.headers['x-amz-target'] !== undefined ||
    (req.headers['content-type'] ?? '').startsWith('application/x-amz-json');
  const encoded = isJson ? encodeJsonError(definition, message) : encodeXmlError(definition, message, requestId);
  const payload = Buffer.from(encoded.body, 'utf8');
  res.writeHead(encoded.status, {
    ...encoded.headers,
    'x-amzn-requestid': requestId,
    'content-length': String(payload.byteLength),
    connection: 'close',
  });
  res.write(payload);
  if (await discardRestOfBody(req, signal)) {
    await new Promise<void>((resolve) => {
      res.once('close', resolve);
      res.end(resolve);
    });
  } else {
    res.destroy();
  }
}

/**
 * Reads and throws away what remains of a request body: true once it has all arrived, false if it
 * went past oversizeBodyDiscardBytesMax or oversizeBodyDiscardMs, the client went away or the
 * server is closing.
 */
function discardRestOfBody(req: IncomingMessage, signal: AbortSignal): Promise<boolean> {
  if (req.complete) return Promise.resolve(true);
  if (signal.aborted) return Promise.resolve(false);
  return new Promise<boolean>((resolve) => {
    let discardedBytes = 0;
    const finish = (isComplete: boolean) => {
      clearTimeout(timer);
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('close', onClose);
      signal.removeEventListener('abort', onAbort);
      resolve(isComplete);
    };
    const onData = (chunk: Buffer) => {
      discardedBytes += chunk.byteLength;
      if (discardedBytes > raftqLimits.oversizeBodyDiscardBytesMax.value) finish(false);
    };
    const onEnd = () => finish(true);
    const onClose = () => finish(req.complete);
    const onAbort = () => finish(false);
    const timer = setTimeout(() => finish(false), raftqLimits.oversizeBodyDiscardMs.value);
    req.on('data', onData);
    req.once('end', onEnd);
    req.once('close', onClose);
    signal.addEventListener('abort', onAbort, { once: true });
    req.resume();
  });
}

/** True if `promise` settled within `timeoutMs`. */
async function waitBounded(promise: Promise<unknown>, timeoutMs: number): Promise<boolean> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const isSettled = await Promise.race([
    promise.then(() => true),
    new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(false), timeoutMs))),
  ]);
  if (timer !== undefined) clearTimeout(timer);
  return isSettled;
}
