import { ManualClock } from '../../../src/base/clock.js';
import { defaultSqsServiceModel, type SqsServiceModel } from '../../../src/sqs/service-model.js';
import type { SigV4Verifier } from '../../../src/sqs/sigv4-verifier.js';
import { SqsRequestHandler, type GatewayLogger, type GatewayResponse } from '../../../src/sqs/sqs-request-handler.js';
import { FakeQueueService } from './fake-queue-service.js';

export const silentLogger: GatewayLogger = { info() {}, warn() {}, error() {} };

/** A recording logger, so a test can assert what the gateway reported. */
export function recordingLogger(): GatewayLogger & { lines: Array<{ level: string; message: string }> } {
  const lines: Array<{ level: string; message: string }> = [];
  return {
    lines,
    info: (_f, message) => lines.push({ level: 'info', message }),
    warn: (_f, message) => lines.push({ level: 'warn', message }),
    error: (_f, message) => lines.push({ level: 'error', message }),
  };
}

/** A request handler over a FakeQueueService, driven without a socket. */
export function makeGateway(
  options: { verifier?: SigV4Verifier; logger?: GatewayLogger; model?: SqsServiceModel } = {},
) {
  const fake = new FakeQueueService();
  const handler = new SqsRequestHandler({
    queueService: fake.asQueueService(),
    model: options.model ?? defaultSqsServiceModel(),
    accountId: '123456789012',
    logger: options.logger ?? silentLogger,
    defaultHost: 'localhost:9324',
    newRequestId: () => 'req-1',
    ...(options.verifier !== undefined ? { verifier: options.verifier } : {}),
  });
  return {
    fake,
    handler,
    clock: new ManualClock(0),
    async json(
      action: string,
      body: unknown,
      extra: { path?: string; headers?: string[] } = {},
    ): Promise<GatewayResponse & { json: Record<string, unknown> }> {
      const response = await handler.handle(
        {
          method: 'POST',
          rawUrl: extra.path ?? '/',
          rawHeaders: [
            'Host',
            'sqs.example:9324',
            'X-Amz-Target',
            `AmazonSQS.${action}`,
            'Content-Type',
            'application/x-amz-json-1.0',
            ...(extra.headers ?? []),
          ],
          body: Buffer.from(typeof body === 'string' ? body : JSON.stringify(body)),
        },
        new AbortController(),
      );
      return { ...response, json: JSON.parse(response.body) as Record<string, unknown> };
    },
    async query(
      params: Record<string, string> | string,
      extra: { path?: string; method?: 'GET' | 'POST' } = {},
    ): Promise<GatewayResponse> {
      const encoded = typeof params === 'string' ? params : new URLSearchParams(params).toString();
      const isGet = extra.method === 'GET';
      return handler.handle(
        {
          method: extra.method ?? 'POST',
          rawUrl: `${extra.path ?? '/'}${isGet ? `?${encoded}` : ''}`,
          rawHeaders: ['Host', 'sqs.example:9324', 'Content-Type', 'application/x-www-form-urlencoded'],
          body: Buffer.from(isGet ? '' : encoded),
        },
        new AbortController(),
      );
    },
  };
}

/** The text of the first <Name>…</Name> element of an XML document. */
export function xmlText(xml: string, element: string): string | undefined {
  const m = new RegExp(`<${element}>([^<]*)</${element}>`).exec(xml);
  return m?.[1];
}

export function xmlAll(xml: string, element: string): string[] {
  return [...xml.matchAll(new RegExp(`<${element}>([^<]*)</${element}>`, 'g'))].map((m) => m[1] ?? '');
}
