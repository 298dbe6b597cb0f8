import {
  CreateQueueCommand,
  type SendMessageBatchCommandOutput,
  type SendMessageBatchRequestEntry,
  type SQSClient,
} from '@aws-sdk/client-sqs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createProducer, ProducerClosedError, ProducerSendError } from '../../src/client/index.js';
import { queueCounts, receiveOnce, startClientFixture, type ClientFixture } from './support/client-fixture.js';

/**
 * createProducer() against a real raftq node. Batches are observed, and faults injected, by
 * middleware on the test's own SQSClient: the producer under test is unchanged.
 */

let fixture: ClientFixture;

beforeAll(async () => {
  fixture = await startClientFixture();
});

afterAll(async () => {
  await fixture?.close();
});

let queueNumber = 0;

async function createQueue(options: { isFifo?: boolean } = {}): Promise<string> {
  const name = `producer-${process.pid}-${queueNumber++}${options.isFifo === true ? '.fifo' : ''}`;
  const { QueueUrl } = await fixture.sqs.send(
    new CreateQueueCommand({ QueueName: name, Attributes: options.isFifo === true ? { FifoQueue: 'true' } : {} }),
  );
  return QueueUrl as string;
}

interface BatchLog {
  readonly batches: SendMessageBatchRequestEntry[][];
}

/** A client that records every SendMessageBatch, and lets `alter` rewrite answers or throw. */
function observedClient(
  alter?: (
    call: number,
    entries: SendMessageBatchRequestEntry[],
    output: SendMessageBatchCommandOutput | undefined,
  ) => void,
): { client: SQSClient; log: BatchLog } {
  const client = fixture.newClient();
  const log: BatchLog = { batches: [] };
  client.middlewareStack.add(
    (next, context) => async (args) => {
      if (context.commandName !== 'SendMessageBatchCommand') return next(args);
      const entries = ((args.input as { Entries?: SendMessageBatchRequestEntry[] }).Entries ?? []).map((e) => ({
        ...e,
      }));
      log.batches.push(entries);
      const call = log.batches.length;
      alter?.(call, entries, undefined);
      const result = await next(args);
      alter?.(call, entries, result.output as SendMessageBatchCommandOutput);
      return result;
    },
    { step: 'initialize', name: 'observeSendMessageBatch' },
  );
  return { client, log };
}

describe('createProducer()', () => {
  it('batches concurrent sends into SendMessageBatch requests of at most 10 entries, and every message arrives', async () => {
    const queueUrl = await createQueue();
    const { client, log } = observedClient();
    const producer = createProducer({ queueUrl, client, lingerMs: 20 });
    const sent = await Promise.all(Array.from({ length: 25 }, (_, i) => producer.send(`message ${i}`)));
    await producer.close();
    expect(new Set(sent.map((s) => s.messageId)).size).toBe(25);
    expect(log.batches.map((b) => b.length)).toEqual([10, 10, 5]);
    expect(await queueCounts(fixture.sqs, queueUrl)).toEqual({ visible: 25, notVisible: 0 });
  });

  it('sends a lone message once its linger has passed', async () => {
    const queueUrl = await createQueue();
    const { client, log } = observedClient();
    const producer = createProducer({ queueUrl, client, lingerMs: 5 });
    const { messageId } = await producer.send({
      body: 'alone',
      messageAttributes: { kind: { DataType: 'String', StringValue: 'solo' } },
    });
    expect(log.batches).toHaveLength(1);
    const [received] = await receiveOnce(fixture.sqs, queueUrl);
    expect(received?.MessageId).toBe(messageId);
    expect(received?.MessageAttributes?.['kind']?.StringValue).toBe('solo');
    await producer.close();
    await expect(producer.send('late')).rejects.toBeInstanceOf(ProducerClosedError);
  });

  it('passes FIFO group and deduplication ids through: a duplicate id is stored once, a group keeps its order', async () => {
    const queueUrl = await createQueue({ isFifo: true });
    const producer = createProducer({ queueUrl, client: fixture.sqs, lingerMs: 20 });
    const sends = ['a', 'b', 'c', 'd'].map((body) =>
      producer.send({ body, messageGroupId: 'g1', messageDeduplicationId: `id-${body}` }),
    );
    const duplicate = producer.send({ body: 'a again', messageGroupId: 'g1', messageDeduplicationId: 'id-a' });
    const results = await Promise.all([...sends, duplicate]);
    await producer.close();
    expect(results.every((r) => r.sequenceNumber !== undefined)).toBe(true);
    const received = await receiveOnce(fixture.sqs, queueUrl);
    expect(received.map((m) => m.Body)).toEqual(['a', 'b', 'c', 'd']);
    expect(received.every((m) => m.Attributes?.['MessageGroupId'] === 'g1')).toBe(true);
  });

  it('sends an entry that failed transiently again with the same content, so a FIFO queue stores it once', async () => {
    const queueUrl = await createQueue({ isFifo: true });
    // The first answer claims entry 2 failed although the queue stored it: a lost answer.
    const { client, log } = observedClient((call, entries, output) => {
      if (call !== 1 || output === undefined) return;
      const victim = entries[1]?.Id;
      output.Successful = (output.Successful ?? []).filter((s) => s.Id !== victim);
      output.Failed = [
        ...(output.Failed ?? []),
        { Id: victim, SenderFault: false, Code: 'InternalError', Message: 'injected' },
      ];
    });
    const producer = createProducer({ queueUrl, client, lingerMs: 20 });
    const results = await Promise.all(
      ['x', 'y', 'z'].map((body) =>
        producer.send({ body, messageGroupId: 'g', messageDeduplicationId: `dedup-${body}` }),
      ),
    );
    await producer.close();
    expect(log.batches).toHaveLength(2);
    const original = log.batches[0]?.[1];
    expect(log.batches[1]).toEqual([original]);
    expect(results.map((r) => r.messageId).every((id) => id !== '')).toBe(true);
    expect(await queueCounts(fixture.sqs, queueUrl)).toEqual({ visible: 3, notVisible: 0 });
  });

  it("retries a whole batch that failed transiently, and rejects only the entry that was the sender's fault", async () => {
    const queueUrl = await createQueue({ isFifo: true });
    const { client, log } = observedClient((call, _entries, output) => {
      if (call === 1 && output === undefined)
        throw Object.assign(new Error('injected outage'), { name: 'ServiceUnavailable', $fault: 'server' });
    });
    const producer = createProducer({ queueUrl, client, lingerMs: 20 });
    const good = producer.send({ body: 'grouped', messageGroupId: 'g', messageDeduplicationId: 'd1' });
    // An attribute value in the field its type does not take: refused for this entry alone.
    const bad = producer.send({
      body: 'wrong attribute',
      messageGroupId: 'g',
      messageDeduplicationId: 'd2',
      messageAttributes: { a: { DataType: 'Binary', StringValue: 'text' } },
    });
    await expect(good).resolves.toMatchObject({ messageId: expect.any(String) });
    const error = await bad.then(
      () => undefined,
      (e: unknown) => e,
    );
    await producer.close();
    expect(error).toBeInstanceOf(ProducerSendError);
    expect((error as ProducerSendError).errorCode).toBe('InvalidParameterValue');
    expect(log.batches).toHaveLength(2);
    expect(log.batches[1]).toEqual(log.batches[0]);
    expect(await queueCounts(fixture.sqs, queueUrl)).toEqual({ visible: 1, notVisible: 0 });
  });
});
