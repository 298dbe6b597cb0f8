// Every system the bench compares: how to start it (a script in bench/peers/), what its
// acknowledgement guarantees, and how to make and drop the queue of one cell on it.
import { setTimeout as delay } from 'node:timers/promises';
import type { LoadTarget, QueueRef } from '../load/load-target.js';
import { createSqsQueue, deleteSqsQueue } from '../load/sqs-driver.js';
import { createQuorumQueue, deleteQuorumQueue } from '../load/amqp-driver.js';
import { createNatsStream, deleteNatsStream } from '../load/nats-driver.js';
import { deleteEtcdPrefix } from '../load/etcd-driver.js';

export interface QueueAdmin {
  create(target: LoadTarget, name: string): Promise<QueueRef>;
  remove(target: LoadTarget, queue: QueueRef): Promise<void>;
}

export interface SystemDefinition {
  readonly id: string;
  readonly label: string;
  readonly durability: string;
  /** The Debian peer install.sh must provide first, if any. */
  readonly debianPeer?: 'rabbitmq' | 'nats' | 'etcd';
  readonly script: string;
  readonly portCount: number;
  scriptArgs(ports: readonly number[]): string[];
  target(ports: readonly number[]): LoadTarget;
  readonly queues: QueueAdmin;
  /** True for the raftq configurations: the subjects of every ratio. */
  readonly isSubject: boolean;
}

const url = (port: number | undefined): string => `http://127.0.0.1:${port}`;
const every = <T>(ports: readonly number[], stride: number, offset: number, f: (p: number | undefined) => T): T[] =>
  ports.filter((_, i) => i % stride === offset).map(f);

function endpointsOf(target: LoadTarget): readonly string[] {
  switch (target.kind) {
    case 'sqs':
    case 'etcd':
      return target.endpoints;
    case 'amqp':
      return target.urls;
    case 'nats':
      return target.servers;
  }
}
const first = (target: LoadTarget): string => endpointsOf(target)[0] ?? '';

const sqsQueues: QueueAdmin = {
  async create(target, name) {
    return { name, url: await createSqsQueue(first(target), name) };
  },
  async remove(target, queue) {
    if (queue.url !== undefined) await deleteSqsQueue(first(target), queue.url);
  },
};

const noopQueues: QueueAdmin = {
  async create(target, name) {
    return { name, url: `${first(target)}/000000000000/${name}` };
  },
  async remove() {},
};

/** JetStream answers "temporarily unavailable" until its meta group has a leader: retry that, for a while. */
const natsMetaLeaderWaitMs = 30_000;
const natsQueues: QueueAdmin = {
  async create(target, name) {
    const deadline = Date.now() + natsMetaLeaderWaitMs;
    for (;;) {
      try {
        await createNatsStream(first(target), name, endpointsOf(target).length);
        return { name };
      } catch (err) {
        if (Date.now() > deadline) throw err;
        await delay(250);
      }
    }
  },
  async remove(target, queue) {
    await deleteNatsStream(first(target), queue.name);
  },
};

const amqpQueues: QueueAdmin = {
  async create(target, name) {
    await createQuorumQueue(first(target), name);
    return { name };
  },
  async remove(target, queue) {
    await deleteQuorumQueue(first(target), queue.name);
  },
};

const etcdQueues: QueueAdmin = {
  async create(_target, name) {
    return { name };
  },
  async remove(target, queue) {
    await deleteEtcdPrefix(first(target), queue.name);
  },
};

function raftq(nodes: number): SystemDefinition {
  return {
    id: `raftq-${nodes}`,
    label: nodes === 1 ? 'raftq, one node' : `raftq, ${nodes} nodes`,
    durability:
      nodes === 1
        ? 'fsync of the Raft log before every acknowledgement (group commit); one copy'
        : `fsync of the Raft log on a majority of ${nodes} nodes before every acknowledgement`,
    script: 'raftq.sh',
    portCount: 3 * nodes,
    scriptArgs: (ports) => ports.map(String),
    target: (ports) => ({ kind: 'sqs', endpoints: every(ports, 3, 0, url), isNoop: false }),
    queues: sqsQueues,
    isSubject: true,
  };
}

export const systemCatalog: readonly SystemDefinition[] = [
  raftq(1),
  raftq(3),
  {
    id: 'rabbitmq',
    label: 'RabbitMQ 3.10 quorum queue, 3 nodes',
    durability: 'publisher confirm after a majority of 3 nodes fsynced the Raft WAL',
    debianPeer: 'rabbitmq',
    script: 'rabbitmq.sh',
    portCount: 7,
    scriptArgs: (ports) => ports.map(String),
    target: (ports) => ({ kind: 'amqp', urls: ports.slice(1, 4).map((p) => `amqp://guest:guest@127.0.0.1:${p}`) }),
    queues: amqpQueues,
    isSubject: false,
  },
  {
    id: 'nats',
    label: 'NATS 2.9 JetStream, 3-replica file stream',
    durability:
      'weaker durability: 2.9 syncs about once a minute (PubAck once a majority of 3 replicas wrote it, not synced)',
    debianPeer: 'nats',
    script: 'nats.sh',
    portCount: 6,
    scriptArgs: (ports) => ports.map(String),
    target: (ports) => ({ kind: 'nats', servers: ports.slice(0, 3).map((p) => `127.0.0.1:${p}`) }),
    queues: natsQueues,
    isSubject: false,
  },
  {
    id: 'etcd',
    label: 'etcd 3.4, 3 members (keys as a queue)',
    durability: 'fsync of the WAL on a majority of 3 members before every acknowledgement',
    debianPeer: 'etcd',
    script: 'etcd.sh',
    portCount: 6,
    scriptArgs: (ports) => ports.map(String),
    target: (ports) => ({ kind: 'etcd', endpoints: ports.slice(0, 3).map(url) }),
    queues: etcdQueues,
    isSubject: false,
  },
  {
    id: 'local-aws-sqs',
    label: 'local-aws-sqs, in-memory SQS emulator',
    durability: 'none: in memory, one process',
    script: 'node-server.sh',
    portCount: 1,
    scriptArgs: (ports) => ['local-aws-sqs', String(ports[0])],
    target: (ports) => ({ kind: 'sqs', endpoints: [url(ports[0])], isNoop: false }),
    queues: sqsQueues,
    isSubject: false,
  },
  {
    id: 'noop-http',
    label: 'no-op node:http server (canned SQS answers)',
    durability: 'none: stores nothing; the ceiling of one Node.js process',
    script: 'node-server.sh',
    portCount: 1,
    scriptArgs: (ports) => ['noop-http', String(ports[0])],
    target: (ports) => ({ kind: 'sqs', endpoints: [url(ports[0])], isNoop: true }),
    queues: noopQueues,
    isSubject: false,
  },
];

export function findSystem(id: string): SystemDefinition | undefined {
  return systemCatalog.find((s) => s.id === id);
}
