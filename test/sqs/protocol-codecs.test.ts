import { describe, expect, it } from 'vitest';
import { SqsApiError } from '../../src/sqs/errors.js';
import { decodeJsonRequest, encodeJsonResponse, jsonBodyText } from '../../src/sqs/json-protocol.js';
import {
  decodeQueryRequest,
  encodeXmlResponse,
  escapeXml,
  formBodyText,
  parseFormParameters,
} from '../../src/sqs/query-protocol.js';
import { defaultSqsServiceModel } from '../../src/sqs/service-model.js';
import { sqsActions } from '../../src/sqs/sqs-actions.js';

const model = defaultSqsServiceModel();

describe('the service model', () => {
  it('is routed exactly: every operation of the model has an action and every action an operation', () => {
    expect(Object.keys(sqsActions).sort()).toEqual(model.operationNames().sort());
    expect(model.operationNames()).toHaveLength(23);
  });
});

describe('query decoding', () => {
  it('decodes flattened lists, maps of structures and blobs by their query names', () => {
    const params = parseFormParameters(
      [
        'QueueUrl=http%3A%2F%2Fh%2F1%2Fq',
        'MessageBody=a+b%26c',
        'DelaySeconds=3',
        'MessageAttribute.1.Name=bin',
        'MessageAttribute.1.Value.DataType=Binary',
        'MessageAttribute.1.Value.BinaryValue=AAEC',
        'MessageAttribute.2.Name=s',
        'MessageAttribute.2.Value.DataType=String',
        'MessageAttribute.2.Value.StringValue=x',
        'MessageSystemAttribute.1.Name=AWSTraceHeader',
        'MessageSystemAttribute.1.Value.DataType=String',
        'MessageSystemAttribute.1.Value.StringValue=Root%3D1',
      ].join('&'),
    );
    expect(decodeQueryRequest(model, 'SendMessageRequest', params)).toEqual({
      QueueUrl: 'http://h/1/q',
      MessageBody: 'a b&c',
      DelaySeconds: 3,
      MessageAttributes: {
        bin: { DataType: 'Binary', BinaryValue: new Uint8Array([0, 1, 2]) },
        s: { DataType: 'String', StringValue: 'x' },
      },
      MessageSystemAttributes: { AWSTraceHeader: { DataType: 'String', StringValue: 'Root=1' } },
    });
  });

  it('orders list items by index, not by arrival, and accepts the member-name spellings', () => {
    const params = parseFormParameters(
      'AttributeName.2=B&AttributeName.10=C&AttributeName.1=A&MessageAttributeNames.member.1=x',
    );
    expect(decodeQueryRequest(model, 'ReceiveMessageRequest', params)).toEqual({
      AttributeNames: ['A', 'B', 'C'],
      MessageAttributeNames: ['x'],
    });
  });

  it('decodes tag maps and tag key lists', () => {
    expect(
      decodeQueryRequest(
        model,
        'TagQueueRequest',
        parseFormParameters('QueueUrl=u&Tag.1.Key=k1&Tag.1.Value=v1&Tag.2.Key=k2&Tag.2.Value='),
      ),
    ).toEqual({ QueueUrl: 'u', Tags: { k1: 'v1', k2: '' } });
    expect(
      decodeQueryRequest(model, 'UntagQueueRequest', parseFormParameters('QueueUrl=u&TagKey.1=k1&TagKey.2=k2')),
    ).toEqual({ QueueUrl: 'u', TagKeys: ['k1', 'k2'] });
  });

  it.each([
    ['TagQueueRequest', 'Tag.1.Key=k1', 'Tag.1.Value'],
    ['TagQueueRequest', 'Tag.1.Key=k1&Tag.1.Value=v1&Tag.2.Value=v2', 'Tag.2.Key'],
    ['CreateQueueRequest', 'Attribute.1.Name=DelaySeconds', 'Attribute.1.Value'],
    ['CreateQueueRequest', 'Attribute.1.Nmae=DelaySeconds&Attribute.1.Value=5', 'Attribute.1.Name'],
    ['SendMessageRequest', 'MessageAttribute.1.Name=a', 'MessageAttribute.1.Value'],
    ['SendMessageRequest', 'MessageAttribute.1.Name=a&MessageAttribute.1.Value=x', 'MessageAttribute.1.Value'],
    ['SendMessageRequest', 'MessageAttributes.1.Name=a', 'MessageAttributes.1.Value'],
    ['SendMessageRequest', 'MessageSystemAttribute.1.Value.DataType=String', 'MessageSystemAttribute.1.Name'],
    [
      'SendMessageBatchRequest',
      'SendMessageBatchRequestEntry.1.Id=a&SendMessageBatchRequestEntry.1.MessageAttribute.3.Name=x',
      'SendMessageBatchRequestEntry.1.MessageAttribute.3.Value',
    ],
  ])('refuses a map entry with only half of its pair (%s %s) with MissingParameter', (shape, query, missing) => {
    let err: unknown;
    try {
      decodeQueryRequest(model, shape, parseFormParameters(`QueueUrl=u&${query}`));
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(SqsApiError);
    expect((err as SqsApiError).code).toBe('MissingParameter');
    expect((err as SqsApiError).message).toBe(`The request must contain the parameter ${missing}.`);
  });

  it('reads a form body only if it is UTF-8', () => {
    expect(formBodyText(Buffer.from('MessageBody=é😀', 'utf8'))).toBe('MessageBody=é😀');
    expect(() => formBodyText(Buffer.from([0x61, 0x3d, 0xe9]))).toThrow(/not valid UTF-8 \(byte 0xE9 at offset 2\)/);
  });
});

describe('JSON decoding', () => {
  it('decodes base64 blobs and ignores members the model does not have', () => {
    const input = decodeJsonRequest(
      model,
      'SendMessageRequest',
      JSON.stringify({
        QueueUrl: 'u',
        MessageBody: 'b',
        Unknown: 1,
        MessageAttributes: { a: { DataType: 'Binary', BinaryValue: 'AAEC' } },
      }),
    );
    expect(input).toEqual({
      QueueUrl: 'u',
      MessageBody: 'b',
      MessageAttributes: { a: { DataType: 'Binary', BinaryValue: new Uint8Array([0, 1, 2]) } },
    });
  });

  it('refuses a map key whose value is null rather than dropping it', () => {
    expect(() =>
      decodeJsonRequest(
        model,
        'SendMessageRequest',
        JSON.stringify({ QueueUrl: 'u', MessageBody: 'b', MessageAttributes: { a: null } }),
      ),
    ).toThrow('Value for MessageAttributes.a must be a value, not null.');
    expect(() =>
      decodeJsonRequest(model, 'TagQueueRequest', JSON.stringify({ QueueUrl: 'u', Tags: { team: null } })),
    ).toThrow('Value for Tags.team must be a value, not null.');
  });

  it('reads a body only if it is UTF-8, keeping a byte-order mark', () => {
    expect(jsonBodyText(Buffer.from('\ufeff{"a":"é"}', 'utf8'))).toBe('\ufeff{"a":"é"}');
    expect(() => jsonBodyText(Buffer.from([0x7b, 0x22, 0xc0, 0xaf, 0x22, 0x7d]))).toThrow(
      'The request body is not valid JSON: it is not valid UTF-8 (byte 0xC0 at offset 2).',
    );
  });
});

describe('response encoding', () => {
  const output = {
    Messages: [
      {
        MessageId: 'm1',
        ReceiptHandle: 'r<1>',
        MD5OfBody: 'x',
        Body: 'a & b\r\n',
        Attributes: { SenderId: 's' },
        MessageAttributes: { k: { DataType: 'Binary', BinaryValue: new Uint8Array([255]) } },
      },
    ],
  };

  it('writes XML with flattened messages, attribute maps and escaped text', () => {
    const xml = encodeXmlResponse(model, 'ReceiveMessage', 'ReceiveMessageResult', output, 'rid');
    expect(xml).toContain(
      '<ReceiveMessageResult><Message><MessageId>m1</MessageId><ReceiptHandle>r&lt;1&gt;</ReceiptHandle>',
    );
    expect(xml).toContain('<Body>a &amp; b&#xD;\n</Body>');
    expect(xml).toContain('<Attribute><Name>SenderId</Name><Value>s</Value></Attribute>');
    expect(xml).toContain(
      '<MessageAttribute><Name>k</Name><Value><BinaryValue>/w==</BinaryValue><DataType>Binary</DataType></Value></MessageAttribute>',
    );
    expect(xml).toContain('<ResponseMetadata><RequestId>rid</RequestId></ResponseMetadata></ReceiveMessageResponse>');
  });

  it('writes JSON with blobs in base64', () => {
    const json = JSON.parse(encodeJsonResponse(model, 'ReceiveMessageResult', output)) as typeof output;
    expect(json.Messages[0]?.MessageAttributes.k.BinaryValue).toBe('/w==');
  });

  it('writes an empty result element for an action without output members', () => {
    expect(encodeXmlResponse(model, 'DeleteQueue', undefined, {}, 'r')).toContain(
      '<DeleteQueueResponse xmlns="http://queue.amazonaws.com/doc/2012-11-05/"><ResponseMetadata>',
    );
  });

  it('never writes a character XML 1.0 forbids', () => {
    expect(escapeXml('a\u0001b\uffff')).toBe('a\ufffdb\ufffd');
  });
});

describe('docs/COMPATIBILITY.md', () => {
  it('has a row for every action of the model', async () => {
    const { readFileSync } = await import('node:fs');
    const doc = readFileSync(new URL('../../docs/COMPATIBILITY.md', import.meta.url), 'utf8');
    const missing = model.operationNames().filter((name) => !new RegExp(`^\\|[^|\\n]*\\b${name}\\b`, 'm').test(doc));
    expect(missing).toEqual([]);
  });
});
