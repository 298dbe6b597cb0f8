import { connect } from 'node:net';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startInProcessGateway, type InProcessGateway } from './support/in-process-gateway.js';
import { xmlText } from './support/gateway-harness.js';

/**
 * Hostile bytes over a real socket to a real QueueService: each is refused with an AWS error in
 * the request's protocol, and nothing is stored or changed (a receive afterwards finds nothing).
 */

let gateway: InProcessGateway;
let queueCount = 0;

beforeAll(async () => {
  gateway = await startInProcessGateway();
});

afterAll(async () => {
  await gateway?.close();
});

interface HttpAnswer {
  readonly status: number;
  readonly headers: Record<string, string | string[] | undefined>;
  readonly text: string;
}

async function post(headers: Record<string, string>, body: Buffer | string): Promise<HttpAnswer> {
  const res = await request(`${gateway.endpoint}/`, { method: 'POST', headers, body });
  return { status: res.statusCode, headers: res.headers, text: await res.body.text() };
}

function postJson(action: string, body: Buffer | string | object): Promise<HttpAnswer> {
  const bytes = typeof body === 'string' || Buffer.isBuffer(body) ? body : JSON.stringify(body);
  return post({ 'x-amz-target': `AmazonSQS.${action}`, 'content-type': 'application/x-amz-json-1.0' }, bytes);
}

function postForm(body: Buffer | string | Record<string, string>): Promise<HttpAnswer> {
  const bytes = typeof body === 'string' || Buffer.isBuffer(body) ? body : new URLSearchParams(body).toString();
  return post({ 'content-type': 'application/x-www-form-urlencoded' }, bytes);
}

async function newQueue(): Promise<string> {
  const res = await postJson('CreateQueue', { QueueName: `hostile-${++queueCount}` });
  expect(res.status).toBe(200);
  return (JSON.parse(res.text) as { QueueUrl: string }).QueueUrl;
}

interface Received {
  readonly Body: string;
  readonly MessageAttributes?: Record<string, { DataType: string; StringValue?: string; BinaryValue?: string }>;
}

async function receiveAll(queueUrl: string): Promise<Received[]> {
  const res = await postJson('ReceiveMessage', {
    QueueUrl: queueUrl,
    MaxNumberOfMessages: 10,
    MessageAttributeNames: ['All'],
  });
  expect(res.status).toBe(200);
  return (JSON.parse(res.text) as { Messages?: Received[] }).Messages ?? [];
}

function jsonError(res: HttpAnswer): { type: string; message: string; queryError: unknown } {
  const body = JSON.parse(res.text) as { __type: string; message: string };
  return { type: body.__type, message: body.message, queryError: res.headers['x-amzn-query-error'] };
}

const invalidUtf8 = [
  ['a byte that never occurs in UTF-8', [0xff]],
  ['a stray continuation byte', [0x80]],
  ['a lead byte without its continuation', [0xc3, 0x28]],
  ['an overlong encoding of "/"', [0xc0, 0xaf]],
  ['an encoded surrogate', [0xed, 0xa0, 0x80]],
  ['a code point above U+10FFFF', [0xf4, 0x90, 0x80, 0x80]],
] as const;

describe('a body that is not UTF-8', () => {
  it.each(invalidUtf8)(
    'is refused over JSON with SerializationException (%s), nothing stored',
    async (_what, bytes) => {
      const queueUrl = await newQueue();
      const body = Buffer.concat([
        Buffer.from(`{"QueueUrl":${JSON.stringify(queueUrl)},"MessageBody":"ab`),
        Buffer.from(bytes),
        Buffer.from('cd"}'),
      ]);
      const res = await postJson('SendMessage', body);
      expect(res.status).toBe(400);
      const error = jsonError(res);
      expect(error.type).toBe('com.amazonaws.sqs#SerializationException');
      expect(error.queryError).toBe('SerializationException;Sender');
      expect(error.message).toContain('not valid UTF-8');
      expect(await receiveAll(queueUrl)).toEqual([]);
    },
  );

  it.each(invalidUtf8)(
    'is refused in a form body with MalformedQueryString (%s, raw), nothing stored',
    async (_what, bytes) => {
      const queueUrl = await newQueue();
      const body = Buffer.concat([
        Buffer.from(`Action=SendMessage&QueueUrl=${encodeURIComponent(queueUrl)}&MessageBody=ab`),
        Buffer.from(bytes),
        Buffer.from('cd'),
      ]);
      const res = await postForm(body);
      expect(res.status).toBe(404);
      expect(xmlText(res.text, 'Code')).toBe('MalformedQueryString');
      expect(xmlText(res.text, 'Message')).toContain('not valid UTF-8');
      expect(await receiveAll(queueUrl)).toEqual([]);
    },
  );

  it.each(invalidUtf8)(
    'is refused in a form body with MalformedQueryString (%s, percent-escaped), nothing stored',
    async (_what, bytes) => {
      const queueUrl = await newQueue();
      const escaped = [...bytes].map((b) => `%${b.toString(16).toUpperCase().padStart(2, '0')}`).join('');
      const res = await postForm(
        `Action=SendMessage&QueueUrl=${encodeURIComponent(queueUrl)}&MessageBody=ab${escaped}cd`,
      );
      expect(res.status).toBe(404);
      expect(xmlText(res.text, 'Code')).toBe('MalformedQueryString');
      expect(await receiveAll(queueUrl)).toEqual([]);
    },
  );

  it('is told apart from valid UTF-8, raw or escaped, which is stored byte for byte', async () => {
    const queueUrl = await newQueue();
    const text = 'é 😀 \ufffd \ufeff end';
    expect(
      (
        await postJson(
          'SendMessage',
          Buffer.from(JSON.stringify({ QueueUrl: queueUrl, MessageBody: `json ${text}` }), 'utf8'),
        )
      ).status,
    ).toBe(200);
    const rawForm = Buffer.concat([
      Buffer.from(`Action=SendMessage&QueueUrl=${encodeURIComponent(queueUrl)}&MessageBody=`),
      Buffer.from(`raw ${text}`, 'utf8'),
    ]);
    expect((await postForm(rawForm)).status).toBe(200);
    expect((await postForm({ Action: 'SendMessage', QueueUrl: queueUrl, MessageBody: `escaped ${text}` })).status).toBe(
      200,
    );
    const bodies = (await receiveAll(queueUrl)).map((m) => m.Body).sort();
    expect(bodies).toEqual([`escaped ${text}`, `json ${text}`, `raw ${text}`]);
  });
});

/** One request over its own connection, read to the end: the answer, or the socket error that cut it. */
function rawExchange(head: string, body: Buffer, isChunked: boolean): Promise<{ answer: string; error?: string }> {
  return new Promise((resolve) => {
    const socket = connect(gateway.port, '127.0.0.1');
    const received: Buffer[] = [];
    let error: string | undefined;
    socket.on('data', (chunk: Buffer) => received.push(chunk));
    socket.on('error', (err: NodeJS.ErrnoException) => (error = err.code ?? err.message));
    socket.on('close', () =>
      resolve({ answer: Buffer.concat(received).toString('utf8'), ...(error !== undefined ? { error } : {}) }),
    );
    socket.write(head);
    if (isChunked) {
      socket.write(`${body.byteLength.toString(16)}\r\n`);
      socket.write(body);
      socket.end('\r\n0\r\n\r\n');
    } else {
      socket.end(body);
    }
  });
}

function parseHttpAnswer(answer: string): HttpAnswer {
  const split = answer.indexOf('\r\n\r\n');
  const [statusLine = '', ...headerLines] = answer.slice(0, split).split('\r\n');
  const headers: Record<string, string> = {};
  for (const line of headerLines) {
    const colon = line.indexOf(':');
    headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  return { status: Number(statusLine.split(' ')[1]), headers, text: answer.slice(split + 4) };
}

describe('an 8 MiB body', () => {
  const eightMiB = 8 * 1_048_576;

  it.each([
    ['JSON', 'Content-Length'],
    ['JSON', 'chunked'],
    ['query', 'Content-Length'],
    ['query', 'chunked'],
  ] as const)(
    'is answered over %s (%s) with a 413 in the protocol, then the connection closes cleanly; nothing stored',
    async (protocol, framing) => {
      const queueUrl = await newQueue();
      const isJson = protocol === 'JSON';
      const body = isJson
        ? Buffer.from(`{"QueueUrl":${JSON.stringify(queueUrl)},"MessageBody":"${'a'.repeat(eightMiB)}"}`)
        : Buffer.from(
            `Action=SendMessage&QueueUrl=${encodeURIComponent(queueUrl)}&MessageBody=${'a'.repeat(eightMiB)}`,
          );
      const isChunked = framing === 'chunked';
      const head =
        'POST / HTTP/1.1\r\nHost: 127.0.0.1\r\n' +
        (isJson
          ? 'X-Amz-Target: AmazonSQS.SendMessage\r\nContent-Type: application/x-amz-json-1.0\r\n'
          : 'Content-Type: application/x-www-form-urlencoded\r\n') +
        (isChunked ? 'Transfer-Encoding: chunked\r\n' : `Content-Length: ${body.byteLength}\r\n`) +
        '\r\n';
      const { answer, error } = await rawExchange(head, body, isChunked);
      expect(error).toBeUndefined();
      const res = parseHttpAnswer(answer);
      expect(res.status).toBe(413);
      expect(res.headers['connection']).toBe('close');
      expect(Buffer.byteLength(res.text)).toBe(Number(res.headers['content-length']));
      if (isJson) {
        expect(jsonError(res)).toMatchObject({
          type: 'com.amazonaws.sqs#RequestEntityTooLarge',
          queryError: 'RequestEntityTooLarge;Sender',
        });
      } else {
        expect(xmlText(res.text, 'Code')).toBe('RequestEntityTooLarge');
        expect(xmlText(res.text, 'Type')).toBe('Sender');
      }
      expect(await receiveAll(queueUrl)).toEqual([]);
      // The server goes on serving: a normal send right after is stored, and only it.
      expect((await postJson('SendMessage', { QueueUrl: queueUrl, MessageBody: 'after' })).status).toBe(200);
      expect((await receiveAll(queueUrl)).map((m) => m.Body)).toEqual(['after']);
    },
  );
});

describe('half of a query-protocol name/value pair', () => {
  it.each([
    ['MessageAttribute.N.Name without its Value', { 'MessageAttribute.1.Name': 'color' }, 'MessageAttribute.1.Value'],
    [
      'MessageAttribute.N.Value without its Name',
      { 'MessageAttribute.1.Value.DataType': 'String', 'MessageAttribute.1.Value.StringValue': 'red' },
      'MessageAttribute.1.Name',
    ],
    [
      'MessageAttribute.N.Value as a bare string',
      { 'MessageAttribute.1.Name': 'color', 'MessageAttribute.1.Value': 'red' },
      'MessageAttribute.1.Value',
    ],
    [
      'a second attribute without its Value',
      {
        'MessageAttribute.1.Name': 'a',
        'MessageAttribute.1.Value.DataType': 'String',
        'MessageAttribute.1.Value.StringValue': 'x',
        'MessageAttribute.2.Name': 'b',
      },
      'MessageAttribute.2.Value',
    ],
    [
      'MessageSystemAttribute.N.Name without its Value',
      { 'MessageSystemAttribute.1.Name': 'AWSTraceHeader' },
      'MessageSystemAttribute.1.Value',
    ],
  ])('is refused in SendMessage (%s) with MissingParameter, nothing stored', async (_what, params, missing) => {
    const queueUrl = await newQueue();
    const res = await postForm({ Action: 'SendMessage', QueueUrl: queueUrl, MessageBody: 'hello', ...params });
    expect(res.status).toBe(400);
    expect(xmlText(res.text, 'Code')).toBe('MissingParameter');
    expect(xmlText(res.text, 'Message')).toBe(`The request must contain the parameter ${missing}.`);
    expect(await receiveAll(queueUrl)).toEqual([]);
  });

  it('is refused in a SendMessageBatch entry with MissingParameter, no entry stored', async () => {
    const queueUrl = await newQueue();
    const res = await postForm({
      Action: 'SendMessageBatch',
      QueueUrl: queueUrl,
      'SendMessageBatchRequestEntry.1.Id': 'good',
      'SendMessageBatchRequestEntry.1.MessageBody': 'fine',
      'SendMessageBatchRequestEntry.2.Id': 'half',
      'SendMessageBatchRequestEntry.2.MessageBody': 'hello',
      'SendMessageBatchRequestEntry.2.MessageAttribute.1.Name': 'color',
    });
    expect(res.status).toBe(400);
    expect(xmlText(res.text, 'Code')).toBe('MissingParameter');
    expect(xmlText(res.text, 'Message')).toBe(
      'The request must contain the parameter SendMessageBatchRequestEntry.2.MessageAttribute.1.Value.',
    );
    expect(await receiveAll(queueUrl)).toEqual([]);
  });

  it('is refused in CreateQueue (Attribute.N.Name, Tag.N.Key) and no queue is created', async () => {
    for (const [params, missing] of [
      [{ 'Attribute.1.Name': 'DelaySeconds' }, 'Attribute.1.Value'],
      [{ 'Attribute.1.Value': '5' }, 'Attribute.1.Name'],
      [{ 'Tag.1.Key': 'team' }, 'Tag.1.Value'],
      [{ 'Tag.1.Value': 'a' }, 'Tag.1.Key'],
    ] as const) {
      const name = `hostile-create-${++queueCount}`;
      const res = await postForm({ Action: 'CreateQueue', QueueName: name, ...params });
      expect(res.status, missing).toBe(400);
      expect(xmlText(res.text, 'Message')).toBe(`The request must contain the parameter ${missing}.`);
      const lookup = await postJson('GetQueueUrl', { QueueName: name });
      expect(jsonError(lookup).type).toBe('com.amazonaws.sqs#QueueDoesNotExist');
    }
  });

  it('is refused in SetQueueAttributes and TagQueue, the queue unchanged', async () => {
    const queueUrl = await newQueue();
    const set = await postForm({
      Action: 'SetQueueAttributes',
      QueueUrl: queueUrl,
      'Attribute.1.Name': 'VisibilityTimeout',
    });
    expect(xmlText(set.text, 'Message')).toBe('The request must contain the parameter Attribute.1.Value.');
    const tag = await postForm({
      Action: 'TagQueue',
      QueueUrl: queueUrl,
      'Tag.1.Key': 'team',
      'Tag.2.Key': 'env',
      'Tag.2.Value': 'prod',
    });
    expect(xmlText(tag.text, 'Message')).toBe('The request must contain the parameter Tag.1.Value.');
    const attributes = JSON.parse(
      (await postJson('GetQueueAttributes', { QueueUrl: queueUrl, AttributeNames: ['VisibilityTimeout'] })).text,
    ) as { Attributes: Record<string, string> };
    expect(attributes.Attributes).toEqual({ VisibilityTimeout: '30' });
    const tags = JSON.parse((await postJson('ListQueueTags', { QueueUrl: queueUrl })).text) as {
      Tags?: Record<string, string>;
    };
    expect(tags.Tags ?? {}).toEqual({});
  });

  it('has a JSON counterpart: a map key whose value is null is a SerializationException, nothing stored', async () => {
    const queueUrl = await newQueue();
    const res = await postJson('SendMessage', {
      QueueUrl: queueUrl,
      MessageBody: 'hello',
      MessageAttributes: { color: null },
    });
    expect(res.status).toBe(400);
    expect(jsonError(res).type).toBe('com.amazonaws.sqs#SerializationException');
    expect(jsonError(res).message).toContain('MessageAttributes.color');
    expect(await receiveAll(queueUrl)).toEqual([]);
  });
});

interface AttributeCase {
  readonly DataType: string;
  readonly StringValue?: string;
  readonly BinaryValue?: string;
}

/** The message-attribute value cases a client can get wrong, and AWS's wording for each. */
const attributeCases: ReadonlyArray<
  readonly [string, 'MessageAttributes' | 'MessageSystemAttributes', string, AttributeCase, string]
> = [
  [
    'String with both values',
    'MessageAttributes',
    'color',
    { DataType: 'String', StringValue: 'red', BinaryValue: 'AAEC' },
    "Message (user) attribute 'color' must have a single value.",
  ],
  [
    'Binary with both values',
    'MessageAttributes',
    'blob',
    { DataType: 'Binary', StringValue: 'red', BinaryValue: 'AAEC' },
    "Message (user) attribute 'blob' must have a single value.",
  ],
  [
    'String with BinaryValue',
    'MessageAttributes',
    'color',
    { DataType: 'String', BinaryValue: 'AAEC' },
    "Message (user) attribute 'color' with type 'String' must use field 'String'.",
  ],
  [
    'Number with BinaryValue',
    'MessageAttributes',
    'count',
    { DataType: 'Number.int', BinaryValue: 'AAEC' },
    "Message (user) attribute 'count' with type 'Number.int' must use field 'String'.",
  ],
  [
    'Binary with StringValue',
    'MessageAttributes',
    'blob',
    { DataType: 'Binary.gif', StringValue: 'AAEC' },
    "Message (user) attribute 'blob' with type 'Binary.gif' must use field 'Binary'.",
  ],
  [
    'AWSTraceHeader with both values',
    'MessageSystemAttributes',
    'AWSTraceHeader',
    { DataType: 'String', StringValue: 'Root=1-5759e988-bd862e3fe1be46a994272793', BinaryValue: 'AAEC' },
    "Message (system) attribute 'AWSTraceHeader' must have a single value.",
  ],
  [
    'AWSTraceHeader with BinaryValue',
    'MessageSystemAttributes',
    'AWSTraceHeader',
    { DataType: 'String', BinaryValue: 'AAEC' },
    "Message (system) attribute 'AWSTraceHeader' with type 'String' must use field 'String'.",
  ],
];

function queryAttribute(
  prefix: string,
  member: 'MessageAttributes' | 'MessageSystemAttributes',
  name: string,
  value: AttributeCase,
): Record<string, string> {
  const stem = `${prefix}${member === 'MessageAttributes' ? 'MessageAttribute' : 'MessageSystemAttribute'}.1`;
  return {
    [`${stem}.Name`]: name,
    [`${stem}.Value.DataType`]: value.DataType,
    ...(value.StringValue !== undefined ? { [`${stem}.Value.StringValue`]: value.StringValue } : {}),
    ...(value.BinaryValue !== undefined ? { [`${stem}.Value.BinaryValue`]: value.BinaryValue } : {}),
  };
}

describe('a message attribute value in the wrong field, or in both', () => {
  it.each(attributeCases)(
    'is refused in SendMessage over JSON (%s) with InvalidParameterValue, nothing stored',
    async (_what, member, name, value, message) => {
      const queueUrl = await newQueue();
      const res = await postJson('SendMessage', {
        QueueUrl: queueUrl,
        MessageBody: 'hello',
        [member]: { [name]: value },
      });
      expect(res.status).toBe(400);
      expect(jsonError(res)).toEqual({
        type: 'com.amazonaws.sqs#InvalidParameterValue',
        message,
        queryError: 'InvalidParameterValue;Sender',
      });
      expect(await receiveAll(queueUrl)).toEqual([]);
    },
  );

  it.each(attributeCases)(
    'is refused in SendMessage over query (%s) with InvalidParameterValue, nothing stored',
    async (_what, member, name, value, message) => {
      const queueUrl = await newQueue();
      const res = await postForm({
        Action: 'SendMessage',
        QueueUrl: queueUrl,
        MessageBody: 'hello',
        ...queryAttribute('', member, name, value),
      });
      expect(res.status).toBe(400);
      expect(xmlText(res.text, 'Code')).toBe('InvalidParameterValue');
      expect(xmlText(res.text, 'Message')).toBe(message.replace(/'/g, '&apos;'));
      expect(await receiveAll(queueUrl)).toEqual([]);
    },
  );

  it.each(attributeCases)(
    'fails its SendMessageBatch entry over JSON (%s), that entry not stored',
    async (_what, member, name, value, message) => {
      const queueUrl = await newQueue();
      const res = await postJson('SendMessageBatch', {
        QueueUrl: queueUrl,
        Entries: [
          { Id: 'bad', MessageBody: 'hello', [member]: { [name]: value } },
          { Id: 'good', MessageBody: 'fine' },
        ],
      });
      expect(res.status).toBe(200);
      const result = JSON.parse(res.text) as { Successful: Array<{ Id: string }>; Failed: unknown[] };
      expect(result.Successful.map((e) => e.Id)).toEqual(['good']);
      expect(result.Failed).toEqual([
        { Id: 'bad', SenderFault: true, Code: 'InvalidParameterValue', Message: message },
      ]);
      expect((await receiveAll(queueUrl)).map((m) => m.Body)).toEqual(['fine']);
    },
  );

  it.each(attributeCases)(
    'fails its SendMessageBatch entry over query (%s), that entry not stored',
    async (_what, member, name, value, message) => {
      const queueUrl = await newQueue();
      const res = await postForm({
        Action: 'SendMessageBatch',
        QueueUrl: queueUrl,
        'SendMessageBatchRequestEntry.1.Id': 'bad',
        'SendMessageBatchRequestEntry.1.MessageBody': 'hello',
        ...queryAttribute('SendMessageBatchRequestEntry.1.', member, name, value),
        'SendMessageBatchRequestEntry.2.Id': 'good',
        'SendMessageBatchRequestEntry.2.MessageBody': 'fine',
      });
      expect(res.status).toBe(200);
      const failed = /<BatchResultErrorEntry>(.*?)<\/BatchResultErrorEntry>/.exec(res.text)?.[1] ?? '';
      expect(xmlText(failed, 'Id')).toBe('bad');
      expect(xmlText(failed, 'Code')).toBe('InvalidParameterValue');
      expect(xmlText(failed, 'Message')).toBe(message.replace(/'/g, '&apos;'));
      expect((await receiveAll(queueUrl)).map((m) => m.Body)).toEqual(['fine']);
    },
  );

  it('keeps accepting one value in the field its type takes, stored as sent', async () => {
    const queueUrl = await newQueue();
    const attributes = {
      s: { DataType: 'String', StringValue: 'red' },
      n: { DataType: 'Number', StringValue: '7' },
      b: { DataType: 'Binary', BinaryValue: 'AAEC' },
    };
    expect(
      (await postJson('SendMessage', { QueueUrl: queueUrl, MessageBody: 'hello', MessageAttributes: attributes }))
        .status,
    ).toBe(200);
    const [message] = await receiveAll(queueUrl);
    expect(message?.MessageAttributes).toEqual(attributes);
  });
});
