import type { ActionHandler } from './action-context.js';
import {
  changeMessageVisibility,
  changeMessageVisibilityBatch,
  deleteMessage,
  deleteMessageBatch,
  receiveMessage,
  sendMessage,
  sendMessageBatch,
} from './message-actions.js';
import {
  addPermission,
  cancelMessageMoveTask,
  createQueue,
  deleteQueue,
  getQueueAttributes,
  getQueueUrl,
  listDeadLetterSourceQueues,
  listMessageMoveTasks,
  listQueues,
  listQueueTags,
  purgeQueue,
  removePermission,
  setQueueAttributes,
  startMessageMoveTask,
  tagQueue,
  untagQueue,
} from './queue-actions.js';
import { raftqExtensionActions } from './raftq-extensions.js';

/** Every SQS action, by its model name. A test checks this covers the model's operations exactly. */
export const sqsActions: Readonly<Record<string, ActionHandler>> = {
  AddPermission: addPermission,
  CancelMessageMoveTask: cancelMessageMoveTask,
  ChangeMessageVisibility: changeMessageVisibility,
  ChangeMessageVisibilityBatch: changeMessageVisibilityBatch,
  CreateQueue: createQueue,
  DeleteMessage: deleteMessage,
  DeleteMessageBatch: deleteMessageBatch,
  DeleteQueue: deleteQueue,
  GetQueueAttributes: getQueueAttributes,
  GetQueueUrl: getQueueUrl,
  ListDeadLetterSourceQueues: listDeadLetterSourceQueues,
  ListMessageMoveTasks: listMessageMoveTasks,
  ListQueueTags: listQueueTags,
  ListQueues: listQueues,
  PurgeQueue: purgeQueue,
  ReceiveMessage: receiveMessage,
  RemovePermission: removePermission,
  SendMessage: sendMessage,
  SendMessageBatch: sendMessageBatch,
  SetQueueAttributes: setQueueAttributes,
  StartMessageMoveTask: startMessageMoveTask,
  TagQueue: tagQueue,
  UntagQueue: untagQueue,
};

/** What the gateway dispatches: AWS's actions and raftq's extensions (docs/COMPATIBILITY.md). */
export const gatewayActions: Readonly<Record<string, ActionHandler>> = { ...sqsActions, ...raftqExtensionActions };
