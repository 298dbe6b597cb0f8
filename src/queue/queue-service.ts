/**
 * SQS semantics as transactions over a TxnExecutor. Every public method is one SQS action (or
 * its batch form). The service is deterministic: time is the executor's cluster clock, ids come
 * from the injected id source, timers from the injected scheduler.
 */
import type { Prng } from '../base/prng.js';
import type { TxnExecutor } from '../storage/txn.js';
import type {
  ChangeVisibilityEntry,
  DeleteEntry,
  EntryFailure,
  EntrySuccess,
  ListQueuesOptions,
  MoveTaskInfo,
  PermissionGrant,
  QueueLogger,
  QueueNamePage,
  QueueScheduler,
  ReceivedMessage,
  ReceiveOptions,
  SendEntry,
  SendResult,
  StartMoveTaskOptions,
} from './queue-api.js';

export type * from './queue-api.js';

export interface QueueServiceOptions {
  readonly executor: TxnExecutor;
  readonly accountId: string;
  readonly region: string;
  readonly scheduler: QueueScheduler;
  /** Unique ids for messages, receipt tokens and txns. Either this or `prng` must be given. */
  readonly newId?: () => string;
  /** Used to mint ids when `newId` is not given. */
  readonly prng?: Prng;
  readonly logger?: QueueLogger;
  /** Overrides sqsLimits.inFlightMessages*Max (tests use a small value). */
  readonly inFlightMessagesMax?: number;
}

export class QueueService {
  constructor(readonly options: QueueServiceOptions) {
    throw new Error('QueueService is being written');
  }

  createQueue(_input: { name: string; attributes: Record<string, string>; tags: Record<string, string> }): Promise<{ name: string }> { throw new Error('todo'); }
  getQueueName(_name: string): Promise<{ name: string }> { throw new Error('todo'); }
  deleteQueue(_name: string): Promise<void> { throw new Error('todo'); }
  listQueues(_options: ListQueuesOptions): Promise<QueueNamePage> { throw new Error('todo'); }
  getQueueAttributes(_name: string, _attributeNames: string[]): Promise<Record<string, string>> { throw new Error('todo'); }
  setQueueAttributes(_name: string, _attributes: Record<string, string>): Promise<void> { throw new Error('todo'); }
  purgeQueue(_name: string): Promise<void> { throw new Error('todo'); }
  sendMessages(_name: string, _entries: SendEntry[], _context: { senderId: string }): Promise<Array<SendResult | EntryFailure>> { throw new Error('todo'); }
  receiveMessages(_name: string, _options: ReceiveOptions): Promise<ReceivedMessage[]> { throw new Error('todo'); }
  deleteMessages(_name: string, _entries: DeleteEntry[]): Promise<Array<EntrySuccess | EntryFailure>> { throw new Error('todo'); }
  changeMessageVisibility(_name: string, _entries: ChangeVisibilityEntry[]): Promise<Array<EntrySuccess | EntryFailure>> { throw new Error('todo'); }
  tagQueue(_name: string, _tags: Record<string, string>): Promise<void> { throw new Error('todo'); }
  untagQueue(_name: string, _tagKeys: string[]): Promise<void> { throw new Error('todo'); }
  listQueueTags(_name: string): Promise<Record<string, string>> { throw new Error('todo'); }
  addPermission(_name: string, _grant: PermissionGrant): Promise<void> { throw new Error('todo'); }
  removePermission(_name: string, _label: string): Promise<void> { throw new Error('todo'); }
  listDeadLetterSourceQueues(_name: string, _options: { maxResults?: number; nextToken?: string }): Promise<QueueNamePage> { throw new Error('todo'); }
  startMessageMoveTask(_options: StartMoveTaskOptions): Promise<{ taskHandle: string }> { throw new Error('todo'); }
  listMessageMoveTasks(_options: { sourceArn: string; maxResults?: number }): Promise<MoveTaskInfo[]> { throw new Error('todo'); }
  cancelMessageMoveTask(_taskHandle: string): Promise<{ approximateNumberOfMessagesMoved: number }> { throw new Error('todo'); }
  /** The ARN AWS would give this queue (arn:aws:sqs:REGION:ACCOUNT:NAME). */
  queueArn(_name: string): string { throw new Error('todo'); }
  /** Stops long polls and timers (node shutdown). */
  close(): void { throw new Error('todo'); }
}
