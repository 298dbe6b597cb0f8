import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { repositoryRoot, resolveSqsServiceModelPath, SqsServiceModel } from '../../src/sqs/service-model.js';

describe('the SQS model shipped with raftq', () => {
  it('is the default, so a node needs no AWS model beside it', () => {
    expect(resolveSqsServiceModelPath({})).toBe(join(repositoryRoot(), 'model', 'sqs-shapes.json'));
    const model = SqsServiceModel.load();
    expect(model.operationNames()).toHaveLength(23);
    expect(model.operation('SendMessageBatch')?.inputShape).toBe('SendMessageBatchRequest');
  });

  it('still yields to RAFTQ_SQS_SERVICE_MODEL', () => {
    expect(resolveSqsServiceModelPath({ RAFTQ_SQS_SERVICE_MODEL: '/opt/sqs/service-2.json' })).toBe(
      '/opt/sqs/service-2.json',
    );
  });

  it('carries no documentation prose', () => {
    expect(readFileSync(join(repositoryRoot(), 'model', 'sqs-shapes.json'), 'utf8')).not.toContain('documentation');
  });
});
