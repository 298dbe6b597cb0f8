import { SendMessageCommand } from '@aws-sdk/client-sqs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deadLetterCauseAttributeName, decodeDeadLetterCauseRecord } from '../../src/base/dead-letter-cause.js';
import {
  createQueuePair,
  queueCounts,
  receiveOnce,
  startClientFixture,
  type ClientFixture,
} from './support/client-fixture.js';

/**
 * The MoveMessageToDeadLetterQueue extension on the wire, in both protocols the gateway speaks,
 * as a client other than this library would call it (docs/COMPATIBILITY.md, "raftq extensions").
 */

let fixture: ClientFixture;

beforeAll(async () => {
  fixture = await startClientFixture();
});

afterAll(async () => {
  await fixture?.close();
});

async function heldMessage(): Promise<{
  queueUrl: string;
  deadLetterQueueUrl: string;
  receiptHandle: string;
  messageId: string;
}> {
  const pair = await createQueuePair(fixture.sqs, { maxReceiveCount: 5 });
  const { MessageId } = await fixture.sqs.send(
    new SendMessageCommand({ QueueUrl: pair.queueUrl, MessageBody: 'wire' }),
  );
  const [message] = await receiveOnce(fixture.sqs, pair.queueUrl, { visibilityTimeoutSeconds: 30 });
  return { ...pair, receiptHandle: message?.ReceiptHandle as string, messageId: MessageId as string };
}

function postJson(target: string, body: unknown): Promise<Response> {
  return fetch(fixture.endpoint.endpoint, {
    method: 'POST',
    headers: { 'content-type': 'application/x-amz-json-1.0', 'x-amz-target': `AmazonSQS.${target}` },
    body: JSON.stringify(body),
  });
}

function postQuery(params: Record<string, string>): Promise<Response> {
  return fetch(fixture.endpoint.endpoint, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(params).toString(),
  });
}

describe('MoveMessageToDeadLetterQueue', () => {
  it('over JSON moves the held message with its cause and answers its id and the dead-letter queue ARN', async () => {
    const held = await heldMessage();
    const response = await postJson('MoveMessageToDeadLetterQueue', {
      QueueUrl: held.queueUrl,
      ReceiptHandle: held.receiptHandle,
      Cause: { Name: 'E', Code: 'C1', Message: 'why' },
    });
    expect(response.status).toBe(200);
    const answer = (await response.json()) as { MessageId?: string; DeadLetterTargetArn?: string };
    expect(answer.MessageId).toBe(held.messageId);
    expect(answer.DeadLetterTargetArn).toMatch(/:client-\d+-\d+-dlq$/);
    const [copy] = await receiveOnce(fixture.sqs, held.deadLetterQueueUrl);
    expect(
      decodeDeadLetterCauseRecord(copy?.MessageAttributes?.[deadLetterCauseAttributeName]?.StringValue ?? '')?.cause,
    ).toEqual({ name: 'E', code: 'C1', message: 'why' });
    expect(await queueCounts(fixture.sqs, held.queueUrl)).toEqual({ visible: 0, notVisible: 0 });
  });

  it('over the query protocol does the same, with the cause as Cause.Name and Cause.Message', async () => {
    const held = await heldMessage();
    const response = await postQuery({
      Action: 'MoveMessageToDeadLetterQueue',
      QueueUrl: held.queueUrl,
      ReceiptHandle: held.receiptHandle,
      'Cause.Name': 'QueryError',
      'Cause.Message': 'from a form',
    });
    const text = await response.text();
    expect(response.status, text).toBe(200);
    expect(text).toContain(`<MessageId>${held.messageId}</MessageId>`);
    expect(text).toContain('<MoveMessageToDeadLetterQueueResponse');
    const [copy] = await receiveOnce(fixture.sqs, held.deadLetterQueueUrl);
    expect(
      decodeDeadLetterCauseRecord(copy?.MessageAttributes?.[deadLetterCauseAttributeName]?.StringValue ?? '')?.cause,
    ).toEqual({ name: 'QueryError', message: 'from a form' });
  });

  it('refuses a request without a cause, and a handle that no longer holds the message, moving nothing', async () => {
    const held = await heldMessage();
    const missing = await postJson('MoveMessageToDeadLetterQueue', {
      QueueUrl: held.queueUrl,
      ReceiptHandle: held.receiptHandle,
    });
    expect(missing.status).toBe(400);
    expect(((await missing.json()) as { __type?: string }).__type).toContain('MissingParameter');
    // Released and received again: the first handle is stale.
    await postJson('ChangeMessageVisibility', {
      QueueUrl: held.queueUrl,
      ReceiptHandle: held.receiptHandle,
      VisibilityTimeout: 0,
    });
    await receiveOnce(fixture.sqs, held.queueUrl, { visibilityTimeoutSeconds: 30 });
    const stale = await postQuery({
      Action: 'MoveMessageToDeadLetterQueue',
      QueueUrl: held.queueUrl,
      ReceiptHandle: held.receiptHandle,
      'Cause.Name': 'E',
      'Cause.Message': 'late',
    });
    expect(stale.status).toBe(400);
    expect(await stale.text()).toContain('AWS.SimpleQueueService.MessageNotInflight');
    expect(await queueCounts(fixture.sqs, held.deadLetterQueueUrl)).toEqual({ visible: 0, notVisible: 0 });
  });
});
