/**
 * raftq's own actions, beside AWS's 23 (docs/COMPATIBILITY.md, "raftq extensions"). Each is
 * described here in the service model's own terms, so both protocol codecs decode and encode it
 * exactly as they do AWS's actions (JSON `X-Amz-Target: AmazonSQS.<Action>`, query `Action=<Action>`),
 * and is kept out of the AWS model's operation list, which stays what AWS publishes.
 *
 * A client that calls one of them against AWS gets InvalidAction (or UnknownOperationException)
 * and must fall back; raftq's client library does (src/client/dead-letter-move.ts).
 */
import { queueNameOf, requireString, type ActionHandler } from './action-context.js';
import { SqsApiError } from './errors.js';
import type { ModelStructure, Operation, Shape } from './service-model.js';

export const raftqExtensionModel: {
  readonly operations: readonly Operation[];
  readonly shapes: Readonly<Record<string, Shape>>;
} = {
  operations: [
    {
      name: 'MoveMessageToDeadLetterQueue',
      inputShape: 'RaftqMoveMessageToDeadLetterQueueRequest',
      outputShape: 'RaftqMoveMessageToDeadLetterQueueResult',
    },
  ],
  shapes: {
    RaftqString: { type: 'string' },
    RaftqDeadLetterCause: {
      type: 'structure',
      required: ['Name', 'Message'],
      members: { Name: { shape: 'RaftqString' }, Code: { shape: 'RaftqString' }, Message: { shape: 'RaftqString' } },
    },
    RaftqMoveMessageToDeadLetterQueueRequest: {
      type: 'structure',
      required: ['QueueUrl', 'ReceiptHandle', 'Cause'],
      members: {
        QueueUrl: { shape: 'RaftqString' },
        ReceiptHandle: { shape: 'RaftqString' },
        Cause: { shape: 'RaftqDeadLetterCause' },
      },
    },
    RaftqMoveMessageToDeadLetterQueueResult: {
      type: 'structure',
      members: { MessageId: { shape: 'RaftqString' }, DeadLetterTargetArn: { shape: 'RaftqString' } },
    },
  },
};

/**
 * MoveMessageToDeadLetterQueue: QueueUrl, ReceiptHandle (of a message this caller holds) and
 * Cause { Name, Code?, Message } in; MessageId and DeadLetterTargetArn out.
 */
export const moveMessageToDeadLetterQueue: ActionHandler = async (ctx, input) => {
  const name = queueNameOf(input);
  const receiptHandle = requireString(input, 'ReceiptHandle');
  const cause = input['Cause'];
  if (cause === undefined || typeof cause !== 'object' || Array.isArray(cause) || cause instanceof Uint8Array) {
    throw new SqsApiError('MissingParameter', 'The request must contain the parameter Cause.');
  }
  const causeName = requireString(cause, 'Name');
  const message = typeof cause['Message'] === 'string' ? cause['Message'] : '';
  const code = typeof cause['Code'] === 'string' && cause['Code'] !== '' ? cause['Code'] : undefined;
  const result = await ctx.queueService.moveMessageToDeadLetterQueue(name, {
    receiptHandle,
    cause: code === undefined ? { name: causeName, message } : { name: causeName, code, message },
  });
  const output: ModelStructure = { MessageId: result.messageId, DeadLetterTargetArn: result.deadLetterTargetArn };
  return output;
};

/** The extension actions by name, for the gateway's dispatch table. */
export const raftqExtensionActions: Readonly<Record<string, ActionHandler>> = {
  MoveMessageToDeadLetterQueue: moveMessageToDeadLetterQueue,
};
