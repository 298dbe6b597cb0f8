import fc from 'fast-check';
import { isUtf8 } from 'node:buffer';
import { describe, expect, it } from 'vitest';
import { defaultSqsServiceModel } from '../../src/sqs/service-model.js';
import { makeGateway, xmlText } from './support/gateway-harness.js';

/**
 * No input may crash the gateway: whatever arrives, the handler answers with a status and a body
 * in the request's protocol, and a 5xx only for a fault of ours (never for bad input).
 */

const model = defaultSqsServiceModel();
const actions = model.operationNames();
const keyParts = [
  'Action',
  'QueueUrl',
  'QueueName',
  'MessageBody',
  'Attribute',
  'MessageAttribute',
  'SendMessageBatchRequestEntry',
  'DeleteMessageBatchRequestEntry',
  'Tag',
  'TagKey',
  'AttributeName',
  'Name',
  'Value',
  'Key',
  'Id',
  'DataType',
  'StringValue',
  'BinaryValue',
  'ReceiptHandle',
  'MaxNumberOfMessages',
  'DelaySeconds',
  '1',
  '2',
  '0',
  '-1',
  '999999',
  'member',
];

const queryKey = fc.array(fc.constantFrom(...keyParts), { minLength: 1, maxLength: 5 }).map((parts) => parts.join('.'));
const queryValue = fc.oneof(
  fc.string(),
  fc.constantFrom(...actions),
  fc.constantFrom('http://h/1/q', '%', '%ZZ', '%E0%A4%A', 'AAEC', '-5', '1e999', 'true', 'TRUE'),
);

const jsonValue = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: 'small' },
    fc.string(),
    fc.integer(),
    fc.double(),
    fc.boolean(),
    fc.constant(null),
    fc.array(tie('value'), { maxLength: 4 }),
    fc.dictionary(fc.string(), tie('value'), { maxKeys: 4 }),
  ),
})).value;

function isWellFormed(res: { status: number; body: string }): boolean {
  return (
    Number.isInteger(res.status) &&
    res.status >= 200 &&
    res.status < 600 &&
    typeof res.body === 'string' &&
    res.body.length > 0
  );
}

describe('the gateway under arbitrary input', () => {
  it('answers any query-protocol parameters without crashing', async () => {
    const gw = makeGateway();
    await gw.json('CreateQueue', { QueueName: 'q' });
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.tuple(queryKey, queryValue, fc.boolean()), { maxLength: 12 }),
        fc.constantFrom(...actions),
        async (pairs, action) => {
          const encoded = [
            `Action=${action}`,
            ...pairs.map(([k, v, isRaw]) => `${encodeURIComponent(k)}=${isRaw ? v : encodeURIComponent(v)}`),
          ].join('&');
          const res = await gw.query(encoded);
          expect(isWellFormed(res)).toBe(true);
          expect(res.status).not.toBe(500);
          expect(res.body.startsWith('<?xml')).toBe(true);
        },
      ),
      { numRuns: 400 },
    );
  });

  it('answers any JSON body for any target without crashing', async () => {
    const gw = makeGateway();
    await gw.json('CreateQueue', { QueueName: 'q' });
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...actions),
        fc.dictionary(
          fc.constantFrom(
            'QueueUrl',
            'QueueName',
            'MessageBody',
            'Entries',
            'Attributes',
            'MessageAttributes',
            'Tags',
            'TagKeys',
            'MaxNumberOfMessages',
            'ReceiptHandle',
            'AttributeNames',
            'Label',
          ),
          jsonValue,
        ),
        async (action, body) => {
          const res = await gw.json(action, body);
          expect(isWellFormed(res)).toBe(true);
          expect(res.status).not.toBe(500);
        },
      ),
      { numRuns: 400 },
    );
  });

  it('answers raw bytes as a body without crashing', async () => {
    const gw = makeGateway();
    await fc.assert(
      fc.asyncProperty(fc.uint8Array({ maxLength: 200 }), fc.boolean(), async (bytes, isJson) => {
        const res = await gw.handler.handle(
          {
            method: 'POST',
            rawUrl: '/',
            rawHeaders: isJson ? ['X-Amz-Target', 'AmazonSQS.SendMessage'] : [],
            body: Buffer.from(bytes),
          },
          new AbortController(),
        );
        expect(isWellFormed(res)).toBe(true);
        expect(res.status).not.toBe(500);
      }),
      { numRuns: 300 },
    );
  });
});

describe('message bodies as bytes', () => {
  // Bytes JSON carries raw inside a string: anything but '"', '\\' and control characters.
  const stringByte = fc.integer({ min: 0x20, max: 0xff }).filter((b) => b !== 0x22 && b !== 0x5c);

  it('stores exactly the text a JSON body spells, or refuses it and stores nothing', async () => {
    const gw = makeGateway();
    await gw.json('CreateQueue', { QueueName: 'q' });
    const messages = () => gw.fake.queues.get('q')?.messages ?? [];
    await fc.assert(
      fc.asyncProperty(fc.array(stringByte, { minLength: 1, maxLength: 24 }), async (bodyBytes) => {
        const before = messages().length;
        const raw = Buffer.concat([
          Buffer.from('{"QueueUrl":"http://h/1/q","MessageBody":"'),
          Buffer.from(bodyBytes),
          Buffer.from('"}'),
        ]);
        const res = await gw.handler.handle(
          {
            method: 'POST',
            rawUrl: '/',
            rawHeaders: ['X-Amz-Target', 'AmazonSQS.SendMessage', 'Content-Type', 'application/x-amz-json-1.0'],
            body: raw,
          },
          new AbortController(),
        );
        if (isUtf8(Buffer.from(bodyBytes))) {
          expect(res.status).toBe(200);
          expect(messages().at(-1)?.entry.body).toBe(Buffer.from(bodyBytes).toString('utf8'));
        } else {
          expect(res.status).toBe(400);
          expect(res.headers['x-amzn-query-error']).toBe('SerializationException;Sender');
          expect(messages()).toHaveLength(before);
        }
      }),
      { numRuns: 300 },
    );
  });

  it('stores exactly the text a form body spells, raw or escaped, or refuses it and stores nothing', async () => {
    const gw = makeGateway();
    await gw.json('CreateQueue', { QueueName: 'q' });
    const messages = () => gw.fake.queues.get('q')?.messages ?? [];
    const formByte = fc.integer({ min: 0x30, max: 0xff });
    await fc.assert(
      fc.asyncProperty(
        fc.array(formByte, { minLength: 1, maxLength: 24 }),
        fc.boolean(),
        async (bodyBytes, isEscaped) => {
          const before = messages().length;
          const value = isEscaped
            ? Buffer.from(bodyBytes.map((b) => `%${b.toString(16).padStart(2, '0')}`).join(''))
            : Buffer.from(bodyBytes);
          const res = await gw.handler.handle(
            {
              method: 'POST',
              rawUrl: '/',
              rawHeaders: ['Content-Type', 'application/x-www-form-urlencoded'],
              body: Buffer.concat([
                Buffer.from('Action=SendMessage&QueueUrl=http%3A%2F%2Fh%2F1%2Fq&MessageBody='),
                value,
              ]),
            },
            new AbortController(),
          );
          if (isUtf8(Buffer.from(bodyBytes))) {
            // Bytes from 0x30 up hold no '%', '+', '&' or '=': the raw form spells the body itself.
            expect(res.status).toBe(200);
            expect(messages().at(-1)?.entry.body).toBe(Buffer.from(bodyBytes).toString('utf8'));
          } else {
            expect(xmlText(res.body, 'Code')).toBe('MalformedQueryString');
            expect(messages()).toHaveLength(before);
          }
        },
      ),
      { numRuns: 300 },
    );
  });
});

describe('the query decoder under hostile sizes', () => {
  it('decodes a request claiming 40,000 batch entries in linear time, then refuses it', async () => {
    const gw = makeGateway();
    await gw.json('CreateQueue', { QueueName: 'q' });
    const parts = ['Action=SendMessageBatch', 'QueueUrl=http%3A%2F%2Fh%2F1%2Fq'];
    for (let i = 1; i <= 40_000; i++) {
      parts.push(
        `SendMessageBatchRequestEntry.${i}.Id=e${i}`,
        `SendMessageBatchRequestEntry.${i}.MessageAttribute.1.Name=a`,
        `SendMessageBatchRequestEntry.${i}.MessageAttribute.1.Value.DataType=String`,
      );
    }
    const startedMs = performance.now();
    const res = await gw.query(parts.join('&'));
    const elapsedMs = performance.now() - startedMs;
    expect(xmlText(res.body, 'Code')).toBe('AWS.SimpleQueueService.TooManyEntriesInBatchRequest');
    // Quadratic decoding of this request takes minutes; linear takes well under a second. The bound
    // sits between the two with room for a machine many times slower than usual.
    expect(elapsedMs).toBeLessThan(60_000);
  }, 180_000);
});
