import { QueueDoesNotExistError, ReceiptHandleIsInvalidError } from '../../../src/queue/errors.js';
import type { QueueService } from '../../../src/queue/queue-service.js';
import type {
  ChangeVisibilityEntry,
  DeleteEntry,
  EntryFailure,
  EntrySuccess,
  ReceivedMessage,
  ReceiveOptions,
  SendEntry,
  SendResult,
} from '../../../src/queue/queue-api.js';

interface FakeMessage {
  readonly messageId: string;
  readonly entry: SendEntry;
  readonly senderId: string;
  isInFlight: boolean;
}

/**
 * A minimal in-memory stand-in for QueueService, for gateway tests that need no storage: it keeps
 * queues and messages in maps, records every call, and lets a test make any method throw or hang.
 * Queue semantics are tested in test/queue against the real service.
 */
export class FakeQueueService {
  readonly calls: Array<{ method: string; args: unknown[] }> = [];
  readonly queues = new Map<
    string,
    { attributes: Record<string, string>; tags: Record<string, string>; messages: FakeMessage[] }
  >();
  /** Makes the named method reject with this error (or never settle, for 'hang'). */
  readonly failures = new Map<string, Error | 'hang'>();
  private nextId = 1;

  asQueueService(): QueueService {
    return this as unknown as QueueService;
  }

  private async enter(method: string, ...args: unknown[]): Promise<void> {
    this.calls.push({ method, args });
    const failure = this.failures.get(method);
    if (failure === 'hang') {
      const signal = (
        args.find((a) => typeof a === 'object' && a !== null && 'signal' in a) as { signal?: AbortSignal } | undefined
      )?.signal;
      await new Promise<never>((_, reject) => signal?.addEventListener('abort', () => reject(new Error('aborted'))));
    }
    if (failure instanceof Error) throw failure;
  }

  private queue(name: string) {
    const queue = this.queues.get(name);
    if (queue === undefined) throw new QueueDoesNotExistError(name);
    return queue;
  }

  async createQueue(input: { name: string; attributes: Record<string, string>; tags: Record<string, string> }) {
    await this.enter('createQueue', input);
    if (!this.queues.has(input.name))
      this.queues.set(input.name, { attributes: { ...input.attributes }, tags: { ...input.tags }, messages: [] });
    return { name: input.name };
  }
  async getQueueName(name: string) {
    await this.enter('getQueueName', name);
    this.queue(name);
    return { name };
  }
  async deleteQueue(name: string) {
    await this.enter('deleteQueue', name);
    this.queue(name);
    this.queues.delete(name);
  }
  async listQueues(options: { prefix?: string; maxResults?: number; nextToken?: string }) {
    await this.enter('listQueues', options);
    const names = [...this.queues.keys()]
      .filter((n) => options.prefix === undefined || n.startsWith(options.prefix))
      .sort();
    return { names: names.slice(0, options.maxResults ?? 1000) };
  }
  async getQueueAttributes(name: string, attributeNames: string[]) {
    await this.enter('getQueueAttributes', name, attributeNames);
    return attributeNames.length === 0 ? {} : { ...this.queue(name).attributes };
  }
  async setQueueAttributes(name: string, attributes: Record<string, string>) {
    await this.enter('setQueueAttributes', name, attributes);
    Object.assign(this.queue(name).attributes, attributes);
  }
  async purgeQueue(name: string) {
    await this.enter('purgeQueue', name);
    this.queue(name).messages.length = 0;
  }
  async sendMessages(
    name: string,
    entries: SendEntry[],
    context: { senderId: string },
  ): Promise<Array<SendResult | EntryFailure>> {
    await this.enter('sendMessages', name, entries, context);
    const queue = this.queue(name);
    return entries.map((entry) => {
      const messageId = `m-${this.nextId++}`;
      queue.messages.push({ messageId, entry, senderId: context.senderId, isInFlight: false });
      return { entryId: entry.entryId, messageId };
    });
  }
  async receiveMessages(name: string, options: ReceiveOptions): Promise<ReceivedMessage[]> {
    await this.enter('receiveMessages', name, options);
    const visible = this.queue(name)
      .messages.filter((m) => !m.isInFlight)
      .slice(0, options.maxMessages);
    return visible.map((m) => {
      m.isInFlight = true;
      const trace = m.entry.systemAttributes['AWSTraceHeader']?.stringValue;
      return {
        messageId: m.messageId,
        receiptHandle: `rh-${m.messageId}`,
        body: m.entry.body,
        messageAttributes: m.entry.messageAttributes,
        systemAttributes: m.entry.systemAttributes,
        attributes: {
          SenderId: m.senderId,
          SentTimestamp: '1700000000000',
          ApproximateReceiveCount: '1',
          ApproximateFirstReceiveTimestamp: '1700000000001',
          ...(trace !== undefined ? { AWSTraceHeader: trace } : {}),
        },
      };
    });
  }
  async deleteMessages(name: string, entries: DeleteEntry[]): Promise<Array<EntrySuccess | EntryFailure>> {
    await this.enter('deleteMessages', name, entries);
    const queue = this.queue(name);
    return entries.map((entry) => {
      const index = queue.messages.findIndex((m) => `rh-${m.messageId}` === entry.receiptHandle);
      if (!entry.receiptHandle.startsWith('rh-'))
        return {
          entryId: entry.entryId,
          error: new ReceiptHandleIsInvalidError(entry.receiptHandle, 'not issued by this queue'),
        };
      if (index >= 0) queue.messages.splice(index, 1);
      return { entryId: entry.entryId };
    });
  }
  async changeMessageVisibility(
    name: string,
    entries: ChangeVisibilityEntry[],
  ): Promise<Array<EntrySuccess | EntryFailure>> {
    await this.enter('changeMessageVisibility', name, entries);
    this.queue(name);
    return entries.map((entry) => ({ entryId: entry.entryId }));
  }
  async tagQueue(name: string, tags: Record<string, string>) {
    await this.enter('tagQueue', name, tags);
    Object.assign(this.queue(name).tags, tags);
  }
  async untagQueue(name: string, tagKeys: string[]) {
    await this.enter('untagQueue', name, tagKeys);
    for (const key of tagKeys) delete this.queue(name).tags[key];
  }
  async listQueueTags(name: string) {
    await this.enter('listQueueTags', name);
    return { ...this.queue(name).tags };
  }
  async addPermission(name: string, grant: unknown) {
    await this.enter('addPermission', name, grant);
    this.queue(name);
  }
  async removePermission(name: string, label: string) {
    await this.enter('removePermission', name, label);
    this.queue(name);
  }
  async listDeadLetterSourceQueues(name: string, options: unknown) {
    await this.enter('listDeadLetterSourceQueues', name, options);
    this.queue(name);
    return { names: [] as string[] };
  }
  async startMessageMoveTask(options: unknown) {
    await this.enter('startMessageMoveTask', options);
    return { taskHandle: 'task-1' };
  }
  async listMessageMoveTasks(options: unknown) {
    await this.enter('listMessageMoveTasks', options);
    return [];
  }
  async cancelMessageMoveTask(taskHandle: string) {
    await this.enter('cancelMessageMoveTask', taskHandle);
    return { approximateNumberOfMessagesMoved: 0 };
  }
}
