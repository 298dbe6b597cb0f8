import { describe, expect, it } from 'vitest';
import { ResourceNotFoundError, UnsupportedOperationError } from '../../src/queue/errors.js';
import { QueueService } from '../../src/queue/queue-service.js';
import { SeededPrng } from '../../src/base/prng.js';
import { makeHarness, receiveAll, sendOne } from './support/queue-harness.js';

const arn = (name: string) => `arn:aws:sqs:us-east-1:000000000000:${name}`;

async function withDeadLetters(count: number) {
  const harness = makeHarness();
  const { service } = harness;
  await service.createQueue({ name: 'dlq', attributes: {}, tags: {} });
  const policy = JSON.stringify({ deadLetterTargetArn: arn('dlq'), maxReceiveCount: 1 });
  await service.createQueue({ name: 'src', attributes: { VisibilityTimeout: '0', RedrivePolicy: policy }, tags: {} });
  for (let i = 0; i < count; i++) await sendOne(service, 'src', `m${i}`);
  await service.receiveMessages('src', { maxMessages: 10 });
  await service.receiveMessages('src', { maxMessages: 10 });
  return harness;
}

describe('message move tasks', () => {
  it('a task without destination returns dead letters to their source queue, rate-limited, and completes', async () => {
    const harness = await withDeadLetters(5);
    const { service, executor } = harness;
    expect(
      (await service.getQueueAttributes('dlq', ['ApproximateNumberOfMessages']))['ApproximateNumberOfMessages'],
    ).toBe('5');
    const { taskHandle } = await service.startMessageMoveTask({
      sourceArn: arn('dlq'),
      maxNumberOfMessagesPerSecond: 2,
    });
    executor.clock.advanceMs(1_000);
    expect(await service.stepMoveTasks()).toBe(2);
    const [running] = await service.listMessageMoveTasks({ sourceArn: arn('dlq') });
    expect(running).toMatchObject({
      taskHandle,
      status: 'RUNNING',
      approximateNumberOfMessagesMoved: 2,
      approximateNumberOfMessagesToMove: 5,
    });
    for (let i = 0; i < 3; i++) {
      executor.clock.advanceMs(1_000);
      await service.stepMoveTasks();
    }
    const [done] = await service.listMessageMoveTasks({ sourceArn: arn('dlq') });
    expect(done).toMatchObject({ status: 'COMPLETED', approximateNumberOfMessagesMoved: 5 });
    const back = await receiveAll(service, 'src', { visibilityTimeoutSeconds: 30 });
    expect(back.map((m) => m.body).sort()).toEqual(['m0', 'm1', 'm2', 'm3', 'm4']);
    expect(await receiveAll(service, 'dlq')).toEqual([]);
  });

  it('a running task survives a restart of the service that drives it and resumes', async () => {
    const harness = await withDeadLetters(3);
    const { service, executor, scheduler } = harness;
    await expect(
      service.startMessageMoveTask({ sourceArn: arn('dlq'), destinationArn: arn('other') }),
    ).rejects.toBeInstanceOf(ResourceNotFoundError);
    await service.createQueue({ name: 'other', attributes: {}, tags: {} });
    await service.startMessageMoveTask({
      sourceArn: arn('dlq'),
      destinationArn: arn('other'),
      maxNumberOfMessagesPerSecond: 1,
    });
    executor.clock.advanceMs(1_000);
    await service.stepMoveTasks();
    const next = new QueueService({
      executor,
      accountId: '000000000000',
      region: 'us-east-1',
      scheduler,
      prng: new SeededPrng(5),
    });
    for (let i = 0; i < 3; i++) {
      executor.clock.advanceMs(1_000);
      await next.stepMoveTasks();
    }
    expect((await next.listMessageMoveTasks({ sourceArn: arn('dlq') }))[0]).toMatchObject({
      status: 'COMPLETED',
      approximateNumberOfMessagesMoved: 3,
    });
    expect(await receiveAll(next, 'other')).toHaveLength(3);
  });

  it('only one task runs per source; a cancelled task stops moving', async () => {
    const { service, executor } = await withDeadLetters(4);
    const { taskHandle } = await service.startMessageMoveTask({
      sourceArn: arn('dlq'),
      maxNumberOfMessagesPerSecond: 1,
    });
    await expect(service.startMessageMoveTask({ sourceArn: arn('dlq') })).rejects.toBeInstanceOf(
      UnsupportedOperationError,
    );
    executor.clock.advanceMs(1_000);
    await service.stepMoveTasks();
    expect(await service.cancelMessageMoveTask(taskHandle)).toEqual({ approximateNumberOfMessagesMoved: 1 });
    executor.clock.advanceMs(1_000);
    expect(await service.stepMoveTasks()).toBe(0);
    await expect(service.cancelMessageMoveTask(taskHandle)).rejects.toBeInstanceOf(UnsupportedOperationError);
    await expect(service.cancelMessageMoveTask('bogus')).rejects.toBeInstanceOf(ResourceNotFoundError);
    const second = await service.startMessageMoveTask({ sourceArn: arn('dlq') });
    expect(
      (await service.listMessageMoveTasks({ sourceArn: arn('dlq'), maxResults: 10 })).map((t) => t.taskHandle),
    ).toEqual([second.taskHandle, taskHandle]);
  });

  it('a task on a queue that is nobody’s dead-letter queue, or on a missing queue, is refused', async () => {
    const { service } = makeHarness();
    await service.createQueue({ name: 'plain', attributes: {}, tags: {} });
    await expect(service.startMessageMoveTask({ sourceArn: arn('plain') })).rejects.toBeInstanceOf(
      UnsupportedOperationError,
    );
    await expect(service.startMessageMoveTask({ sourceArn: arn('missing') })).rejects.toBeInstanceOf(
      ResourceNotFoundError,
    );
  });
});
