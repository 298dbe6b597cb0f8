import type { QueueOperations } from '../queue/queue-operations.js';
import { SqsApiError, toSqsApiError } from './errors.js';
import { queueNameFromUrl } from './queue-url.js';
import type { ModelStructure, ModelValue, SqsServiceModel } from './service-model.js';

/** What one action needs besides its decoded input: the queue layer and the request's context. */
export interface ActionContext {
  readonly queueService: QueueOperations;
  readonly model: SqsServiceModel;
  /** Builds the URL of a queue from the request's Host header. */
  queueUrl(queueName: string): string;
  /** SenderId of sent messages: the caller's access key id, or the account id without auth. */
  readonly senderId: string;
  /** Aborted when the client goes away, the request deadline passes, or the server closes. */
  readonly signal: AbortSignal;
  /** The request's X-Amzn-Trace-Id header: sent messages carry it as AWSTraceHeader unless they name their own. */
  readonly traceHeader?: string;
}

export type ActionHandler = (ctx: ActionContext, input: ModelStructure) => Promise<ModelStructure>;

export function requireString(input: ModelStructure, name: string): string {
  const value = input[name];
  if (typeof value !== 'string' || value === '')
    throw new SqsApiError('MissingParameter', `The request must contain the parameter ${name}.`);
  return value;
}

export function optionalString(input: ModelStructure, name: string): string | undefined {
  const value = input[name];
  return typeof value === 'string' ? value : undefined;
}

export function stringList(input: ModelStructure, name: string): string[] {
  const value = input[name];
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : [];
}

export function stringMap(input: ModelStructure, name: string): Record<string, string> {
  const value = input[name];
  const out: Record<string, string> = {};
  if (value === undefined || typeof value !== 'object' || Array.isArray(value) || value instanceof Uint8Array)
    return out;
  for (const [key, v] of Object.entries(value)) if (typeof v === 'string') out[key] = v;
  return out;
}

export function structureList(input: ModelStructure, name: string): ModelStructure[] | undefined {
  const value = input[name];
  return Array.isArray(value) ? (value as ModelStructure[]) : undefined;
}

/**
 * An optional integer parameter within [min, max]; `reason` completes AWS's sentence
 * "Value N for parameter X is invalid. Reason: …".
 */
export function optionalIntInRange(
  input: ModelStructure,
  name: string,
  range: { min: number; max: number; reason?: string },
): number | undefined {
  const value = input[name];
  if (value === undefined) return undefined;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < range.min || value > range.max) {
    const reason = range.reason ?? `Must be between ${range.min} and ${range.max}, if provided.`;
    throw new SqsApiError(
      'InvalidParameterValue',
      `Value ${String(value)} for parameter ${name} is invalid. Reason: ${reason}`,
    );
  }
  return value;
}

/** The queue a request addresses: QueueUrl, which the server fills from the path when absent. */
export function queueNameOf(input: ModelStructure): string {
  return queueNameFromUrl(requireString(input, 'QueueUrl'));
}

/** Drops undefined members so the output holds only what the protocol encoders should write. */
export function compact(output: Record<string, ModelValue | undefined>): ModelStructure {
  const out: ModelStructure = {};
  // for…in over a plain object literal: its own members only, without the pairs Object.entries builds.
  for (const key in output) {
    const value = output[key];
    if (value !== undefined) out[key] = value;
  }
  return out;
}

/** A per-entry failure of a batch, shaped as BatchResultErrorEntry. */
export function batchErrorEntry(id: string, err: unknown): ModelStructure {
  const apiError = toSqsApiError(err);
  return {
    Id: id,
    SenderFault: apiError.definition.fault === 'Sender',
    Code: apiError.definition.queryCode,
    Message: apiError.message,
  };
}
