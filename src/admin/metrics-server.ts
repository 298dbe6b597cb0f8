/**
 * The metrics port (`--metrics-listen`): GET /metrics, the same Prometheus text as the admin
 * port's, without a token, and nothing else. Prometheus discovery by pod annotations (and many
 * scrape setups) cannot present a bearer token, so the admin token cannot guard what it scrapes;
 * this port gives the scraper what it needs and no more. The metrics carry node ids, roles and
 * counts, never queue names or message contents.
 */
import { createServer } from 'node:http';
import type { Logger } from 'pino';
import type { Registry } from 'prom-client';
import { sendJson } from './http-json.js';

export interface MetricsServerOptions {
  readonly host: string;
  readonly port: number;
  readonly registry: Registry;
  readonly logger: Logger;
}

export interface MetricsServer {
  readonly port: number;
  close(): Promise<void>;
}

export async function startMetricsServer(options: MetricsServerOptions): Promise<MetricsServer> {
  const server = createServer((request, response) => {
    const path = new URL(request.url ?? '/', 'http://metrics').pathname;
    if (path !== '/metrics') return sendJson(response, 404, { error: 'this port serves only GET /metrics' });
    if (request.method !== 'GET' && request.method !== 'HEAD')
      return sendJson(response, 405, { error: 'this port serves only GET /metrics' });
    options.registry.metrics().then(
      (text) => {
        response.writeHead(200, { 'content-type': options.registry.contentType });
        response.end(request.method === 'HEAD' ? undefined : text);
      },
      (error: unknown) => {
        options.logger.error({ err: error }, 'collecting metrics failed');
        sendJson(response, 500, { error: 'collecting metrics failed' });
      },
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => resolve());
  });
  const address = server.address();
  return {
    port: typeof address === 'object' && address !== null ? address.port : options.port,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
