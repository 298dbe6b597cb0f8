import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { raftqExtensionModel } from './raftq-extensions.js';

/**
 * The AWS service model of SQS (botocore's service-2.json), loaded once at start. It is the
 * authority for operation names, request and response shapes, required members and enums: both
 * protocol codecs walk it instead of hand-written serializers, so a shape AWS adds is a data change.
 */

export interface ShapeRef {
  readonly shape: string;
  readonly locationName?: string;
  readonly flattened?: boolean;
}

export type Shape =
  | {
      readonly type: 'structure';
      readonly required?: readonly string[];
      readonly members: Readonly<Record<string, ShapeRef>>;
      readonly exception?: boolean;
    }
  | { readonly type: 'list'; readonly member: ShapeRef; readonly flattened?: boolean }
  | { readonly type: 'map'; readonly key: ShapeRef; readonly value: ShapeRef; readonly flattened?: boolean }
  | { readonly type: 'string'; readonly enum?: readonly string[] }
  | { readonly type: 'integer' | 'long' | 'boolean' | 'blob' | 'double' | 'float' | 'timestamp' };

export interface Operation {
  readonly name: string;
  readonly inputShape: string | undefined;
  readonly outputShape: string | undefined;
}

/** A value decoded from either protocol, typed by the model: maps and structures are plain objects. */
export type ModelValue = string | number | boolean | Uint8Array | ModelValue[] | { [key: string]: ModelValue };
export type ModelStructure = { [key: string]: ModelValue };

export class ServiceModelError extends Error {
  override readonly name = 'ServiceModelError';
}

export class SqsServiceModel {
  readonly targetPrefix: string;
  readonly apiVersion: string;
  private readonly operations = new Map<string, Operation>();
  /** raftq's own actions: decoded like AWS's, but not in operationNames(), which is AWS's list. */
  private readonly extensionOperations = new Map<string, Operation>();
  private readonly shapes = new Map<string, Shape>();
  /** Each structure's members as a list, made once: both codecs walk it for every request and answer. */
  private readonly memberLists = new Map<string, ReadonlyArray<readonly [string, ShapeRef]>>();

  constructor(raw: unknown) {
    if (typeof raw !== 'object' || raw === null)
      throw new ServiceModelError('The SQS service model is not a JSON object');
    const model = raw as {
      metadata?: Record<string, unknown>;
      operations?: Record<string, Record<string, unknown>>;
      shapes?: Record<string, Shape>;
    };
    if (!model.metadata || !model.operations || !model.shapes)
      throw new ServiceModelError('The SQS service model lacks metadata, operations or shapes');
    this.targetPrefix = String(model.metadata['targetPrefix'] ?? 'AmazonSQS');
    this.apiVersion = String(model.metadata['apiVersion'] ?? '2012-11-05');
    for (const [name, shape] of Object.entries(model.shapes)) this.shapes.set(name, shape);
    for (const [name, op] of Object.entries(model.operations)) {
      const input = op['input'] as { shape?: string } | undefined;
      const output = op['output'] as { shape?: string } | undefined;
      this.operations.set(name, { name, inputShape: input?.shape, outputShape: output?.shape });
    }
    for (const [name, shape] of Object.entries(raftqExtensionModel.shapes)) this.shapes.set(name, shape);
    for (const op of raftqExtensionModel.operations) this.extensionOperations.set(op.name, op);
    for (const op of this.operations.values()) {
      for (const shapeName of [op.inputShape, op.outputShape]) {
        if (shapeName !== undefined && !this.shapes.has(shapeName))
          throw new ServiceModelError(`Operation ${op.name} names a missing shape ${shapeName}`);
      }
    }
  }

  static load(path: string = resolveSqsServiceModelPath()): SqsServiceModel {
    return new SqsServiceModel(JSON.parse(readFileSync(path, 'utf8')));
  }

  operation(name: string): Operation | undefined {
    return this.operations.get(name) ?? this.extensionOperations.get(name);
  }

  operationNames(): string[] {
    return [...this.operations.keys()];
  }

  shape(name: string): Shape {
    const shape = this.shapes.get(name);
    if (shape === undefined) throw new ServiceModelError(`The SQS service model has no shape ${name}`);
    return shape;
  }

  /** The members of structure shape `name`, in model order (what Object.entries of its members gives). */
  members(name: string): ReadonlyArray<readonly [string, ShapeRef]> {
    const known = this.memberLists.get(name);
    if (known !== undefined) return known;
    const shape = this.shape(name);
    if (shape.type !== 'structure')
      throw new ServiceModelError(`The SQS service model's shape ${name} is not a structure`);
    const list = Object.entries(shape.members);
    this.memberLists.set(name, list);
    return list;
  }

  /** The values of a string enum shape, or undefined for a free-form string. */
  enumValues(name: string): readonly string[] | undefined {
    const shape = this.shape(name);
    return shape.type === 'string' ? shape.enum : undefined;
  }
}

/**
 * Where the model lives: `RAFTQ_SQS_SERVICE_MODEL` if set (a full botocore service-2.json, e.g. a
 * newer one), else the structural model shipped with raftq, `model/sqs-shapes.json` (derived from
 * AWS's by `npm run sqs-shapes`, without its documentation), so a node needs nothing beside it.
 */
export function resolveSqsServiceModelPath(env: NodeJS.ProcessEnv = process.env): string {
  const override = env['RAFTQ_SQS_SERVICE_MODEL'];
  if (override !== undefined && override !== '') return resolve(override);
  const bundled = join(repositoryRoot(), 'model', 'sqs-shapes.json');
  if (existsSync(bundled)) return bundled;
  throw new ServiceModelError(
    `The SQS service model was not found at ${bundled}; set RAFTQ_SQS_SERVICE_MODEL to a service-2.json`,
  );
}

/** The directory holding raftq's package.json, found from this file (src/ or dist/src/). */
export function repositoryRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (let depth = 0; depth < 6; depth++) {
    const pkg = join(dir, 'package.json');
    if (existsSync(pkg) && readPackageName(pkg) === 'raftq') return dir;
    dir = dirname(dir);
  }
  throw new ServiceModelError('Cannot find the raftq package root above the gateway sources');
}

function readPackageName(path: string): string | undefined {
  try {
    return (JSON.parse(readFileSync(path, 'utf8')) as { name?: string }).name;
  } catch {
    return undefined;
  }
}

let cachedModel: SqsServiceModel | undefined;

/** The model from its default location, parsed once per process. */
export function defaultSqsServiceModel(): SqsServiceModel {
  cachedModel ??= SqsServiceModel.load();
  return cachedModel;
}
