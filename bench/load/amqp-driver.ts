// RabbitMQ over AMQP 0-9-1 (amqplib): publishes on confirm channels and waits for each publisher
// confirm (a quorum queue confirms once a majority has the message on disk); consumes with a
// prefetch of one batch per client slot and acknowledges a batch with one multiple-ack, which
// mirrors SQS's receive-then-DeleteMessageBatch.
import { connect, type Channel, type ChannelModel, type ConfirmChannel, type ConsumeMessage } from 'amqplib';
import type { ConsumedBatch, DriverOptions, LoadDriver } from './load-driver.js';
import { LoadOperationError } from './load-driver.js';
import { bodyTemplate, nowEpochMicros, readTimestampMicros, writeTimestamp } from './message-body.js';

interface ConsumerSlot {
  readonly channel: Channel;
  readonly buffered: ConsumeMessage[];
  wake: (() => void) | null;
}

export class AmqpDriver implements LoadDriver {
  private connections: ChannelModel[] = [];
  private readonly publishers = new Map<number, ConfirmChannel>();
  private readonly consumers = new Map<number, ConsumerSlot>();
  private readonly template: Buffer;
  private isInterrupted = false;

  constructor(private readonly options: DriverOptions) {
    if (options.target.kind !== 'amqp') throw new TypeError('AmqpDriver needs an amqp target');
    this.template = bodyTemplate(options.messageBytes);
  }

  async open(): Promise<void> {
    if (this.options.target.kind !== 'amqp') return;
    this.connections = await Promise.all(this.options.target.urls.map((url) => connect(url)));
    for (const connection of this.connections) connection.on('error', () => undefined);
    const connectionFor = (slot: number): ChannelModel =>
      this.connections[slot % this.connections.length] as ChannelModel;
    for (const slot of this.options.producerSlots) {
      this.publishers.set(slot, await connectionFor(slot).createConfirmChannel());
    }
    for (const slot of this.options.consumerSlots) {
      const channel = await connectionFor(slot).createChannel();
      await channel.prefetch(this.options.batchSize);
      const state: ConsumerSlot = { channel, buffered: [], wake: null };
      await channel.consume(this.options.queue.name, (message) => {
        if (message === null) return;
        state.buffered.push(message);
        state.wake?.();
      });
      this.consumers.set(slot, state);
    }
  }

  async produce(slot: number): Promise<number> {
    const channel = this.publishers.get(slot);
    if (channel === undefined) throw new TypeError(`slot ${slot} is not a producer slot`);
    const micros = nowEpochMicros();
    const confirms: Promise<void>[] = [];
    for (let i = 0; i < this.options.batchSize; i++) {
      // amqplib may hold on to the buffer until it reaches the socket: each publish gets its own.
      const content = Buffer.from(this.template);
      writeTimestamp(content, 0, micros);
      confirms.push(
        new Promise<void>((resolve, reject) => {
          channel.sendToQueue(this.options.queue.name, content, { persistent: true }, (err: unknown) =>
            err ? reject(new LoadOperationError('publish', 'nacked by the broker', { cause: err })) : resolve(),
          );
        }),
      );
    }
    await Promise.all(confirms);
    return this.options.batchSize;
  }

  async consume(slot: number): Promise<ConsumedBatch> {
    const state = this.consumers.get(slot);
    if (state === undefined) throw new TypeError(`slot ${slot} is not a consumer slot`);
    if (state.buffered.length === 0 && !this.isInterrupted) {
      await new Promise<void>((resolve) => {
        state.wake = resolve;
      });
      state.wake = null;
      // Like an SQS receive, take what has arrived by now (deliveries of one socket read), up to a batch.
      await new Promise<void>((resolve) => setImmediate(resolve));
    }
    const batch = state.buffered.splice(0, this.options.batchSize);
    const last = batch[batch.length - 1];
    if (last === undefined) return { count: 0, sentAtMicros: [] };
    state.channel.ack(last, true);
    const sentAtMicros: number[] = [];
    for (const message of batch) {
      const sentAt = readTimestampMicros(message.content);
      if (sentAt !== null) sentAtMicros.push(sentAt);
    }
    return { count: batch.length, sentAtMicros };
  }

  interrupt(): void {
    this.isInterrupted = true;
    for (const state of this.consumers.values()) state.wake?.();
  }

  async close(): Promise<void> {
    // Unacknowledged deliveries return to the queue when their channel closes; the queue is
    // deleted after the cell anyway.
    await Promise.allSettled(this.connections.map((c) => c.close()));
  }
}

export async function createQuorumQueue(url: string, name: string): Promise<void> {
  const connection = await connect(url);
  try {
    const channel = await connection.createChannel();
    await channel.assertQueue(name, { durable: true, arguments: { 'x-queue-type': 'quorum' } });
  } finally {
    await connection.close();
  }
}

export async function deleteQuorumQueue(url: string, name: string): Promise<void> {
  const connection = await connect(url);
  try {
    const channel = await connection.createChannel();
    await channel.deleteQueue(name);
  } finally {
    await connection.close();
  }
}
