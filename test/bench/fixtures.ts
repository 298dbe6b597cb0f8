// Measurements and results for the bench report tests: plain data, built the way measure-cell does.
import type { CellSpec } from '../../bench/cell-spec.js';
import type { BenchResult, CellMeasurement } from '../../bench/report/bench-result.js';
import { benchResultSchemaVersion } from '../../bench/report/bench-result.js';

export const produce1k: CellSpec = { workload: 'produce', messageBytes: 1024, batchSize: 10, concurrency: 32 };
export const consume1k: CellSpec = { workload: 'consume', messageBytes: 1024, batchSize: 10, concurrency: 32 };

export function measurement(
  system: string,
  cell: CellSpec,
  msgsPerSecond: number,
  overrides: Partial<CellMeasurement> = {},
): CellMeasurement {
  const latency = { count: 100, p50Ms: 1, p99Ms: 5, p999Ms: 9, maxMs: 12, meanMs: 1.5 };
  return {
    system,
    cell,
    status: 'ok',
    windowSeconds: 4,
    producedMessages: cell.workload === 'consume' ? 0 : msgsPerSecond * 4,
    consumedMessages: cell.workload === 'produce' ? 0 : msgsPerSecond * 4,
    throughputMsgsPerSecond: msgsPerSecond,
    latency: {
      produce: cell.workload === 'consume' ? null : latency,
      consume: cell.workload === 'produce' ? null : latency,
      endToEnd: null,
    },
    serverCpuSeconds: 2,
    serverCpuSecondsPer1000Msgs: (2 / (msgsPerSecond * 4)) * 1000,
    clientCpuSeconds: 1,
    clientProcesses: 2,
    clientCpuShare: 0.125,
    isClientBound: false,
    errors: 0,
    machineLoad1m: 1.5,
    ...overrides,
  };
}

export function benchResult(cells: CellMeasurement[]): BenchResult {
  return {
    schemaVersion: benchResultSchemaVersion,
    startedAt: '2026-01-02T03:04:05.000Z',
    finishedAt: '2026-01-02T03:09:05.000Z',
    host: { cpus: 2, node: 'v20.0.0', platform: 'linux x64' },
    options: { quick: true, systems: ['raftq-3', 'rabbitmq', 'etcd'] },
    systems: [
      { id: 'raftq-3', label: 'raftq, 3 nodes', durability: 'fsync on a majority', status: 'ran', startSeconds: 3 },
      { id: 'rabbitmq', label: 'RabbitMQ', durability: 'fsync on a majority', status: 'ran', startSeconds: 20 },
      {
        id: 'etcd',
        label: 'etcd',
        durability: 'fsync on a majority',
        status: 'skipped',
        reason: 'apt-get install etcd-server failed',
      },
    ],
    cells,
    ratios: [],
  };
}
