import { describe, expect, it } from 'vitest';
import { InvalidAttributeNameError, InvalidAttributeValueError } from '../../src/queue/errors.js';
import { queueAttributeTable } from '../../src/queue/queue-attributes.js';
import {
  canonicalAttributeValue,
  defaultAttributes,
  isKnownAttributeName,
  parseQueueConfig,
} from '../../src/queue/queue-config.js';
import { makeHarness } from './support/queue-harness.js';

const arn = 'arn:aws:sqs:us-east-1:000000000000:dlq';

describe('the queue attribute table', () => {
  it('names each attribute once, lists the stored ones before the computed ones, and binds each QueueConfig field once', () => {
    const names = queueAttributeTable.map((spec) => spec.name);
    expect(new Set(names).size).toBe(names.length);
    const firstComputed = queueAttributeTable.findIndex((spec) => spec.access === 'readOnly');
    expect(queueAttributeTable.slice(firstComputed).every((spec) => spec.access === 'readOnly')).toBe(true);
    const fields = queueAttributeTable.flatMap((spec) =>
      spec.access !== 'readOnly' && spec.config !== undefined ? [spec.config.field] : [],
    );
    expect([...fields].sort()).toEqual(
      [
        'deduplicationScope',
        'delaySeconds',
        'fifoThroughputLimit',
        'isContentBasedDeduplication',
        'isFifo',
        'maximumMessageSizeBytes',
        'messageRetentionSeconds',
        'receiveWaitTimeSeconds',
        'redriveAllowPolicy',
        'redrivePolicy',
        'visibilityTimeoutSeconds',
      ].sort(),
    );
  });

  it('stores defaults its own rules accept, and parses a queue without them to the same config', () => {
    for (const isFifo of [false, true]) {
      const defaults = defaultAttributes({ isFifo });
      for (const [name, value] of Object.entries(defaults))
        expect(canonicalAttributeValue(name, value, { isFifo, phase: 'create' })).toBe(value);
      if (!isFifo) expect(parseQueueConfig(defaults)).toEqual(parseQueueConfig({}));
    }
    expect(Object.keys(defaultAttributes({ isFifo: true }))).toEqual([
      'DelaySeconds',
      'MaximumMessageSize',
      'MessageRetentionPeriod',
      'ReceiveMessageWaitTimeSeconds',
      'VisibilityTimeout',
      'SqsManagedSseEnabled',
      'FifoQueue',
      'ContentBasedDeduplication',
      'DeduplicationScope',
      'FifoThroughputLimit',
    ]);
    expect(parseQueueConfig(defaultAttributes({ isFifo: true }))).toEqual({
      delaySeconds: 0,
      maximumMessageSizeBytes: 1_048_576,
      messageRetentionSeconds: 345_600,
      receiveWaitTimeSeconds: 0,
      visibilityTimeoutSeconds: 30,
      isFifo: true,
      isContentBasedDeduplication: false,
      deduplicationScope: 'queue',
      fifoThroughputLimit: 'perQueue',
    });
  });

  it.each([
    ['DelaySeconds', ' 5 ', false, '5'],
    ['DelaySeconds', '-0', false, '0'],
    ['SqsManagedSseEnabled', ' TRUE ', false, 'true'],
    ['DeduplicationScope', 'messageGroup', true, 'messageGroup'],
    ['KmsMasterKeyId', 'alias/key ', false, 'alias/key '],
    ['Policy', '{ "Version": "2012-10-17" }', false, '{ "Version": "2012-10-17" }'],
    ['Policy', '', false, ''],
    [
      'RedrivePolicy',
      `{ "maxReceiveCount": "3", "deadLetterTargetArn": "${arn}" }`,
      false,
      JSON.stringify({ deadLetterTargetArn: arn, maxReceiveCount: 3 }),
    ],
    ['RedriveAllowPolicy', '', false, ''],
  ])('makes %s=%j canonical (FIFO %s) as %j', (name, value, isFifo, canonical) => {
    expect(canonicalAttributeValue(name, value, { isFifo, phase: 'set' })).toBe(canonical);
  });

  it.each([
    [
      'VisibilityTimeout',
      '43201',
      false,
      'set',
      InvalidAttributeValueError,
      'Invalid value for the parameter VisibilityTimeout: must be between 0 and 43200',
    ],
    [
      'KmsDataKeyReusePeriodSeconds',
      '59',
      false,
      'set',
      InvalidAttributeValueError,
      'Invalid value for the parameter KmsDataKeyReusePeriodSeconds: must be between 60 and 86400',
    ],
    [
      'DelaySeconds',
      '1e3',
      false,
      'create',
      InvalidAttributeValueError,
      'Invalid value for the parameter DelaySeconds: must be an integer',
    ],
    [
      'SqsManagedSseEnabled',
      'yes',
      false,
      'set',
      InvalidAttributeValueError,
      'Invalid value for the parameter SqsManagedSseEnabled: must be true or false',
    ],
    [
      'FifoThroughputLimit',
      'perGroup',
      true,
      'set',
      InvalidAttributeValueError,
      'Invalid value for the parameter FifoThroughputLimit: must be perQueue or perMessageGroupId',
    ],
    [
      'DeduplicationScope',
      'Queue',
      true,
      'set',
      InvalidAttributeValueError,
      'Invalid value for the parameter DeduplicationScope: must be queue or messageGroup',
    ],
    [
      'Policy',
      '[]',
      false,
      'set',
      InvalidAttributeValueError,
      'Invalid value for the parameter Policy: must be a JSON policy document',
    ],
    [
      'RedrivePolicy',
      '{"maxReceiveCount":1}',
      false,
      'set',
      InvalidAttributeValueError,
      'Invalid value for the parameter RedrivePolicy: deadLetterTargetArn must be a queue ARN',
    ],
    [
      'FifoQueue',
      'false',
      true,
      'set',
      InvalidAttributeValueError,
      'Invalid value for the parameter FifoQueue. Reason: Modifying queue type is not supported.',
    ],
    ['FifoQueue', 'true', false, 'set', InvalidAttributeNameError, 'Unknown Attribute FifoQueue.'],
    [
      'ContentBasedDeduplication',
      'true',
      false,
      'create',
      InvalidAttributeNameError,
      'Unknown Attribute ContentBasedDeduplication.',
    ],
    ['QueueArn', arn, true, 'create', InvalidAttributeNameError, 'Unknown Attribute QueueArn.'],
    ['Colour', 'blue', false, 'set', InvalidAttributeNameError, 'Unknown Attribute Colour.'],
  ] as const)('refuses %s=%j (FIFO %s, %s) in AWS words', (name, value, isFifo, phase, errorClass, message) => {
    let thrown: unknown;
    try {
      canonicalAttributeValue(name, value, { isFifo, phase });
    } catch (err) {
      thrown = err;
    }
    expect(thrown).toBeInstanceOf(errorClass);
    expect((thrown as Error).message).toBe(message);
  });

  it('knows every table name, stored or computed, and nothing else', () => {
    for (const spec of queueAttributeTable) expect(isKnownAttributeName(spec.name)).toBe(true);
    expect(isKnownAttributeName('delayseconds')).toBe(false);
    expect(isKnownAttributeName('All')).toBe(false);
  });

  it("GetQueueAttributes(All) lists a FIFO queue's attributes in the table's order", async () => {
    const { service } = makeHarness();
    await service.createQueue({ name: 'dlq.fifo', attributes: { FifoQueue: 'true' }, tags: {} });
    await service.createQueue({
      name: 'a.fifo',
      attributes: {
        FifoQueue: 'true',
        KmsMasterKeyId: 'alias/k',
        KmsDataKeyReusePeriodSeconds: '600',
        RedrivePolicy: JSON.stringify({
          deadLetterTargetArn: 'arn:aws:sqs:us-east-1:000000000000:dlq.fifo',
          maxReceiveCount: 2,
        }),
        RedriveAllowPolicy: JSON.stringify({ redrivePermission: 'denyAll' }),
        Policy: '{}',
      },
      tags: {},
    });
    const attributes = await service.getQueueAttributes('a.fifo', ['All']);
    const expectedOrder = queueAttributeTable.map((spec) => spec.name);
    expect(Object.keys(attributes)).toEqual(expectedOrder);
    expect(attributes['SqsManagedSseEnabled']).toBe('false');
    expect(await service.getQueueAttributes('a.fifo', ['QueueArn', 'DelaySeconds'])).toEqual({
      DelaySeconds: '0',
      QueueArn: 'arn:aws:sqs:us-east-1:000000000000:a.fifo',
    });
  });
});
