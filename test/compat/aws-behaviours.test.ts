import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ProcessCluster } from '../integration/cluster-harness.js';
import { hasBuiltCli } from '../sqs/support/sqs-endpoint.js';
import { ProtocolClient, type Protocol } from './support/protocol-client.js';

/**
 * Behaviours where clients expect AWS's exact answer, each checked over the JSON and the query
 * protocol, through a follower of one three-node cluster (a follower forwards every transaction to
 * the leader, so what it answers is what a client behind a load balancer sees). Visibility
 * timeouts of one second elapse on the nodes' real clocks: the tests wait until the queue's own
 * count says the messages are visible again, never a fixed time.
 */

let cluster: ProcessCluster;
let follower: string;
let queueSerial = 0;

function uniqueName(prefix: string, fifo = false): string {
  queueSerial++;
  return `${prefix}-${queueSerial}${fifo ? '.fifo' : ''}`;
}

async function createQueue(
  sqs: ProtocolClient,
  name: string,
  attributes: Record<string, string> = {},
): Promise<string> {
  const body = await sqs.ok('CreateQueue', {
    QueueName: name,
    ...(Object.keys(attributes).length > 0 ? { Attributes: attributes } : {}),
  });
  return body['QueueUrl'] as string;
}

async function receive(
  sqs: ProtocolClient,
  queueUrl: string,
  extra: Record<string, unknown> = {},
): Promise<Array<Record<string, unknown>>> {
  const body = await sqs.ok('ReceiveMessage', { QueueUrl: queueUrl, ...extra });
  return (body['Messages'] as Array<Record<string, unknown>> | undefined) ?? [];
}

async function bodiesOf(sqs: ProtocolClient, queueUrl: string, extra: Record<string, unknown> = {}): Promise<string[]> {
  return (await receive(sqs, queueUrl, extra)).map((m) => m['Body'] as string);
}

/** Waits until no message of the queue is in flight (their visibility timeouts have passed). */
async function untilNoneInFlight(sqs: ProtocolClient, queueUrl: string): Promise<void> {
  const deadlineMs = Date.now() + 20_000;
  for (;;) {
    const body = await sqs.ok('GetQueueAttributes', {
      QueueUrl: queueUrl,
      AttributeNames: ['ApproximateNumberOfMessagesNotVisible'],
    });
    if ((body['Attributes'] as Record<string, string>)['ApproximateNumberOfMessagesNotVisible'] === '0') return;
    if (Date.now() > deadlineMs) throw new Error('messages stayed in flight');
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

function fifoAttributes(extra: Record<string, string> = {}): Record<string, string> {
  return { FifoQueue: 'true', ContentBasedDeduplication: 'true', ...extra };
}

describe.skipIf(!hasBuiltCli())('AWS behaviours, through a follower', () => {
  beforeAll(async () => {
    cluster = await ProcessCluster.start(3);
    const leader = await cluster.leader();
    follower = [...cluster.specs.keys()].find((id) => id !== leader) as string;
  }, 120_000);

  afterAll(async () => {
    await cluster?.close();
  });

  const protocols: Protocol[] = ['json', 'query'];
  for (const protocol of protocols) {
    const client = () => new ProtocolClient(`http://127.0.0.1:${cluster.spec(follower).sqsPort}`, protocol);

    describe(`over the ${protocol} protocol`, () => {
      describe('visibility and receipt handles', () => {
        it('ChangeMessageVisibility of a standard message whose visibility timeout expired succeeds', async () => {
          const sqs = client();
          const url = await createQueue(sqs, uniqueName('cmv-expired'), { VisibilityTimeout: '1' });
          await sqs.ok('SendMessage', { QueueUrl: url, MessageBody: 'm' });
          const [message] = await receive(sqs, url);
          await untilNoneInFlight(sqs, url);
          await sqs.ok('ChangeMessageVisibility', {
            QueueUrl: url,
            ReceiptHandle: message?.['ReceiptHandle'],
            VisibilityTimeout: 60,
          });
          expect(await receive(sqs, url)).toEqual([]);
        });

        it('ChangeMessageVisibility with the handle of an earlier receive of a standard message succeeds', async () => {
          const sqs = client();
          const url = await createQueue(sqs, uniqueName('cmv-earlier'));
          await sqs.ok('SendMessage', { QueueUrl: url, MessageBody: 'm' });
          const [first] = await receive(sqs, url, { VisibilityTimeout: 0 });
          const [second] = await receive(sqs, url, { VisibilityTimeout: 30 });
          expect(second?.['Body']).toBe('m');
          await sqs.ok('ChangeMessageVisibility', {
            QueueUrl: url,
            ReceiptHandle: first?.['ReceiptHandle'],
            VisibilityTimeout: 0,
          });
          expect(await bodiesOf(sqs, url)).toEqual(['m']);
        });

        it('DeleteMessage on a FIFO queue with a handle whose visibility timeout expired fails and deletes nothing', async () => {
          const sqs = client();
          const url = await createQueue(
            sqs,
            uniqueName('fifo-delete-expired', true),
            fifoAttributes({ VisibilityTimeout: '1' }),
          );
          await sqs.ok('SendMessage', { QueueUrl: url, MessageBody: 'm', MessageGroupId: 'g' });
          const [message] = await receive(sqs, url);
          await untilNoneInFlight(sqs, url);
          const handle = message?.['ReceiptHandle'] as string;
          const result = await sqs.call('DeleteMessage', { QueueUrl: url, ReceiptHandle: handle });
          expect(result.error).toEqual({
            code: 'InvalidParameterValue',
            message: `Value ${handle} for parameter ReceiptHandle is invalid. Reason: The receipt handle has expired.`,
          });
          expect(await bodiesOf(sqs, url)).toEqual(['m']);
        });

        it('FIFO: groups that waited go before a group that was received from, and groups received later go last', async () => {
          const sqs = client();
          const url = await createQueue(
            sqs,
            uniqueName('fifo-rotation', true),
            fifoAttributes({ VisibilityTimeout: '1' }),
          );
          for (const [group, bodies] of [
            ['g1', ['g1-m1', 'g1-m2', 'g1-m3', 'g1-m4']],
            ['g2', ['g2-m1']],
            ['g3', ['g3-m1']],
          ] as const) {
            for (const body of bodies)
              await sqs.ok('SendMessage', { QueueUrl: url, MessageBody: body, MessageGroupId: group });
          }
          expect(await bodiesOf(sqs, url, { MaxNumberOfMessages: 2 })).toEqual(['g1-m1', 'g1-m2']);
          expect(await bodiesOf(sqs, url, { MaxNumberOfMessages: 1 })).toEqual(['g2-m1']);
          await untilNoneInFlight(sqs, url);
          expect(await bodiesOf(sqs, url, { MaxNumberOfMessages: 10, VisibilityTimeout: 0 })).toEqual([
            'g3-m1',
            'g1-m1',
            'g1-m2',
            'g1-m3',
            'g1-m4',
            'g2-m1',
          ]);
        });

        it('FIFO: receives with VisibilityTimeout 0 rotate the groups the same way', async () => {
          const sqs = client();
          const url = await createQueue(sqs, uniqueName('fifo-zero', true), fifoAttributes());
          for (const [group, body] of [
            ['g1', 'g1-m1'],
            ['g2', 'g2-m1'],
            ['g2', 'g2-m2'],
            ['g3', 'g3-m1'],
            ['g1', 'g1-m2'],
          ] as const) {
            await sqs.ok('SendMessage', { QueueUrl: url, MessageBody: body, MessageGroupId: group });
          }
          expect(await bodiesOf(sqs, url, { MaxNumberOfMessages: 3, VisibilityTimeout: 0 })).toEqual([
            'g1-m1',
            'g1-m2',
            'g2-m1',
          ]);
          expect(await bodiesOf(sqs, url, { MaxNumberOfMessages: 10, VisibilityTimeout: 0 })).toEqual([
            'g3-m1',
            'g1-m1',
            'g1-m2',
            'g2-m1',
            'g2-m2',
          ]);
        });

        it('FIFO: a head made visible again is delivered while later messages of its group stay in flight', async () => {
          const sqs = client();
          const url = await createQueue(
            sqs,
            uniqueName('fifo-head-back', true),
            fifoAttributes({ VisibilityTimeout: '30' }),
          );
          for (const [group, body] of [
            ['g1', 'g1-m1'],
            ['g1', 'g1-m2'],
            ['g2', 'g2-m1'],
          ] as const) {
            await sqs.ok('SendMessage', { QueueUrl: url, MessageBody: body, MessageGroupId: group });
          }
          const received = await receive(sqs, url, { MaxNumberOfMessages: 2 });
          expect(received.map((m) => m['Body'])).toEqual(['g1-m1', 'g1-m2']);
          await sqs.ok('ChangeMessageVisibility', {
            QueueUrl: url,
            ReceiptHandle: received[0]?.['ReceiptHandle'],
            VisibilityTimeout: 0,
          });
          expect(await bodiesOf(sqs, url, { MaxNumberOfMessages: 3 })).toEqual(['g2-m1', 'g1-m1']);
        });
      });

      describe('requests AWS refuses or accepts differently', () => {
        it('accepts a bare queue name as QueueUrl in every action', async () => {
          const sqs = client();
          const name = uniqueName('bare');
          await createQueue(sqs, name);
          await sqs.ok('SetQueueAttributes', { QueueUrl: name, Attributes: { VisibilityTimeout: '40' } });
          const attributes = await sqs.ok('GetQueueAttributes', {
            QueueUrl: name,
            AttributeNames: ['VisibilityTimeout'],
          });
          expect(attributes['Attributes']).toEqual({ VisibilityTimeout: '40' });
          await sqs.ok('SendMessage', { QueueUrl: name, MessageBody: 'm' });
          await sqs.ok('SendMessageBatch', { QueueUrl: name, Entries: [{ Id: 'a', MessageBody: 'n' }] });
          const messages = await receive(sqs, name, { MaxNumberOfMessages: 10 });
          expect(messages.map((m) => m['Body']).sort()).toEqual(['m', 'n']);
          await sqs.ok('ChangeMessageVisibility', {
            QueueUrl: name,
            ReceiptHandle: messages[0]?.['ReceiptHandle'],
            VisibilityTimeout: 10,
          });
          await sqs.ok('DeleteMessage', { QueueUrl: name, ReceiptHandle: messages[1]?.['ReceiptHandle'] });
          await sqs.ok('PurgeQueue', { QueueUrl: name });
          await sqs.ok('DeleteQueue', { QueueUrl: name });
        });

        it('fails a FIFO SendMessageBatch as a whole when an entry lacks MessageGroupId or MessageDeduplicationId', async () => {
          const sqs = client();
          const url = await createQueue(sqs, uniqueName('fifo-batch', true), { FifoQueue: 'true' });
          const noGroup = await sqs.call('SendMessageBatch', {
            QueueUrl: url,
            Entries: [
              { Id: 'a', MessageBody: 'a', MessageGroupId: 'g', MessageDeduplicationId: 'a' },
              { Id: 'b', MessageBody: 'b', MessageDeduplicationId: 'b' },
            ],
          });
          expect(noGroup.error?.code).toBe('MissingParameter');
          const noDedup = await sqs.call('SendMessageBatch', {
            QueueUrl: url,
            Entries: [
              { Id: 'a', MessageBody: 'a', MessageGroupId: 'g', MessageDeduplicationId: 'a' },
              { Id: 'b', MessageBody: 'b', MessageGroupId: 'g' },
            ],
          });
          expect(noDedup.error?.code).toBe('InvalidParameterValue');
          expect(noDedup.error?.message).toBe(
            'The queue should either have ContentBasedDeduplication enabled or MessageDeduplicationId provided explicitly',
          );
          expect(await receive(sqs, url, { MaxNumberOfMessages: 10 })).toEqual([]);
        });

        it('refuses CreateQueue of a standard queue whose name ends in .fifo', async () => {
          const sqs = client();
          for (const attributes of [{}, { FifoQueue: 'false' }]) {
            const result = await sqs.call('CreateQueue', {
              QueueName: uniqueName('std', true),
              ...(Object.keys(attributes).length > 0 ? { Attributes: attributes } : {}),
            });
            expect(result.error).toEqual({
              code: 'InvalidParameterValue',
              message: 'Can only include alphanumeric characters, hyphens, or underscores. 1 to 80 in length',
            });
          }
        });

        it('removes the RedrivePolicy when SetQueueAttributes sets it to the empty string', async () => {
          const sqs = client();
          const dlqUrl = await createQueue(sqs, uniqueName('dlq'));
          const dlqArn = (
            (await sqs.ok('GetQueueAttributes', { QueueUrl: dlqUrl, AttributeNames: ['QueueArn'] }))[
              'Attributes'
            ] as Record<string, string>
          )['QueueArn'];
          const url = await createQueue(sqs, uniqueName('src'), {
            RedrivePolicy: JSON.stringify({ deadLetterTargetArn: dlqArn, maxReceiveCount: 3 }),
          });
          await sqs.ok('SetQueueAttributes', { QueueUrl: url, Attributes: { RedrivePolicy: '' } });
          const attributes = (await sqs.ok('GetQueueAttributes', { QueueUrl: url, AttributeNames: ['All'] }))[
            'Attributes'
          ] as Record<string, string>;
          expect(attributes['RedrivePolicy']).toBeUndefined();
        });

        it('accepts FifoQueue=true on a FIFO queue and refuses FifoQueue on a standard queue or false on a FIFO queue', async () => {
          const sqs = client();
          const fifoUrl = await createQueue(sqs, uniqueName('set-fifo', true), { FifoQueue: 'true' });
          await sqs.ok('SetQueueAttributes', { QueueUrl: fifoUrl, Attributes: { FifoQueue: 'true' } });
          const toFalse = await sqs.call('SetQueueAttributes', {
            QueueUrl: fifoUrl,
            Attributes: { FifoQueue: 'false' },
          });
          expect(toFalse.error).toEqual({
            code: 'InvalidAttributeValue',
            message: 'Invalid value for the parameter FifoQueue. Reason: Modifying queue type is not supported.',
          });
          const standardUrl = await createQueue(sqs, uniqueName('set-std'));
          const onStandard = await sqs.call('SetQueueAttributes', {
            QueueUrl: standardUrl,
            Attributes: { FifoQueue: 'true' },
          });
          expect(onStandard.error).toEqual({ code: 'InvalidAttributeName', message: 'Unknown Attribute FifoQueue.' });
        });

        it('takes message attribute names of Unicode letters and digits and refuses reserved, punctuated or long ones', async () => {
          const sqs = client();
          const url = await createQueue(sqs, uniqueName('attr-names'));
          const send = (name: string, value = 'v') =>
            sqs.call('SendMessage', {
              QueueUrl: url,
              MessageBody: 'm',
              MessageAttributes: { [name]: { DataType: 'String', StringValue: value } },
            });
          expect((await send('attr.1øßä')).error).toBeUndefined();
          for (const name of [
            'AWS.x',
            'aws.x',
            'Amazon.x',
            'AMAZON.x',
            '.x',
            'a!b',
            'a"b',
            'a§b',
            'a(b',
            'a?b',
            'a'.repeat(257),
          ]) {
            expect((await send(name)).error?.code, name).toBe('InvalidParameterValue');
          }
          for (const value of ['a\x08b', 'a\x0bb'])
            expect((await send('ok', value)).error?.code).toBe('InvalidParameterValue');
          const [message] = await receive(sqs, url, { MessageAttributeNames: ['All'] });
          expect(message?.['Body']).toBe('m');
        });

        it('stores AWSTraceHeader from MessageSystemAttributes and from the X-Amzn-Trace-Id header and returns it when asked', async () => {
          const sqs = client();
          const url = await createQueue(sqs, uniqueName('trace'));
          const trace = (id: string) => `Root=1-5759e988-bd862e3fe1be46a99427${id};Sampled=1`;
          await sqs.ok('SendMessage', {
            QueueUrl: url,
            MessageBody: 'single',
            MessageSystemAttributes: { AWSTraceHeader: { DataType: 'String', StringValue: trace('0001') } },
          });
          await sqs.ok('SendMessageBatch', {
            QueueUrl: url,
            Entries: [
              {
                Id: 'b',
                MessageBody: 'batch',
                MessageSystemAttributes: { AWSTraceHeader: { DataType: 'String', StringValue: trace('0002') } },
              },
            ],
          });
          await sqs.ok('SendMessage', { QueueUrl: url, MessageBody: 'header' }, { 'X-Amzn-Trace-Id': trace('0003') });
          const byName = await receive(sqs, url, {
            MaxNumberOfMessages: 10,
            VisibilityTimeout: 0,
            MessageSystemAttributeNames: ['AWSTraceHeader'],
          });
          const traces = Object.fromEntries(
            byName.map((m) => [m['Body'], (m['Attributes'] as Record<string, string> | undefined)?.['AWSTraceHeader']]),
          );
          expect(traces).toEqual({ single: trace('0001'), batch: trace('0002'), header: trace('0003') });
          const all = await receive(sqs, url, { MaxNumberOfMessages: 10, AttributeNames: ['All'] });
          expect(all.map((m) => (m['Attributes'] as Record<string, string>)['AWSTraceHeader']).sort()).toEqual([
            trace('0001'),
            trace('0002'),
            trace('0003'),
          ]);
        });
      });

      describe('wording and shapes clients match on', () => {
        it('answers DeleteMessage with a malformed handle with ReceiptHandleIsInvalid in AWS words', async () => {
          const sqs = client();
          const url = await createQueue(sqs, uniqueName('bad-handle'));
          const result = await sqs.call('DeleteMessage', { QueueUrl: url, ReceiptHandle: 'garbage' });
          expect(result.error).toEqual({
            code: 'ReceiptHandleIsInvalid',
            message: 'The input receipt handle "garbage" is not a valid receipt handle.',
          });
        });

        it('answers ChangeMessageVisibility with the handle of a deleted message in AWS words', async () => {
          const sqs = client();
          const url = await createQueue(sqs, uniqueName('deleted-handle'));
          await sqs.ok('SendMessage', { QueueUrl: url, MessageBody: 'm' });
          const [message] = await receive(sqs, url);
          const handle = message?.['ReceiptHandle'] as string;
          await sqs.ok('DeleteMessage', { QueueUrl: url, ReceiptHandle: handle });
          const result = await sqs.call('ChangeMessageVisibility', {
            QueueUrl: url,
            ReceiptHandle: handle,
            VisibilityTimeout: 10,
          });
          expect(result.error).toEqual({
            code: 'InvalidParameterValue',
            message: `Value ${handle} for parameter ReceiptHandle is invalid. Reason: Message does not exist or is not available for visibility timeout change.`,
          });
        });

        it('names an unknown attribute of GetQueueAttributes in AWS words', async () => {
          const sqs = client();
          const url = await createQueue(sqs, uniqueName('unknown-attr'));
          const result = await sqs.call('GetQueueAttributes', { QueueUrl: url, AttributeNames: ['Nonsense'] });
          expect(result.error).toEqual({ code: 'InvalidAttributeName', message: 'Unknown Attribute Nonsense.' });
        });

        it('answers a missing queue with QueueDoesNotExist in the words of the protocol', async () => {
          const sqs = client();
          const result = await sqs.call('GetQueueUrl', { QueueName: 'no-such-queue' });
          expect(result.error?.code).toBe('AWS.SimpleQueueService.NonExistentQueue');
          if (protocol === 'query')
            expect(result.error?.message).toBe('The specified queue does not exist for this wsdl version.');
          else expect(result.body['__type']).toBe('com.amazonaws.sqs#QueueDoesNotExist');
        });

        it('returns a TaskHandle that decodes as base64 to JSON naming the task and its source ARN', async () => {
          const sqs = client();
          const dlqUrl = await createQueue(sqs, uniqueName('move-dlq'));
          const dlqArn = (
            (await sqs.ok('GetQueueAttributes', { QueueUrl: dlqUrl, AttributeNames: ['QueueArn'] }))[
              'Attributes'
            ] as Record<string, string>
          )['QueueArn'];
          await createQueue(sqs, uniqueName('move-src'), {
            RedrivePolicy: JSON.stringify({ deadLetterTargetArn: dlqArn, maxReceiveCount: 3 }),
          });
          const started = await sqs.ok('StartMessageMoveTask', { SourceArn: dlqArn });
          const handle = started['TaskHandle'] as string;
          expect(handle).toMatch(/^[A-Za-z0-9+/]+={0,2}$/);
          const decoded = JSON.parse(Buffer.from(handle, 'base64').toString('utf8')) as Record<string, unknown>;
          expect(decoded['sourceArn']).toBe(dlqArn);
          expect(typeof decoded['taskId']).toBe('string');
          // The dead-letter queue is empty, so the task completes at its first step: nothing to cancel.
        });
      });
    });
  }

  it('answers an empty ReceiveMessage over the query protocol (GET and POST) with an empty <ReceiveMessageResult/>', async () => {
    const endpoint = `http://127.0.0.1:${cluster.spec(follower).sqsPort}`;
    const url = await createQueue(new ProtocolClient(endpoint, 'query'), uniqueName('empty-receive'));
    const params = new URLSearchParams({ Action: 'ReceiveMessage', QueueUrl: url, Version: '2012-11-05' });
    const viaPost = await (
      await fetch(`${endpoint}/`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: params.toString(),
      })
    ).text();
    const viaGet = await (await fetch(`${endpoint}/?${params.toString()}`)).text();
    for (const xml of [viaPost, viaGet])
      expect(xml).toMatch(/<ReceiveMessageResult\/>|<ReceiveMessageResult><\/ReceiveMessageResult>/);
  });

  it('receives a requeued standard message before messages sent after it, through every node', async () => {
    // Every receive is served by the leader (followers forward it), from the head of the queue.
    for (const id of ['n1', 'n2', 'n3']) {
      const sqs = new ProtocolClient(`http://127.0.0.1:${cluster.spec(id).sqsPort}`, 'json');
      const url = await createQueue(sqs, uniqueName(`requeue-order-${id}`), { VisibilityTimeout: '1' });
      await sqs.ok('SendMessage', { QueueUrl: url, MessageBody: 'first' });
      expect(await bodiesOf(sqs, url)).toEqual(['first']);
      await sqs.ok('SendMessage', { QueueUrl: url, MessageBody: 'second' });
      await sqs.ok('SendMessage', { QueueUrl: url, MessageBody: 'third' });
      await untilNoneInFlight(sqs, url);
      expect(await bodiesOf(sqs, url, { MaxNumberOfMessages: 10 })).toEqual(['first', 'second', 'third']);
    }
  });
});
