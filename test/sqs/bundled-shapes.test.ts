import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { repositoryRoot, resolveSqsServiceModelPath, SqsServiceModel } from '../../src/sqs/service-model.js';
// @ts-expect-error: a plain ES module without declarations
import { deriveSqsShapes } from '../../scripts/sqs-shapes.mjs';

const derive = deriveSqsShapes as (model: unknown) => unknown;
const awsModelPath = join(repositoryRoot(), '..', 'shared', 'aws', 'botocore-data', 'sqs', '2012-11-05', 'service-2.json');

describe('the SQS model shipped with raftq', () => {
  it('is the default, so a node needs no AWS model beside it', () => {
    expect(resolveSqsServiceModelPath({})).toBe(join(repositoryRoot(), 'model', 'sqs-shapes.json'));
    const model = SqsServiceModel.load();
    expect(model.operationNames()).toHaveLength(23);
    expect(model.operation('SendMessageBatch')?.inputShape).toBe('SendMessageBatchRequest');
  });

  it('still yields to RAFTQ_SQS_SERVICE_MODEL', () => {
    expect(resolveSqsServiceModelPath({ RAFTQ_SQS_SERVICE_MODEL: '/opt/sqs/service-2.json' })).toBe('/opt/sqs/service-2.json');
  });

  it.runIf(existsSync(awsModelPath))('equals what `npm run sqs-shapes` derives from the AWS model today', () => {
    const shipped = JSON.parse(readFileSync(join(repositoryRoot(), 'model', 'sqs-shapes.json'), 'utf8'));
    expect(shipped).toEqual(derive(JSON.parse(readFileSync(awsModelPath, 'utf8'))));
  });

  it('carries no documentation prose', () => {
    expect(readFileSync(join(repositoryRoot(), 'model', 'sqs-shapes.json'), 'utf8')).not.toContain('documentation');
  });
});
