import { readFileSync } from 'node:fs';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { raftqLimits, sqsLimits } from '../../src/base/limits.js';
import { RetryableError } from '../../src/base/errors.js';
import { NoLeaderError, ProposalOutcomeUnknownError } from '../../src/cluster/errors.js';
import { QueueDoesNotExistError } from '../../src/queue/errors.js';
import { md5OfMessageAttributes, md5OfMessageBody } from '../../src/sqs/message-md5.js';
import { resolveSqsServiceModelPath, SqsServiceModel } from '../../src/sqs/service-model.js';
import { makeGateway, recordingLogger, xmlAll, xmlText } from './support/gateway-harness.js';

class NoLeaderForTest extends RetryableError {
  readonly code = 'NoLeader';
}

const queueUrl = 'http://sqs.example:9324/123456789012/orders';

async function gatewayWithQueue() {
  const gw = makeGateway();
  await gw.json('CreateQueue', { QueueName: 'orders' });
  return gw;
}

describe('the JSON protocol', () => {
  it('builds queue URLs from the Host header and the account id', async () => {
    const gw = makeGateway();
    const res = await gw.json('CreateQueue', {
      QueueName: 'orders',
      Attributes: { VisibilityTimeout: '40' },
      tags: { team: 'a' },
    });
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('application/x-amz-json-1.0');
    expect(res.json).toEqual({ QueueUrl: queueUrl });
    expect(gw.fake.calls[0]).toEqual({
      method: 'createQueue',
      args: [{ name: 'orders', attributes: { VisibilityTimeout: '40' }, tags: { team: 'a' } }],
    });
  });

  it('answers a queue error with __type, message and the x-amzn-query-error header', async () => {
    const gw = makeGateway();
    const res = await gw.json('GetQueueUrl', { QueueName: 'missing' });
    expect(res.status).toBe(400);
    expect(res.json['__type']).toBe('com.amazonaws.sqs#QueueDoesNotExist');
    expect(res.json['message']).toMatch(/does not exist/);
    expect(res.headers['x-amzn-query-error']).toBe('AWS.SimpleQueueService.NonExistentQueue;Sender');
  });

  it('refuses a member of the wrong JSON type with SerializationException', async () => {
    const gw = await gatewayWithQueue();
    const res = await gw.json('ReceiveMessage', { QueueUrl: queueUrl, MaxNumberOfMessages: '5' });
    expect(res.status).toBe(400);
    expect(res.json['__type']).toBe('com.amazonaws.sqs#SerializationException');
    expect(res.json['message']).toContain('MaxNumberOfMessages');
  });

  it('refuses a body that is not JSON', async () => {
    const gw = makeGateway();
    const res = await gw.json('ListQueues', '{not json');
    expect(res.status).toBe(400);
    expect(res.json['__type']).toBe('com.amazonaws.sqs#SerializationException');
  });

  it('refuses an unknown target with UnknownOperationException, InvalidAction in x-amzn-query-error', async () => {
    const gw = makeGateway();
    const res = await gw.json('FlyToTheMoon', {});
    expect(res.status).toBe(400);
    expect(res.json['__type']).toBe('com.amazonaws.sqs#UnknownOperationException');
    expect(res.headers['x-amzn-query-error']).toBe('InvalidAction;Sender');
  });

  it('requires QueueUrl with MissingParameter', async () => {
    const gw = makeGateway();
    const res = await gw.json('PurgeQueue', {});
    expect(res.status).toBe(400);
    expect(res.headers['x-amzn-query-error']).toBe('MissingParameter;Sender');
    expect(res.json['message']).toBe('The request must contain the parameter QueueUrl.');
  });

  it('accepts queue URLs of any host and account, and ElasticMQ-style paths', async () => {
    const gw = await gatewayWithQueue();
    for (const url of [
      'https://sqs.eu-west-1.amazonaws.com/999999999999/orders',
      'http://queue.amazonaws.com/1/orders',
      'http://localhost:4566/000000000000/orders',
      'http://localhost:9324/queue/orders',
    ]) {
      const res = await gw.json('GetQueueAttributes', { QueueUrl: url, AttributeNames: ['All'] });
      expect(res.status, url).toBe(200);
    }
    const bad = await gw.json('GetQueueAttributes', { QueueUrl: 'not a url' });
    expect(bad.status).toBe(404);
    expect(bad.headers['x-amzn-query-error']).toBe('InvalidAddress;Sender');
  });
});

describe('the query protocol', () => {
  it('decodes indexed attributes and tags and answers XML in the 2012-11-05 namespace', async () => {
    const gw = makeGateway();
    const res = await gw.query({
      Action: 'CreateQueue',
      QueueName: 'orders',
      'Attribute.1.Name': 'DelaySeconds',
      'Attribute.1.Value': '5',
      'Tag.1.Key': 'team',
      'Tag.1.Value': 'a',
    });
    expect(res.status).toBe(200);
    expect(res.body).toContain('<CreateQueueResponse xmlns="http://queue.amazonaws.com/doc/2012-11-05/">');
    expect(xmlText(res.body, 'QueueUrl')).toBe(queueUrl);
    expect(xmlText(res.body, 'RequestId')).toBe('req-1');
    expect(gw.fake.calls[0]?.args[0]).toEqual({
      name: 'orders',
      attributes: { DelaySeconds: '5' },
      tags: { team: 'a' },
    });
  });

  it('answers errors as ErrorResponse with Type, Code, Message and RequestId', async () => {
    const gw = makeGateway();
    const res = await gw.query({ Action: 'GetQueueUrl', QueueName: 'missing' });
    expect(res.status).toBe(400);
    expect(res.body).toContain('<ErrorResponse');
    expect(xmlText(res.body, 'Type')).toBe('Sender');
    expect(xmlText(res.body, 'Code')).toBe('AWS.SimpleQueueService.NonExistentQueue');
    expect(xmlText(res.body, 'RequestId')).toBe('req-1');
  });

  it('takes the queue from the request path when QueueUrl is absent, over GET too', async () => {
    const gw = await gatewayWithQueue();
    const res = await gw.query(
      { Action: 'SendMessage', MessageBody: 'hello' },
      { path: '/123456789012/orders', method: 'GET' },
    );
    expect(res.status).toBe(200);
    expect(xmlText(res.body, 'MD5OfMessageBody')).toBe(md5OfMessageBody('hello'));
    expect(gw.fake.queues.get('orders')?.messages).toHaveLength(1);
  });

  it('refuses an unknown action with InvalidAction and a missing one with MissingAction', async () => {
    const gw = makeGateway();
    expect(xmlText((await gw.query({ Action: 'DoTheThing' })).body, 'Code')).toBe('InvalidAction');
    expect(xmlText((await gw.query({ QueueName: 'x' })).body, 'Code')).toBe('MissingAction');
  });

  it('refuses a malformed percent escape with MalformedQueryString', async () => {
    const gw = makeGateway();
    const res = await gw.query('Action=ListQueues&QueueNamePrefix=%ZZ');
    expect(res.status).toBe(404);
    expect(xmlText(res.body, 'Code')).toBe('MalformedQueryString');
  });

  it('refuses a non-integer where the model wants an integer with InvalidParameterValue', async () => {
    const gw = await gatewayWithQueue();
    const res = await gw.query({ Action: 'ReceiveMessage', QueueUrl: queueUrl, MaxNumberOfMessages: 'ten' });
    expect(xmlText(res.body, 'Code')).toBe('InvalidParameterValue');
  });

  it('lists queues as repeated QueueUrl elements', async () => {
    const gw = makeGateway();
    await gw.json('CreateQueue', { QueueName: 'a1' });
    await gw.json('CreateQueue', { QueueName: 'a2' });
    const res = await gw.query({ Action: 'ListQueues', QueueNamePrefix: 'a' });
    expect(xmlAll(res.body, 'QueueUrl')).toEqual([
      'http://sqs.example:9324/123456789012/a1',
      'http://sqs.example:9324/123456789012/a2',
    ]);
  });
});

describe('ReceiveMessage parameters', () => {
  it.each([
    [
      'MaxNumberOfMessages',
      11,
      'Value 11 for parameter MaxNumberOfMessages is invalid. Reason: Must be between 1 and 10, if provided.',
    ],
    [
      'MaxNumberOfMessages',
      0,
      'Value 0 for parameter MaxNumberOfMessages is invalid. Reason: Must be between 1 and 10, if provided.',
    ],
    [
      'WaitTimeSeconds',
      21,
      'Value 21 for parameter WaitTimeSeconds is invalid. Reason: Must be >= 0 and <= 20, if provided.',
    ],
    [
      'VisibilityTimeout',
      43_201,
      'Value 43201 for parameter VisibilityTimeout is invalid. Reason: Must be >= 0 and <= 43200, if provided.',
    ],
  ])('refuses %s=%d with InvalidParameterValue', async (name, value, message) => {
    const gw = await gatewayWithQueue();
    const res = await gw.json('ReceiveMessage', { QueueUrl: queueUrl, [name]: value });
    expect(res.status).toBe(400);
    expect(res.headers['x-amzn-query-error']).toBe('InvalidParameterValue;Sender');
    expect(res.json['message']).toBe(message);
    expect(gw.fake.calls.some((c) => c.method === 'receiveMessages')).toBe(false);
  });

  it('returns only the requested attributes, with the MD5 of the returned message attributes', async () => {
    const gw = await gatewayWithQueue();
    await gw.json('SendMessage', {
      QueueUrl: queueUrl,
      MessageBody: 'b',
      MessageAttributes: {
        'order.id': { DataType: 'String', StringValue: '7' },
        'order.kind': { DataType: 'Number', StringValue: '3' },
        other: { DataType: 'Binary', BinaryValue: 'AAEC' },
      },
    });
    const res = await gw.json('ReceiveMessage', {
      QueueUrl: queueUrl,
      MessageAttributeNames: ['order.*'],
      MessageSystemAttributeNames: ['SenderId'],
    });
    const [message] = res.json['Messages'] as Array<Record<string, unknown>>;
    expect(message?.['Attributes']).toEqual({ SenderId: '123456789012' });
    expect(Object.keys(message?.['MessageAttributes'] as object).sort()).toEqual(['order.id', 'order.kind']);
    expect(message?.['MD5OfMessageAttributes']).toBe(
      md5OfMessageAttributes({
        'order.id': { dataType: 'String', stringValue: '7' },
        'order.kind': { dataType: 'Number', stringValue: '3' },
      }),
    );
    expect(message?.['MD5OfBody']).toBe(md5OfMessageBody('b'));
  });

  it('passes the client-abort signal and the limits to the queue layer', async () => {
    const gw = await gatewayWithQueue();
    await gw.json('ReceiveMessage', {
      QueueUrl: queueUrl,
      MaxNumberOfMessages: 10,
      WaitTimeSeconds: 20,
      VisibilityTimeout: 0,
    });
    const call = gw.fake.calls.find((c) => c.method === 'receiveMessages');
    expect(call?.args[1]).toMatchObject({ maxMessages: 10, waitTimeSeconds: 20, visibilityTimeoutSeconds: 0 });
    expect((call?.args[1] as { signal?: unknown }).signal).toBeInstanceOf(AbortSignal);
  });
});

describe('SendMessage validation', () => {
  it('refuses a body with a character outside the XML set with InvalidMessageContents', async () => {
    const gw = await gatewayWithQueue();
    for (const body of ['a\u0000b', 'x\u0008', '\uffff', '\ud800 lone surrogate']) {
      const res = await gw.json('SendMessage', { QueueUrl: queueUrl, MessageBody: body });
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.headers['x-amzn-query-error']).toBe('InvalidMessageContents;Sender');
    }
    const ok = await gw.json('SendMessage', { QueueUrl: queueUrl, MessageBody: 'tab\there \r\n é 😀 \ue000' });
    expect(ok.status).toBe(200);
  });

  it('refuses an empty body with MissingParameter', async () => {
    const gw = await gatewayWithQueue();
    const res = await gw.json('SendMessage', { QueueUrl: queueUrl, MessageBody: '' });
    expect(res.headers['x-amzn-query-error']).toBe('MissingParameter;Sender');
  });

  it('refuses DelaySeconds above 900', async () => {
    const gw = await gatewayWithQueue();
    const res = await gw.json('SendMessage', { QueueUrl: queueUrl, MessageBody: 'x', DelaySeconds: 901 });
    expect(res.json['message']).toBe(
      'Value 901 for parameter DelaySeconds is invalid. Reason: DelaySeconds must be >= 0 and <= 900.',
    );
  });

  it('refuses a message whose body and attributes exceed 1 MiB together', async () => {
    const gw = await gatewayWithQueue();
    const body = 'x'.repeat(sqsLimits.messageSizeBytesMax.value - 10);
    const res = await gw.json('SendMessage', {
      QueueUrl: queueUrl,
      MessageBody: body,
      MessageAttributes: { attr: { DataType: 'String', StringValue: 'y'.repeat(20) } },
    });
    expect(res.status).toBe(400);
    expect(res.json['message']).toBe(
      'One or more parameters are invalid. Reason: Message must be shorter than 1048576 bytes.',
    );
    const fits = await gw.json('SendMessage', { QueueUrl: queueUrl, MessageBody: body });
    expect(fits.status).toBe(200);
  });

  it("counts the UTF-8 bytes of each attribute's name, type and value toward the 1 MiB message limit", async () => {
    const gw = await gatewayWithQueue();
    const max = sqsLimits.messageSizeBytesMax.value;
    const attributes = {
      näme: { DataType: 'String.ünit', StringValue: 'välue€' },
      bin: { DataType: 'Binary', BinaryValue: Buffer.alloc(10, 2).toString('base64') },
    };
    const attributeBytes = Buffer.byteLength('nämeString.ünitvälue€') + Buffer.byteLength('binBinary') + 10;
    const fits = await gw.json('SendMessage', {
      QueueUrl: queueUrl,
      MessageBody: 'x'.repeat(max - attributeBytes),
      MessageAttributes: attributes,
    });
    expect(fits.status).toBe(200);
    const over = await gw.json('SendMessage', {
      QueueUrl: queueUrl,
      MessageBody: 'x'.repeat(max - attributeBytes + 1),
      MessageAttributes: attributes,
    });
    expect(over.json['message']).toBe(
      `One or more parameters are invalid. Reason: Message must be shorter than ${max} bytes.`,
    );
  });

  it('returns the MD5 of body, attributes and system attributes', async () => {
    const gw = await gatewayWithQueue();
    const res = await gw.json('SendMessage', {
      QueueUrl: queueUrl,
      MessageBody: 'hello',
      MessageAttributes: { a: { DataType: 'String', StringValue: 'x' } },
      MessageSystemAttributes: {
        AWSTraceHeader: { DataType: 'String', StringValue: 'Root=1-5759e988-bd862e3fe1be46a994272793' },
      },
    });
    expect(res.json).toMatchObject({
      MD5OfMessageBody: md5OfMessageBody('hello'),
      MD5OfMessageAttributes: md5OfMessageAttributes({ a: { dataType: 'String', stringValue: 'x' } }),
      MD5OfMessageSystemAttributes: md5OfMessageAttributes({
        AWSTraceHeader: { dataType: 'String', stringValue: 'Root=1-5759e988-bd862e3fe1be46a994272793' },
      }),
    });
  });

  it('refuses a system attribute other than AWSTraceHeader', async () => {
    const gw = await gatewayWithQueue();
    const res = await gw.json('SendMessage', {
      QueueUrl: queueUrl,
      MessageBody: 'x',
      MessageSystemAttributes: { SenderId: { DataType: 'String', StringValue: 'me' } },
    });
    expect(res.headers['x-amzn-query-error']).toBe('InvalidParameterValue;Sender');
  });
});

describe('batch requests', () => {
  const entry = (id: string, body = 'b') => ({ Id: id, MessageBody: body });

  it.each([
    [[], 'EmptyBatchRequest', 'There should be at least one SendMessageBatchRequestEntry in the request.'],
    [
      Array.from({ length: 11 }, (_, i) => entry(`e${i}`)),
      'TooManyEntriesInBatchRequest',
      'Maximum number of entries per request are 10. You have sent 11.',
    ],
    [[entry('has space')], 'InvalidBatchEntryId', undefined],
    [[entry('x'.repeat(81))], 'InvalidBatchEntryId', undefined],
    [[entry('a'), entry('a')], 'BatchEntryIdsNotDistinct', 'Id a repeated.'],
  ])('refuses a malformed batch as a whole (%#: %s)', async (entries, name, message) => {
    const gw = await gatewayWithQueue();
    const res = await gw.json('SendMessageBatch', { QueueUrl: queueUrl, Entries: entries });
    expect(res.status).toBe(400);
    expect(res.json['__type']).toBe(`com.amazonaws.sqs#${name}`);
    expect(res.headers['x-amzn-query-error']).toBe(`AWS.SimpleQueueService.${name};Sender`);
    if (message !== undefined) expect(res.json['message']).toBe(message);
    expect(gw.fake.calls.some((c) => c.method === 'sendMessages')).toBe(false);
  });

  it('counts attribute bytes toward the batch limit (trap 10)', async () => {
    const gw = await gatewayWithQueue();
    const big = Buffer.alloc(300_000, 7).toString('base64');
    const entries = Array.from({ length: 4 }, (_, i) => ({
      Id: `e${i}`,
      MessageBody: 'tiny',
      MessageAttributes: { blob: { DataType: 'Binary', BinaryValue: big } },
    }));
    const res = await gw.json('SendMessageBatch', { QueueUrl: queueUrl, Entries: entries });
    expect(res.status).toBe(400);
    expect(res.headers['x-amzn-query-error']).toBe('AWS.SimpleQueueService.BatchRequestTooLong;Sender');
    expect(res.json['message']).toMatch(
      /^Batch requests cannot be longer than 1048576 bytes. You have sent 12\d{5} bytes\.$/,
    );
  });

  // The batch total is taken over what was sent, before entries are validated: an attribute that
  // carries both a StringValue and a BinaryValue counts both (as every size check counts name,
  // type and each value), and only then does its entry fail for having two values.
  it('counts every value an attribute carries toward the batch limit, string and binary alike', async () => {
    const gw = await gatewayWithQueue();
    const max = sqsLimits.batchSizeBytesMax.value;
    const valueBytes = 1_000;
    const attribute = {
      DataType: 'Binary',
      StringValue: 's'.repeat(valueBytes),
      BinaryValue: Buffer.alloc(valueBytes, 1).toString('base64'),
    };
    const attributeBytes = 'both'.length + 'Binary'.length + 2 * valueBytes;
    const send = (bodyBytes: number) =>
      gw.json('SendMessageBatch', {
        QueueUrl: queueUrl,
        Entries: [{ Id: 'e', MessageBody: 'x'.repeat(bodyBytes), MessageAttributes: { both: attribute } }],
      });

    const over = await send(max - attributeBytes + 1);
    expect(over.headers['x-amzn-query-error']).toBe('AWS.SimpleQueueService.BatchRequestTooLong;Sender');
    expect(over.json['message']).toBe(
      `Batch requests cannot be longer than ${max} bytes. You have sent ${max + 1} bytes.`,
    );

    const atLimit = await send(max - attributeBytes);
    expect(atLimit.status).toBe(200);
    expect(atLimit.json['Failed']).toEqual([
      {
        Id: 'e',
        SenderFault: true,
        Code: 'InvalidParameterValue',
        Message: "Message (user) attribute 'both' must have a single value.",
      },
    ]);
  });

  it('reports an invalid entry as Failed and sends the others', async () => {
    const gw = await gatewayWithQueue();
    const res = await gw.json('SendMessageBatch', {
      QueueUrl: queueUrl,
      Entries: [entry('good'), entry('bad', 'nul\u0000'), entry('good2')],
    });
    expect(res.status).toBe(200);
    expect((res.json['Successful'] as Array<{ Id: string }>).map((e) => e.Id)).toEqual(['good', 'good2']);
    expect(res.json['Failed']).toEqual([
      { Id: 'bad', SenderFault: true, Code: 'InvalidMessageContents', Message: expect.stringContaining("'#x0'") },
    ]);
    expect(gw.fake.queues.get('orders')?.messages).toHaveLength(2);
  });

  it('answers a queue deleted under a batch with an error, never a 200 (trap 12)', async () => {
    const gw = await gatewayWithQueue();
    gw.fake.sendMessages = async (_name, entries) =>
      entries.map((e) => ({ entryId: e.entryId, error: new QueueDoesNotExistError('orders') }));
    const res = await gw.json('SendMessageBatch', { QueueUrl: queueUrl, Entries: [entry('a'), entry('b')] });
    expect(res.status).toBe(400);
    expect(res.json['__type']).toBe('com.amazonaws.sqs#QueueDoesNotExist');
  });

  it('reports a bad receipt handle of DeleteMessageBatch as a Failed entry', async () => {
    const gw = await gatewayWithQueue();
    const res = await gw.json('DeleteMessageBatch', {
      QueueUrl: queueUrl,
      Entries: [
        { Id: 'a', ReceiptHandle: 'bogus' },
        { Id: 'b', ReceiptHandle: 'rh-m-1' },
      ],
    });
    expect(res.status).toBe(200);
    expect(res.json['Successful']).toEqual([{ Id: 'b' }]);
    expect(res.json['Failed']).toEqual([
      { Id: 'a', SenderFault: true, Code: 'ReceiptHandleIsInvalid', Message: expect.any(String) },
    ]);
  });

  it('reports an out-of-range visibility timeout of one entry as Failed', async () => {
    const gw = await gatewayWithQueue();
    const res = await gw.json('ChangeMessageVisibilityBatch', {
      QueueUrl: queueUrl,
      Entries: [
        { Id: 'a', ReceiptHandle: 'rh-1', VisibilityTimeout: 50_000 },
        { Id: 'b', ReceiptHandle: 'rh-2', VisibilityTimeout: 5 },
      ],
    });
    expect(res.json['Successful']).toEqual([{ Id: 'b' }]);
    expect((res.json['Failed'] as Array<{ Code: string }>)[0]?.Code).toBe('InvalidParameterValue');
  });

  it('encodes batch results as flattened entries over the query protocol', async () => {
    const gw = await gatewayWithQueue();
    const res = await gw.query({
      Action: 'SendMessageBatch',
      QueueUrl: queueUrl,
      'SendMessageBatchRequestEntry.1.Id': 'one',
      'SendMessageBatchRequestEntry.1.MessageBody': 'first',
      'SendMessageBatchRequestEntry.1.MessageAttribute.1.Name': 'k',
      'SendMessageBatchRequestEntry.1.MessageAttribute.1.Value.DataType': 'String',
      'SendMessageBatchRequestEntry.1.MessageAttribute.1.Value.StringValue': 'v',
      'SendMessageBatchRequestEntry.2.Id': 'two',
      'SendMessageBatchRequestEntry.2.MessageBody': 'second',
    });
    expect(res.status).toBe(200);
    expect(xmlAll(res.body, 'Id')).toEqual(['one', 'two']);
    expect(res.body.match(/<SendMessageBatchResultEntry>/g)).toHaveLength(2);
    expect(xmlText(res.body, 'MD5OfMessageAttributes')).toBe(
      md5OfMessageAttributes({ k: { dataType: 'String', stringValue: 'v' } }),
    );
  });
});

describe('failures below the gateway', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('turns a retryable queue-layer error into a 503 ServiceUnavailable', async () => {
    const gw = await gatewayWithQueue();
    gw.fake.failures.set('sendMessages', new NoLeaderForTest('no leader is known'));
    const res = await gw.json('SendMessage', { QueueUrl: queueUrl, MessageBody: 'x' });
    expect(res.status).toBe(503);
    expect(res.headers['x-amzn-query-error']).toBe('ServiceUnavailable;Receiver');
    expect(res.json['message']).toContain('no leader is known');
  });

  it('turns an unexpected exception into a logged 500 InternalError', async () => {
    const logger = recordingLogger();
    const gw = makeGateway({ logger });
    gw.fake.failures.set('listQueues', new TypeError('boom'));
    const res = await gw.query({ Action: 'ListQueues' });
    expect(res.status).toBe(500);
    expect(xmlText(res.body, 'Type')).toBe('Receiver');
    expect(logger.lines.some((l) => l.level === 'error')).toBe(true);
  });

  it('answers a request that never completes with a 503 at its deadline instead of hanging', async () => {
    vi.useFakeTimers();
    const gw = await gatewayWithQueue();
    gw.fake.failures.set('purgeQueue', 'hang');
    const pending = gw.json('PurgeQueue', { QueueUrl: queueUrl });
    await vi.advanceTimersByTimeAsync(raftqLimits.gatewayRequestTimeoutMs.value + 1);
    const res = await pending;
    expect(res.status).toBe(503);
    expect(res.json['message']).toMatch(/outcome is unknown/);
  });
});

describe('cluster conditions', () => {
  it.each([
    ['no leader', () => new NoLeaderError('n1', 2_000)],
    ['an unknown proposal outcome', () => new ProposalOutcomeUnknownError('txn-1', 'the proposal timed out')],
  ])('answers %s with a retryable 503 in both protocols', async (_what, make) => {
    const gw = await gatewayWithQueue();
    gw.fake.failures.set('sendMessages', make() as Error);
    const json = await gw.json('SendMessage', { QueueUrl: queueUrl, MessageBody: 'x' });
    expect(json.status).toBe(503);
    expect(json.headers['x-amzn-query-error']).toBe('ServiceUnavailable;Receiver');
    const xml = await gw.query({ Action: 'SendMessage', QueueUrl: queueUrl, MessageBody: 'x' });
    expect(xml.status).toBe(503);
    expect(xmlText(xml.body, 'Code')).toBe('ServiceUnavailable');
  });
});

describe('dispatch', () => {
  // A newer model (RAFTQ_SQS_SERVICE_MODEL) may name an operation raftq does not serve: it is as
  // unknown as a name in no model, in each protocol's words, and never reaches the queue layer.
  it('refuses an operation the model names but the gateway does not serve, in either protocol', async () => {
    const raw = JSON.parse(readFileSync(resolveSqsServiceModelPath({}), 'utf8')) as {
      operations: Record<string, unknown>;
    };
    raw.operations['PauseQueue'] = {
      name: 'PauseQueue',
      input: { shape: 'GetQueueUrlRequest' },
      output: { shape: 'GetQueueUrlResult' },
    };
    const gw = makeGateway({ model: new SqsServiceModel(raw) });
    const json = await gw.json('PauseQueue', { QueueName: 'orders' });
    expect(json.status).toBe(400);
    expect(json.json['__type']).toBe('com.amazonaws.sqs#UnknownOperationException');
    expect(json.json['message']).toBe('The action PauseQueue is not valid for this endpoint.');
    const query = await gw.query({ Action: 'PauseQueue', QueueName: 'orders' });
    expect(query.status).toBe(400);
    expect(xmlText(query.body, 'Code')).toBe('InvalidAction');
    expect(xmlText(query.body, 'Message')).toBe('The action PauseQueue is not valid for this endpoint.');
    expect(gw.fake.calls).toEqual([]);
  });
});

describe('protocol detection', () => {
  it('answers a JSON-typed body without X-Amz-Target in JSON', async () => {
    const gw = makeGateway();
    const res = await gw.handler.handle(
      {
        method: 'POST',
        rawUrl: '/',
        rawHeaders: ['Content-Type', 'application/x-amz-json-1.0'],
        body: Buffer.from('{}'),
      },
      new AbortController(),
    );
    expect(res.status).toBe(400);
    expect(res.headers['content-type']).toBe('application/x-amz-json-1.0');
    expect(res.headers['x-amzn-query-error']).toBe('InvalidAction;Sender');
  });
});
