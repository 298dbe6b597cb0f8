import { describe, expect, it } from 'vitest';
import { RemoteOperationError } from '../../src/cluster/errors.js';
import {
  decodeChangeVisibilityArgs,
  decodeDeleteArgs,
  decodeHandleResult,
  decodeReceiveArgs,
  decodeReceiveResult,
  decodeSendArgs,
  decodeSendResult,
  encodeHandleArgs,
  encodeHandleResult,
  encodeReceiveArgs,
  encodeReceiveResult,
  encodeSendArgs,
  encodeSendResult,
} from '../../src/forwarding/queue-op-codec.js';
import { MessageTooLongError, ReceiptHandleIsInvalidError } from '../../src/queue/errors.js';
import type { ReceivedMessage, SendEntry } from '../../src/queue/queue-api.js';
import { toSqsApiError } from '../../src/sqs/errors.js';

describe('forwarded queue operations as bytes', () => {
  it('carries a send whole: optional values stay absent, zeros and empty strings stay present', () => {
    const entries: SendEntry[] = [
      {
        entryId: 'a',
        body: 'héllo \u{1F600}',
        delaySeconds: 0,
        messageAttributes: {
          n: { dataType: 'Number.int', stringValue: '5' },
          b: { dataType: 'Binary', binaryValue: new Uint8Array([0, 255, 7]) },
          e: { dataType: 'String', stringValue: '' },
        },
        systemAttributes: { AWSTraceHeader: { dataType: 'String', stringValue: 'Root=1' } },
        messageGroupId: 'g',
        messageDeduplicationId: '',
      },
      { entryId: 'b', body: '', messageAttributes: {}, systemAttributes: {} },
    ];
    const args = { queue: 'q.fifo', entries, senderId: 'AKID', messageIds: ['m1', 'm2'], idempotencyKey: 'k' };
    const decoded = decodeSendArgs(encodeSendArgs(args));
    expect(decoded).toEqual(args);
    expect('delaySeconds' in (decoded.entries[1] as SendEntry)).toBe(false);
    expect('messageGroupId' in (decoded.entries[1] as SendEntry)).toBe(false);
  });

  it('carries send outcomes, failures with their code, message and retryability', () => {
    const tooLong = new MessageTooLongError(300_000, 262_144);
    const decoded = decodeSendResult(
      encodeSendResult([
        { entryId: 'a', messageId: 'm1', sequenceNumber: '18446744073709551616000' },
        { entryId: 'b', messageId: 'm2' },
        { entryId: 'c', error: tooLong },
      ]),
    );
    expect(decoded.slice(0, 2)).toEqual([
      { entryId: 'a', messageId: 'm1', sequenceNumber: '18446744073709551616000' },
      { entryId: 'b', messageId: 'm2' },
    ]);
    const failure = decoded[2] as { entryId: string; error: RemoteOperationError };
    expect(failure.entryId).toBe('c');
    expect(failure.error).toBeInstanceOf(RemoteOperationError);
    expect({
      code: failure.error.code,
      message: failure.error.message,
      isRetryable: failure.error.isRetryable,
    }).toEqual({ code: 'MessageTooLong', message: tooLong.message, isRetryable: false });
    // The gateway words it exactly as it words the original.
    const local = toSqsApiError(tooLong);
    const remote = toSqsApiError(failure.error);
    expect({ name: remote.definition.name, message: remote.message, status: remote.httpStatus }).toEqual({
      name: local.definition.name,
      message: local.message,
      status: local.httpStatus,
    });
  });

  it('carries a receive, with and without its optional values', () => {
    const full = {
      queue: 'q',
      maxMessages: 10,
      visibilityTimeoutSeconds: 0,
      waitTimeSeconds: 20,
      receiveRequestAttemptId: 'r',
    };
    expect(decodeReceiveArgs(encodeReceiveArgs(full))).toEqual(full);
    expect(decodeReceiveArgs(encodeReceiveArgs({ queue: 'q', maxMessages: 1 }))).toEqual({
      queue: 'q',
      maxMessages: 1,
    });
  });

  it('carries received messages', () => {
    const messages: ReceivedMessage[] = [
      {
        messageId: 'm1',
        receiptHandle: 'h1',
        body: 'body',
        messageAttributes: { x: { dataType: 'Binary', binaryValue: new Uint8Array([1, 2]) } },
        systemAttributes: {},
        attributes: { SentTimestamp: '1', ApproximateReceiveCount: '2' },
      },
    ];
    expect(decodeReceiveResult(encodeReceiveResult(messages))).toEqual(messages);
    expect(decodeReceiveResult(encodeReceiveResult([]))).toEqual([]);
  });

  it('carries deletes and visibility changes and their outcomes', () => {
    const deletes = { queue: 'q', entries: [{ entryId: '0', receiptHandle: 'h' }] };
    expect(decodeDeleteArgs(encodeHandleArgs(deletes))).toEqual(deletes);
    const changes = {
      queue: 'q',
      entries: [
        { entryId: '0', receiptHandle: 'h', visibilityTimeoutSeconds: 0 },
        { entryId: '1', receiptHandle: 'i', visibilityTimeoutSeconds: 43_200 },
      ],
    };
    expect(decodeChangeVisibilityArgs(encodeHandleArgs(changes))).toEqual(changes);
    const invalid = new ReceiptHandleIsInvalidError('h', 'malformed');
    const outcomes = decodeHandleResult(encodeHandleResult([{ entryId: '0' }, { entryId: '1', error: invalid }]));
    expect(outcomes[0]).toEqual({ entryId: '0' });
    const failure = outcomes[1] as { entryId: string; error: RemoteOperationError };
    expect([failure.entryId, failure.error.code, failure.error.message]).toEqual([
      '1',
      'ReceiptHandleIsInvalid',
      invalid.message,
    ]);
  });
});
