import { SqsApiError, type AwsErrorDefinition } from './errors.js';
import type { ModelStructure, ModelValue, SqsServiceModel } from './service-model.js';
import { decodeStrictUtf8 } from './strict-utf8.js';

/**
 * The AWS JSON 1.0 protocol, driven by the service model: a request body is a JSON object whose
 * members are the input shape's members; a response is the output shape as JSON; blobs travel as
 * base64. Errors are `{__type, message}` with the legacy query code in `x-amzn-query-error`.
 */

export const jsonContentType = 'application/x-amz-json-1.0';

/**
 * A JSON body as text. JSON text is UTF-8 (RFC 8259), and a body that is not cannot be parsed: a
 * SerializationException, as for any other body that is not JSON, rather than a lossy decode that
 * would store U+FFFD in place of the bytes the client sent.
 */
export function jsonBodyText(body: Uint8Array): string {
  const decoded = decodeStrictUtf8(body);
  if ('text' in decoded) return decoded.text;
  const byte = decoded.invalidByte.toString(16).toUpperCase().padStart(2, '0');
  throw new SqsApiError(
    'SerializationException',
    `The request body is not valid JSON: it is not valid UTF-8 (byte 0x${byte} at offset ${decoded.invalidOffset}).`,
  );
}

/** Decodes and type-checks a JSON request body against the operation's input shape. */
export function decodeJsonRequest(
  model: SqsServiceModel,
  inputShape: string | undefined,
  bodyText: string,
): ModelStructure {
  let parsed: unknown;
  try {
    parsed = bodyText.trim() === '' ? {} : JSON.parse(bodyText);
  } catch (err) {
    throw new SqsApiError('SerializationException', `The request body is not valid JSON: ${(err as Error).message}`);
  }
  if (inputShape === undefined) return {};
  const value = decodeValue(model, inputShape, parsed, '');
  return value as ModelStructure;
}

function decodeValue(model: SqsServiceModel, shapeName: string, raw: unknown, path: string): ModelValue {
  const shape = model.shape(shapeName);
  switch (shape.type) {
    case 'structure': {
      if (!isPlainObject(raw)) throw typeMismatch(path, 'an object', raw);
      const out: ModelStructure = {};
      for (const [member, ref] of model.members(shapeName)) {
        const memberRaw = raw[member];
        if (memberRaw === undefined || memberRaw === null) continue;
        out[member] = decodeValue(model, ref.shape, memberRaw, joinPath(path, member));
      }
      return out;
    }
    case 'list': {
      if (!Array.isArray(raw)) throw typeMismatch(path, 'a list', raw);
      return raw.map((item, index) => {
        if (item === null || item === undefined) throw typeMismatch(`${path}[${index}]`, 'a value', item);
        return decodeValue(model, shape.member.shape, item, `${path}[${index}]`);
      });
    }
    case 'map': {
      if (!isPlainObject(raw)) throw typeMismatch(path, 'a map', raw);
      const out: ModelStructure = {};
      for (const [key, entry] of Object.entries(raw)) {
        // A key without a value is refused rather than dropped: dropping it would quietly change
        // what the client asked for (a message attribute, a queue attribute, a tag).
        if (entry === null || entry === undefined) throw typeMismatch(`${path}.${key}`, 'a value', entry);
        out[key] = decodeValue(model, shape.value.shape, entry, `${path}.${key}`);
      }
      return out;
    }
    case 'string':
      if (typeof raw !== 'string') throw typeMismatch(path, 'a string', raw);
      return raw;
    case 'integer':
    case 'long':
      if (typeof raw !== 'number' || !Number.isSafeInteger(raw)) throw typeMismatch(path, 'an integer', raw);
      return raw;
    case 'double':
    case 'float':
      if (typeof raw !== 'number' || !Number.isFinite(raw)) throw typeMismatch(path, 'a number', raw);
      return raw;
    case 'boolean':
      if (typeof raw !== 'boolean') throw typeMismatch(path, 'a boolean', raw);
      return raw;
    case 'blob':
      if (typeof raw !== 'string' || !isBase64(raw)) throw typeMismatch(path, 'base64-encoded binary', raw);
      return new Uint8Array(Buffer.from(raw, 'base64'));
    case 'timestamp':
      if (typeof raw !== 'number') throw typeMismatch(path, 'a timestamp', raw);
      return raw;
  }
}

/** Encodes an output structure as JSON, members in model order, blobs as base64. */
export function encodeJsonResponse(
  model: SqsServiceModel,
  outputShape: string | undefined,
  output: ModelStructure,
): string {
  if (outputShape === undefined) return '{}';
  return JSON.stringify(encodeValue(model, outputShape, output));
}

function encodeValue(model: SqsServiceModel, shapeName: string, value: ModelValue): unknown {
  const shape = model.shape(shapeName);
  switch (shape.type) {
    case 'structure': {
      const source = value as ModelStructure;
      const out: Record<string, unknown> = {};
      for (const [member, ref] of model.members(shapeName)) {
        const memberValue = source[member];
        if (memberValue !== undefined) out[member] = encodeValue(model, ref.shape, memberValue);
      }
      return out;
    }
    case 'list':
      return (value as ModelValue[]).map((item) => encodeValue(model, shape.member.shape, item));
    case 'map': {
      const out: Record<string, unknown> = {};
      for (const [key, entry] of Object.entries(value as ModelStructure))
        out[key] = encodeValue(model, shape.value.shape, entry);
      return out;
    }
    case 'blob':
      return Buffer.from(value as Uint8Array).toString('base64');
    default:
      return value;
  }
}

export interface EncodedError {
  readonly status: number;
  readonly headers: Record<string, string>;
  readonly body: string;
}

export function encodeJsonError(definition: AwsErrorDefinition, message: string): EncodedError {
  return {
    status: definition.httpStatus,
    headers: {
      'content-type': jsonContentType,
      'x-amzn-query-error': `${definition.queryCode};${definition.fault}`,
    },
    body: JSON.stringify({ __type: `com.amazonaws.sqs#${definition.name}`, message }),
  };
}

function isPlainObject(raw: unknown): raw is Record<string, unknown> {
  return typeof raw === 'object' && raw !== null && !Array.isArray(raw);
}

const base64Pattern = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=|[A-Za-z0-9+/]{2,3})?$/;

export function isBase64(text: string): boolean {
  return base64Pattern.test(text);
}

function joinPath(path: string, member: string): string {
  return path === '' ? member : `${path}.${member}`;
}

function typeMismatch(path: string, expected: string, raw: unknown): SqsApiError {
  const got = Array.isArray(raw) ? 'a list' : raw === null ? 'null' : typeof raw;
  return new SqsApiError(
    'SerializationException',
    `Value for ${path === '' ? 'the request body' : path} must be ${expected}, not ${got}.`,
  );
}
