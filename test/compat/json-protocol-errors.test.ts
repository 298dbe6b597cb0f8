import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSqsEndpoint, type SqsEndpoint } from '../sqs/support/sqs-endpoint.js';

/**
 * The JSON 1.0 protocol's answers to requests that never reach an action: an X-Amz-Target that
 * names no SQS operation is the service framework's UnknownOperationException (HTTP 400), with the
 * query-compatible code InvalidAction in x-amzn-query-error; a body that is not JSON is a
 * SerializationException.
 */

let endpoint: SqsEndpoint;

beforeAll(async () => {
  endpoint = await startSqsEndpoint();
});

afterAll(async () => {
  await endpoint?.close();
});

async function post(
  headers: Record<string, string>,
  body: string,
): Promise<{ status: number; queryError: string | null; json: { __type?: string; message?: string } }> {
  const res = await fetch(`${endpoint.endpoint}/`, { method: 'POST', headers, body });
  return {
    status: res.status,
    queryError: res.headers.get('x-amzn-query-error'),
    json: (await res.json()) as { __type?: string },
  };
}

const jsonHeaders = { 'content-type': 'application/x-amz-json-1.0' };

describe('JSON protocol errors before an action', () => {
  it('answers an unknown operation in X-Amz-Target with UnknownOperationException, HTTP 400', async () => {
    const res = await post({ ...jsonHeaders, 'x-amz-target': 'AmazonSQS.DoTheThing' }, '{}');
    expect(res.status).toBe(400);
    expect(res.json.__type?.split('#').pop()).toBe('UnknownOperationException');
    expect(res.queryError).toBe('InvalidAction;Sender');
  });

  it('answers an X-Amz-Target of another service with UnknownOperationException', async () => {
    const res = await post({ ...jsonHeaders, 'x-amz-target': 'DynamoDB_20120810.ListTables' }, '{}');
    expect(res.status).toBe(400);
    expect(res.json.__type?.split('#').pop()).toBe('UnknownOperationException');
  });

  it('answers a JSON body without X-Amz-Target with UnknownOperationException', async () => {
    const res = await post(jsonHeaders, '{}');
    expect(res.status).toBe(400);
    expect(res.json.__type?.split('#').pop()).toBe('UnknownOperationException');
  });

  it('answers a body that is not JSON with SerializationException and no side effect', async () => {
    const res = await post(
      { ...jsonHeaders, 'x-amz-target': 'AmazonSQS.CreateQueue' },
      '{"QueueName": "compat-not-json"',
    );
    expect(res.status).toBe(400);
    expect(res.json.__type?.split('#').pop()).toBe('SerializationException');
    const list = await post(
      { ...jsonHeaders, 'x-amz-target': 'AmazonSQS.ListQueues' },
      '{"QueueNamePrefix": "compat-not-json"}',
    );
    expect(list.json).toEqual({});
  });

  it('answers a member of the wrong JSON type with SerializationException', async () => {
    const res = await post({ ...jsonHeaders, 'x-amz-target': 'AmazonSQS.ListQueues' }, '{"MaxResults": "ten"}');
    expect(res.status).toBe(400);
    expect(res.json.__type?.split('#').pop()).toBe('SerializationException');
  });
});
