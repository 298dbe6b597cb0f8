// NATS JetStream (the `nats` client): publishes wait for the stream's PubAck (the three replicas
// have the message, but 2.9 syncs to disk only about once a minute); consumers pull batches from
// one durable consumer and ack each message. A batch of 10 is 10 pipelined publishes: 2.9 has no
// batch publish.
import { AckPolicy, connect, RetentionPolicy, StorageType, type ConsumerMessages, type NatsConnection } from 'nats';
import type { ConsumedBatch, DriverOptions, LoadDriver } from './load-driver.js';
import { bodyTemplate, nowEpochMicros, readTimestampMicros, writeTimestamp } from './message-body.js';

/** The durable pull consumer every client slot of a cell shares. */
export const natsConsumerName = 'bench';
/** How long a pull waits for a full batch before returning what it has. */
const fetchExpiresMs = 1_000;

export function natsSubject(stream: string): string {
  return `${stream}.m`;
}

export class NatsDriver implements LoadDriver {
  private connections: NatsConnection[] = [];
  private readonly template: Buffer;
  private readonly activeFetches = new Set<ConsumerMessages>();
  private isInterrupted = false;

  constructor(private readonly options: DriverOptions) {
    if (options.target.kind !== 'nats') throw new TypeError('NatsDriver needs a nats target');
    this.template = bodyTemplate(options.messageBytes);
  }

  async open(): Promise<void> {
    if (this.options.target.kind !== 'nats') return;
    this.connections = await Promise.all(this.options.target.servers.map((server) => connect({ servers: server })));
  }

  private connection(slot: number): NatsConnection {
    return this.connections[slot % this.connections.length] as NatsConnection;
  }

  async produce(slot: number): Promise<number> {
    const js = this.connection(slot).jetstream();
    const micros = nowEpochMicros();
    const subject = natsSubject(this.options.queue.name);
    const acks: Promise<unknown>[] = [];
    for (let i = 0; i < this.options.batchSize; i++) {
      // The client may keep a reference until the bytes are flushed: each publish gets its own buffer.
      const data = Buffer.from(this.template);
      writeTimestamp(data, 0, micros);
      acks.push(js.publish(subject, data));
    }
    await Promise.all(acks);
    return this.options.batchSize;
  }

  async consume(slot: number): Promise<ConsumedBatch> {
    if (this.isInterrupted) return { count: 0, sentAtMicros: [] };
    const consumer = await this.connection(slot).jetstream().consumers.get(this.options.queue.name, natsConsumerName);
    const messages = await consumer.fetch({ max_messages: this.options.batchSize, expires: fetchExpiresMs });
    this.activeFetches.add(messages);
    const sentAtMicros: number[] = [];
    let count = 0;
    try {
      for await (const message of messages) {
        count++;
        const sentAt = readTimestampMicros(
          Buffer.from(message.data.buffer, message.data.byteOffset, Math.min(message.data.length, 18)),
        );
        if (sentAt !== null) sentAtMicros.push(sentAt);
        message.ack();
      }
    } finally {
      this.activeFetches.delete(messages);
    }
    return { count, sentAtMicros };
  }

  interrupt(): void {
    this.isInterrupted = true;
    for (const messages of this.activeFetches) messages.stop();
  }

  async close(): Promise<void> {
    await Promise.allSettled(this.connections.map((c) => c.drain()));
  }
}

/** Creates a three-replica file stream with work-queue retention and its durable pull consumer. */
export async function createNatsStream(server: string, name: string, replicas: number): Promise<void> {
  const nc = await connect({ servers: server });
  try {
    const jsm = await nc.jetstreamManager();
    await jsm.streams.add({
      name,
      subjects: [natsSubject(name)],
      retention: RetentionPolicy.Workqueue,
      storage: StorageType.File,
      num_replicas: replicas,
    });
    await jsm.consumers.add(name, {
      durable_name: natsConsumerName,
      ack_policy: AckPolicy.Explicit,
      max_ack_pending: 100_000,
    });
  } finally {
    await nc.close();
  }
}

export async function deleteNatsStream(server: string, name: string): Promise<void> {
  const nc = await connect({ servers: server });
  try {
    const jsm = await nc.jetstreamManager();
    await jsm.streams.delete(name);
  } finally {
    await nc.close();
  }
}
