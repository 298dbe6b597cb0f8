import { describe, expect, it } from 'vitest';
import {
  InvalidAttributeNameError,
  InvalidAttributeValueError,
  InvalidParameterValueError,
  OverLimitError,
  PurgeQueueInProgressError,
  QueueAlreadyExistsError,
  QueueDoesNotExistError,
} from '../../src/queue/errors.js';
import { countMessages } from '../../src/queue/message-counts.js';
import { GenerationKeys } from '../../src/queue/layout/key-layout.js';
import { QueueService } from '../../src/queue/queue-service.js';
import { SeededPrng } from '../../src/base/prng.js';
import { entry, makeHarness, receiveAll, sendOne } from './support/queue-harness.js';

describe('queue lifecycle', () => {
  it('CreateQueue is idempotent with the same attributes and refuses different ones with QueueAlreadyExists', async () => {
    const { service } = makeHarness();
    await service.createQueue({ name: 'a', attributes: { VisibilityTimeout: '45' }, tags: {} });
    await expect(
      service.createQueue({ name: 'a', attributes: { VisibilityTimeout: '45' }, tags: {} }),
    ).resolves.toEqual({ name: 'a' });
    await expect(service.createQueue({ name: 'a', attributes: {}, tags: {} })).resolves.toEqual({ name: 'a' });
    await expect(
      service.createQueue({ name: 'a', attributes: { VisibilityTimeout: '46' }, tags: {} }),
    ).rejects.toBeInstanceOf(QueueAlreadyExistsError);
  });

  it('attributes out of range, unknown, read-only or of the wrong queue type are refused', async () => {
    const { service } = makeHarness();
    const create = (attributes: Record<string, string>, name = 'a') =>
      service.createQueue({ name, attributes, tags: {} });
    await expect(create({ VisibilityTimeout: '43201' })).rejects.toBeInstanceOf(InvalidAttributeValueError);
    await expect(create({ MessageRetentionPeriod: '59' })).rejects.toBeInstanceOf(InvalidAttributeValueError);
    await expect(create({ DelaySeconds: 'soon' })).rejects.toBeInstanceOf(InvalidAttributeValueError);
    await expect(create({ Colour: 'blue' })).rejects.toBeInstanceOf(InvalidAttributeNameError);
    await expect(create({ QueueArn: 'x' })).rejects.toBeInstanceOf(InvalidAttributeNameError);
    await expect(create({ ContentBasedDeduplication: 'true' })).rejects.toBeInstanceOf(InvalidAttributeNameError);
    await expect(create({ FifoQueue: 'true' })).rejects.toBeInstanceOf(InvalidParameterValueError);
    await expect(create({ FifoQueue: 'false' }, 'a.fifo')).rejects.toBeInstanceOf(InvalidParameterValueError);
    await expect(create({ RedrivePolicy: '{"deadLetterTargetArn":"nope"}' })).rejects.toBeInstanceOf(
      InvalidAttributeValueError,
    );
    await create({ SqsManagedSseEnabled: 'TRUE' });
    await expect(service.setQueueAttributes('a', { FifoQueue: 'true' })).rejects.toBeInstanceOf(
      InvalidAttributeNameError,
    );
    await expect(service.getQueueAttributes('a', ['Nope'])).rejects.toBeInstanceOf(InvalidAttributeNameError);
  });

  it('GetQueueAttributes(All) lists defaults, timestamps, the ARN and exact counts of a small queue', async () => {
    const { service, executor } = makeHarness();
    const createdAtMs = executor.nowMs();
    await service.createQueue({ name: 'a', attributes: {}, tags: {} });
    await service.sendMessages('a', [entry('1', 'x'), entry('2', 'y'), entry('3', 'z', { delaySeconds: 60 })], {
      senderId: 's',
    });
    await service.receiveMessages('a', { maxMessages: 1 });
    const attributes = await service.getQueueAttributes('a', ['All']);
    expect(attributes).toEqual({
      DelaySeconds: '0',
      MaximumMessageSize: '1048576',
      MessageRetentionPeriod: '345600',
      ReceiveMessageWaitTimeSeconds: '0',
      VisibilityTimeout: '30',
      SqsManagedSseEnabled: 'true',
      ApproximateNumberOfMessages: '1',
      ApproximateNumberOfMessagesNotVisible: '1',
      ApproximateNumberOfMessagesDelayed: '1',
      CreatedTimestamp: String(Math.floor(createdAtMs / 1000)),
      LastModifiedTimestamp: String(Math.floor(createdAtMs / 1000)),
      QueueArn: 'arn:aws:sqs:us-east-1:000000000000:a',
    });
  });

  it('message counts stop at their row bound on a huge queue and say they are not exact (trap 18)', async () => {
    const { service, executor } = makeHarness();
    await service.createQueue({ name: 'a', attributes: {}, tags: {} });
    for (let i = 0; i < 5; i++)
      await service.sendMessages(
        'a',
        Array.from({ length: 10 }, (_, j) => entry(`e${j}`, 'x')),
        { senderId: 's' },
      );
    const view = await executor.readView();
    const bounded = await countMessages(view, new GenerationKeys('a', 1), 1, executor.nowMs(), 345_600, 20);
    expect(bounded).toEqual({ visible: 20, inFlight: 0, delayed: 0, isExact: false });
    const exact = await countMessages(view, new GenerationKeys('a', 1), 1, executor.nowMs(), 345_600, 1_000);
    expect(exact).toEqual({ visible: 50, inFlight: 0, delayed: 0, isExact: true });
  });

  it('PurgeQueue empties the queue and a second purge within 60 s is refused, even by a fresh service (cooldown persisted)', async () => {
    const { service, executor, scheduler } = makeHarness();
    await service.createQueue({ name: 'a', attributes: {}, tags: {} });
    await sendOne(service, 'a', 'gone');
    await service.purgeQueue('a');
    expect(await receiveAll(service, 'a')).toEqual([]);
    const restarted = new QueueService({
      executor,
      accountId: '000000000000',
      region: 'us-east-1',
      scheduler,
      prng: new SeededPrng(9),
    });
    executor.clock.advanceMs(59_000);
    await expect(restarted.purgeQueue('a')).rejects.toBeInstanceOf(PurgeQueueInProgressError);
    executor.clock.advanceMs(1_000);
    await expect(restarted.purgeQueue('a')).resolves.toBeUndefined();
  });

  it('purge then delete leaves a tombstone for each superseded generation, and the gen row survives (trap 6)', async () => {
    const { service, executor } = makeHarness();
    await service.createQueue({ name: 'a', attributes: {}, tags: {} });
    await sendOne(service, 'a', 'gen 1');
    await service.purgeQueue('a');
    await sendOne(service, 'a', 'gen 2');
    await service.deleteQueue('a');
    const { globalKeys } = await import('../../src/queue/layout/key-layout.js');
    const { decodeKey } = await import('../../src/storage/key-codec.js');
    const tombstones = (await executor.liveRows(globalKeys.tombstoneRange())).map((row) => decodeKey(row.key));
    expect(tombstones).toEqual([
      ['tomb', 'a', 1],
      ['tomb', 'a', 2],
    ]);
    await service.createQueue({ name: 'a', attributes: {}, tags: {} });
    expect(await receiveAll(service, 'a')).toEqual([]);
    await sendOne(service, 'a', 'gen 3');
    expect((await receiveAll(service, 'a')).map((m) => m.body)).toEqual(['gen 3']);
  });

  it('a deleted queue is gone for every action, and ListQueues pages through names by prefix', async () => {
    const { service } = makeHarness();
    for (const name of ['alpha-1', 'alpha-2', 'alpha-3', 'beta', 'alpha-4'])
      await service.createQueue({ name, attributes: {}, tags: {} });
    await service.deleteQueue('alpha-4');
    await expect(service.getQueueName('alpha-4')).rejects.toBeInstanceOf(QueueDoesNotExistError);
    await expect(service.deleteQueue('alpha-4')).rejects.toBeInstanceOf(QueueDoesNotExistError);
    expect((await service.listQueues({})).names).toEqual(['alpha-1', 'alpha-2', 'alpha-3', 'beta']);
    const first = await service.listQueues({ prefix: 'alpha', maxResults: 2 });
    expect(first.names).toEqual(['alpha-1', 'alpha-2']);
    expect(first.nextToken).toBeDefined();
    const second = await service.listQueues({
      prefix: 'alpha',
      maxResults: 2,
      ...(first.nextToken !== undefined ? { nextToken: first.nextToken } : {}),
    });
    expect(second).toEqual({ names: ['alpha-3'] });
  });

  it('tags are added, replaced, removed and capped at 50', async () => {
    const { service } = makeHarness();
    await service.createQueue({ name: 'a', attributes: {}, tags: { team: 'x' } });
    await service.tagQueue('a', { team: 'y', env: 'dev' });
    await service.untagQueue('a', ['env', 'absent']);
    expect(await service.listQueueTags('a')).toEqual({ team: 'y' });
    const many = Object.fromEntries(Array.from({ length: 50 }, (_, i) => [`k${i}`, 'v']));
    await expect(service.tagQueue('a', many)).rejects.toBeInstanceOf(OverLimitError);
  });

  it('AddPermission and RemovePermission edit statements of the Policy attribute', async () => {
    const { service } = makeHarness();
    await service.createQueue({ name: 'a', attributes: {}, tags: {} });
    await service.addPermission('a', { label: 'p1', accountIds: ['111122223333'], actions: ['SendMessage'] });
    await expect(service.addPermission('a', { label: 'p1', accountIds: ['1'], actions: ['*'] })).rejects.toBeInstanceOf(
      InvalidParameterValueError,
    );
    const policy = JSON.parse((await service.getQueueAttributes('a', ['Policy']))['Policy'] ?? '{}') as {
      Statement: Array<{ Sid: string; Action: string[] }>;
    };
    expect(policy.Statement).toMatchObject([{ Sid: 'p1', Action: ['SQS:SendMessage'] }]);
    await service.removePermission('a', 'p1');
    expect(await service.getQueueAttributes('a', ['Policy'])).toEqual({});
    await expect(service.removePermission('a', 'p1')).rejects.toBeInstanceOf(InvalidParameterValueError);
  });
});
