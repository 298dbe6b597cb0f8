/**
 * What the SQS gateway asks of the queue layer: every SQS action (and raftq's extensions) as one
 * method. QueueService implements it on this node's state; on a cluster node the runtime hands the
 * gateway an implementation that runs the write operations on the leader instead
 * (src/forwarding/forwarding-queue-operations.ts), so the gateway never knows where they ran.
 */
import type { QueueService } from './queue-service.js';

export type QueueOperations = Pick<
  QueueService,
  | 'createQueue'
  | 'getQueueName'
  | 'deleteQueue'
  | 'listQueues'
  | 'getQueueAttributes'
  | 'setQueueAttributes'
  | 'purgeQueue'
  | 'sendMessages'
  | 'receiveMessages'
  | 'deleteMessages'
  | 'changeMessageVisibility'
  | 'tagQueue'
  | 'untagQueue'
  | 'listQueueTags'
  | 'addPermission'
  | 'removePermission'
  | 'listDeadLetterSourceQueues'
  | 'startMessageMoveTask'
  | 'listMessageMoveTasks'
  | 'cancelMessageMoveTask'
  | 'moveMessageToDeadLetterQueue'
>;
