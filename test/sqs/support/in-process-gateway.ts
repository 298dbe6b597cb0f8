import { SeededPrng } from '../../../src/base/prng.js';
import type { QueueScheduler } from '../../../src/queue/queue-api.js';
import { QueueService } from '../../../src/queue/queue-service.js';
import { startSqsServer, type SqsServer } from '../../../src/sqs/sqs-server.js';
import type { GatewayLogger } from '../../../src/sqs/sqs-request-handler.js';
import { ModelTxnExecutor } from '../../queue/support/model-txn-executor.js';
import { freePort } from '../../support/ports.js';
import { silentLogger } from './gateway-harness.js';

/** The queue layer's model executor on the wall clock, so real clients see time pass. */
class WallClockModelExecutor extends ModelTxnExecutor {
  override nowMs(): number {
    return Date.now();
  }
}

const timerScheduler: QueueScheduler = {
  setTimerMs(delayMs, fn) {
    const timer = setTimeout(fn, delayMs);
    return () => clearTimeout(timer);
  },
};

export interface InProcessGateway {
  readonly endpoint: string;
  readonly port: number;
  readonly server: SqsServer;
  readonly service: QueueService;
  close(): Promise<void>;
}

/**
 * A real QueueService behind a real SQS server on a free loopback port, in this process: what
 * the end-to-end client tests talk to until a `raftq serve` node can be started instead.
 */
export async function startInProcessGateway(
  options: { credentialsFile?: string; logger?: GatewayLogger } = {},
): Promise<InProcessGateway> {
  const service = new QueueService({
    executor: new WallClockModelExecutor(),
    accountId: '000000000000',
    region: 'us-east-1',
    scheduler: timerScheduler,
    prng: new SeededPrng(42),
  });
  const port = await freePort();
  const server = await startSqsServer({
    host: '127.0.0.1',
    port,
    queueService: service,
    logger: options.logger ?? silentLogger,
    ...(options.credentialsFile !== undefined ? { credentialsFile: options.credentialsFile } : {}),
  });
  return {
    endpoint: `http://127.0.0.1:${server.port}`,
    port: server.port,
    server,
    service,
    async close() {
      await server.close();
      service.close();
    },
  };
}
