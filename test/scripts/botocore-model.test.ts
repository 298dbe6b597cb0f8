import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { repositoryRoot } from '../../src/sqs/service-model.js';
// @ts-expect-error: a plain ES module without declarations
import { botocoreModel, botocoreModelPath } from '../../scripts/botocore-model.mjs';
// @ts-expect-error: a plain ES module without declarations
import { deriveSqsShapes, renderJson } from '../../scripts/sqs-shapes.mjs';

interface Shapes {
  metadata: Record<string, unknown>;
  operations: Record<
    string,
    { http?: unknown; input?: { shape: string }; output?: { shape: string }; errors?: Array<{ shape: string }> }
  >;
  shapes: Record<string, unknown>;
}
const toBotocore = botocoreModel as (shapes: Shapes) => Shapes & { version: string };
const modelPath = botocoreModelPath as (shapes: Shapes) => string[];
const derive = deriveSqsShapes as (model: unknown) => Shapes;
const render = renderJson as (value: unknown) => string;

const shapesFile = join(repositoryRoot(), 'model', 'sqs-shapes.json');
const shapes = JSON.parse(readFileSync(shapesFile, 'utf8')) as Shapes;
const botocoreFile = join(repositoryRoot(), 'model', 'botocore', ...modelPath(shapes));

describe('model/botocore, the shipped SQS model in botocore layout', () => {
  it('lies where botocore looks for the SQS model of the shipped API version', () => {
    expect(botocoreFile).toBe(join(repositoryRoot(), 'model', 'botocore', 'sqs', '2012-11-05', 'service-2.json'));
  });

  it('is byte for byte what `npm run botocore-model` writes from model/sqs-shapes.json', () => {
    expect(readFileSync(botocoreFile, 'utf8')).toBe(render(toBotocore(shapes)));
  });

  it('derives back to model/sqs-shapes.json, so it carries everything the gateway reads', () => {
    expect(derive(JSON.parse(readFileSync(botocoreFile, 'utf8')))).toEqual(shapes);
    expect(readFileSync(shapesFile, 'utf8')).toBe(render(derive(JSON.parse(readFileSync(botocoreFile, 'utf8')))));
  });

  it('has what botocore needs to speak the JSON protocol: metadata, HTTP bindings, resolvable shapes', () => {
    const model = JSON.parse(readFileSync(botocoreFile, 'utf8')) as ReturnType<typeof toBotocore>;
    expect(model.metadata).toMatchObject({
      protocol: 'json',
      jsonVersion: '1.0',
      targetPrefix: 'AmazonSQS',
      endpointPrefix: 'sqs',
      signatureVersion: 'v4',
      serviceId: 'SQS',
    });
    expect(Object.keys(model.operations)).toHaveLength(23);
    for (const [name, op] of Object.entries(model.operations)) {
      expect(op).toMatchObject({ name, http: { method: 'POST', requestUri: '/' } });
      for (const ref of [op.input, op.output, ...(op.errors ?? [])])
        if (ref !== undefined) expect(model.shapes, `${name} names ${ref.shape}`).toHaveProperty([ref.shape]);
    }
  });
});
