import { sqsLimits } from '../base/limits.js';
import { SqsApiError } from './errors.js';
import { isBinaryDataType, type MessageAttributeValue } from './message-md5.js';
import type { ModelStructure, ModelValue } from './service-model.js';

/**
 * Request-shape rules for messages, as AWS applies them before a message reaches a queue: body
 * characters, message attributes, system attributes, batch entry ids. Rules that depend on a
 * queue's attributes (MaximumMessageSize, FIFO parameters) belong to the queue layer.
 */

const allowedCharactersText = '#x9 | #xA | #xD | #x20 to #xD7FF | #xE000 to #xFFFD | #x10000 to #x10FFFF';

/** The first code point outside XML 1.0's Char production, or undefined when all are allowed. */
export function findInvalidCharacter(text: string): number | undefined {
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i);
    if (unit >= 0x20 && unit <= 0xd7ff) continue;
    if (unit === 0x9 || unit === 0xa || unit === 0xd) continue;
    if (unit >= 0xe000 && unit <= 0xfffd) continue;
    if (unit >= 0xd800 && unit <= 0xdbff) {
      const next = text.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) {
        i++;
        continue;
      }
    }
    return unit;
  }
  return undefined;
}

function describeCodePoint(codePoint: number): string {
  return `#x${codePoint.toString(16).toUpperCase()}`;
}

/** A message body must be present, non-empty and made of allowed characters. */
export function validateMessageBody(body: string | undefined, parameterName = 'MessageBody'): string {
  if (body === undefined || body === '')
    throw new SqsApiError('MissingParameter', `The request must contain the parameter ${parameterName}.`);
  const invalid = findInvalidCharacter(body);
  if (invalid !== undefined) {
    throw new SqsApiError(
      'InvalidMessageContents',
      `Invalid binary character '${describeCodePoint(invalid)}' was found in the message body, the set of allowed characters is ${allowedCharactersText}`,
    );
  }
  return body;
}

/** Letters and digits of any script (`attr.1øßä`), `_`, `-` and `.`, as AWS takes them. */
const attributeNamePattern = /^[\p{L}\p{N}_.-]+$/u;
const reservedAttributePrefixes = ['aws.', 'amazon.'];
const dataTypePattern = /^(String|Number|Binary)(\..+)?$/;

/** Validates the MessageAttributes of one message and converts them to the gateway's form. */
export function parseMessageAttributes(raw: ModelValue | undefined): Record<string, MessageAttributeValue> {
  if (raw === undefined) return {};
  const entries = Object.entries(raw as ModelStructure);
  if (entries.length > sqsLimits.messageAttributesMax.value) {
    throw new SqsApiError(
      'InvalidParameterValue',
      `Number of message attributes [${entries.length}] exceeds the allowed maximum [${sqsLimits.messageAttributesMax.value}].`,
    );
  }
  const out: Record<string, MessageAttributeValue> = {};
  for (const [name, value] of entries) {
    validateAttributeName(name);
    out[name] = parseAttributeValue(name, value as ModelStructure, 'user');
  }
  return out;
}

function validateAttributeName(name: string): void {
  if (name === '')
    throw new SqsApiError('InvalidParameterValue', 'The request must contain non-empty message attribute name.');
  if (name.length > sqsLimits.messageAttributeNameLengthMax.value) {
    throw new SqsApiError(
      'InvalidParameterValue',
      `Message (user) attribute name '${name.slice(0, 32)}...' is longer than ${sqsLimits.messageAttributeNameLengthMax.value} characters.`,
    );
  }
  const lower = name.toLowerCase();
  if (reservedAttributePrefixes.some((prefix) => lower.startsWith(prefix))) {
    throw new SqsApiError(
      'InvalidParameterValue',
      `Message (user) attribute name '${name}' is invalid: the prefixes AWS. and Amazon. (in any case) are reserved for use by AWS.`,
    );
  }
  if (!attributeNamePattern.test(name) || name.startsWith('.') || name.endsWith('.') || name.includes('..')) {
    throw new SqsApiError(
      'InvalidParameterValue',
      `Message (user) attribute name '${name}' is invalid: use only letters, digits, hyphens (-), underscores (_) and periods (.), not starting or ending with a period nor with two periods in a row.`,
    );
  }
}

function parseAttributeValue(name: string, value: ModelStructure, kind: 'user' | 'system'): MessageAttributeValue {
  const dataType = value['DataType'] as string | undefined;
  if (dataType === undefined || dataType === '') {
    throw new SqsApiError(
      'InvalidParameterValue',
      `The message attribute '${name}' must contain non-empty message attribute type.`,
    );
  }
  if (dataType.length > sqsLimits.messageAttributeTypeLengthMax.value) {
    throw new SqsApiError(
      'InvalidParameterValue',
      `The message attribute '${name}' has a type longer than ${sqsLimits.messageAttributeTypeLengthMax.value} characters.`,
    );
  }
  if (!dataTypePattern.test(dataType)) {
    throw new SqsApiError(
      'InvalidParameterValue',
      `The message attribute '${name}' has an invalid message attribute type, the set of supported type prefixes is Binary, Number, and String.`,
    );
  }
  if (findInvalidCharacter(dataType) !== undefined) {
    throw new SqsApiError(
      'InvalidParameterValue',
      `The message attribute '${name}' has a type that contains characters outside the allowed set ${allowedCharactersText}.`,
    );
  }
  const hasList =
    (value['StringListValues'] as ModelValue[] | undefined)?.length ||
    (value['BinaryListValues'] as ModelValue[] | undefined)?.length;
  if (hasList)
    throw new SqsApiError(
      'InvalidParameterValue',
      `Message (${kind}) attribute '${name}': list values (StringListValues, BinaryListValues) are not supported.`,
    );
  // One value, in the field its type takes: storing one and dropping the other would change the
  // message behind the client's back (and its MD5 would no longer match what the client sent).
  const hasStringValue = value['StringValue'] !== undefined;
  const hasBinaryValue = value['BinaryValue'] !== undefined;
  if (hasStringValue && hasBinaryValue)
    throw new SqsApiError('InvalidParameterValue', `Message (${kind}) attribute '${name}' must have a single value.`);
  const field = isBinaryDataType(dataType) ? 'Binary' : 'String';
  if (field === 'Binary' ? hasStringValue : hasBinaryValue) {
    throw new SqsApiError(
      'InvalidParameterValue',
      `Message (${kind}) attribute '${name}' with type '${dataType}' must use field '${field}'.`,
    );
  }
  if (field === 'Binary') {
    const binaryValue = value['BinaryValue'] as Uint8Array | undefined;
    if (binaryValue === undefined || binaryValue.byteLength === 0) {
      throw new SqsApiError(
        'InvalidParameterValue',
        `Message (${kind}) attribute '${name}' must contain a non-empty value of type 'Binary'.`,
      );
    }
    return { dataType, binaryValue };
  }
  const stringValue = value['StringValue'] as string | undefined;
  const logicalType = dataType.startsWith('Number') ? 'Number' : 'String';
  if (stringValue === undefined || stringValue === '') {
    throw new SqsApiError(
      'InvalidParameterValue',
      `Message (${kind}) attribute '${name}' must contain a non-empty value of type '${logicalType}'.`,
    );
  }
  const invalid = findInvalidCharacter(stringValue);
  if (invalid !== undefined) {
    throw new SqsApiError(
      'InvalidParameterValue',
      `Message (${kind}) attribute '${name}' contains the invalid character '${describeCodePoint(invalid)}'; the set of allowed characters is ${allowedCharactersText}.`,
    );
  }
  if (logicalType === 'Number' && !isSqsNumber(stringValue)) {
    throw new SqsApiError(
      'InvalidParameterValue',
      `Can't cast the value of message (${kind}) attribute '${name}' to a number: numbers have up to 38 digits of precision, between 10^-128 and 10^+126.`,
    );
  }
  return { dataType, stringValue };
}

const numberPattern = /^[+-]?(?:(\d+)(?:\.(\d*))?|\.(\d+))(?:[eE]([+-]?\d+))?$/;

/** SQS Number: a decimal with at most 38 significant digits and magnitude in [1e-128, 1e126]. */
export function isSqsNumber(text: string): boolean {
  const match = numberPattern.exec(text.trim());
  if (match === null) return false;
  const intPart = match[1] ?? '';
  const fracPart = match[2] ?? match[3] ?? '';
  const exponent = Number(match[4] ?? '0');
  if (!Number.isSafeInteger(exponent)) return false;
  const allDigits = intPart + fracPart;
  const leadingZeros = allDigits.length - allDigits.replace(/^0+/, '').length;
  const significant = allDigits.slice(leadingZeros).replace(/0+$/, '');
  if (significant === '') return true; // zero
  if (significant.length > 38) return false;
  // Decimal exponent of the leading significant digit (123 -> 2, 0.001 -> -3).
  const magnitude = intPart.length - leadingZeros - 1 + exponent;
  return magnitude >= -128 && magnitude <= 126;
}

/** MessageSystemAttributes: AWS accepts only AWSTraceHeader, a String. */
export function parseMessageSystemAttributes(raw: ModelValue | undefined): Record<string, MessageAttributeValue> {
  if (raw === undefined) return {};
  const out: Record<string, MessageAttributeValue> = {};
  for (const [name, value] of Object.entries(raw as ModelStructure)) {
    if (name !== 'AWSTraceHeader') {
      throw new SqsApiError(
        'InvalidParameterValue',
        `Message system attribute name '${name}' is invalid; the only message system attribute a sender may set is AWSTraceHeader.`,
      );
    }
    const parsed = parseAttributeValue(name, value as ModelStructure, 'system');
    if (parsed.dataType !== 'String') {
      throw new SqsApiError(
        'InvalidParameterValue',
        `Message system attribute '${name}' must be of type 'String', not '${parsed.dataType}'.`,
      );
    }
    out[name] = parsed;
  }
  return out;
}

const batchEntryIdPattern = /^[A-Za-z0-9_-]+$/;

/**
 * Request-shape checks of every *Batch action, in AWS's order: no entries, too many entries, an
 * id of the wrong syntax, two entries with one id. Any of them fails the whole request.
 */
export function validateBatchEntries(
  entries: readonly ModelStructure[] | undefined,
  entryName: string,
): readonly ModelStructure[] {
  if (entries === undefined || entries.length === 0) {
    throw new SqsApiError('EmptyBatchRequest', `There should be at least one ${entryName} in the request.`);
  }
  const max = sqsLimits.batchEntriesMax.value;
  if (entries.length > max) {
    throw new SqsApiError(
      'TooManyEntriesInBatchRequest',
      `Maximum number of entries per request are ${max}. You have sent ${entries.length}.`,
    );
  }
  const seen = new Set<string>();
  for (const entry of entries) {
    const id = entry['Id'];
    if (typeof id !== 'string' || id === '')
      throw new SqsApiError('MissingParameter', `The request must contain the parameter ${entryName}.Id.`);
    if (id.length > sqsLimits.batchEntryIdLengthMax.value || !batchEntryIdPattern.test(id)) {
      throw new SqsApiError(
        'InvalidBatchEntryId',
        `A batch entry id can only contain alphanumeric characters, hyphens and underscores. It can be at most ${sqsLimits.batchEntryIdLengthMax.value} letters long.`,
      );
    }
  }
  for (const entry of entries) {
    const id = entry['Id'] as string;
    if (seen.has(id)) throw new SqsApiError('BatchEntryIdsNotDistinct', `Id ${id} repeated.`);
    seen.add(id);
  }
  return entries;
}

/** MessageGroupId, MessageDeduplicationId, ReceiveRequestAttemptId: 1-128 printable ASCII characters. */
export function validateFifoToken(value: string | undefined, parameterName: string): string | undefined {
  if (value === undefined) return undefined;
  const max = sqsLimits.fifoIdLengthMax.value;
  if (value.length === 0 || value.length > max || !/^[!-~]+$/.test(value)) {
    throw new SqsApiError(
      'InvalidParameterValue',
      `Value ${value.slice(0, 140)} for parameter ${parameterName} is invalid. Reason: ${parameterName} can contain up to ${max} alphanumeric and punctuation characters.`,
    );
  }
  return value;
}
