import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { SqsApiError } from '../../src/sqs/errors.js';
import { md5OfMessageAttributes, md5OfMessageBody } from '../../src/sqs/message-md5.js';
import {
  findInvalidCharacter,
  isSqsNumber,
  parseMessageAttributes,
  parseMessageSystemAttributes,
  validateBatchEntries,
} from '../../src/sqs/message-validation.js';
import { validateQueueName } from '../../src/sqs/queue-url.js';

function errorOf(fn: () => unknown): SqsApiError {
  try {
    fn();
  } catch (err) {
    if (err instanceof SqsApiError) return err;
    throw err;
  }
  throw new Error('expected an SqsApiError');
}

describe('MD5 digests', () => {
  // Digests AWS returned in the AWS CLI's documented receive-message examples.
  it('matches AWS for message attributes, sorted by name', () => {
    expect(md5OfMessageAttributes({ PostalCode: { dataType: 'String', stringValue: 'ABC123' } })).toMatch(
      /^b8e89563.*e088e74f$/,
    );
    expect(
      md5OfMessageAttributes({
        PostalCode: { dataType: 'String', stringValue: 'ABC123' },
        City: { dataType: 'String', stringValue: 'Any City' },
      }),
    ).toMatch(/^9424c491.*26bc3ae7$/);
  });

  it('matches AWS for a body', () => {
    expect(md5OfMessageBody('Information about the largest city in Any Region.')).toMatch(/^51b0a325.*39163aa0$/);
  });

  it('has no digest for no attributes, and a different one per transport type', () => {
    expect(md5OfMessageAttributes({})).toBeUndefined();
    const asString = md5OfMessageAttributes({ a: { dataType: 'String.x', stringValue: 'AQ==' } });
    const asBinary = md5OfMessageAttributes({ a: { dataType: 'Binary.x', binaryValue: Buffer.from('AQ==') } });
    expect(asString).not.toBe(asBinary);
  });
});

describe('message body characters', () => {
  it('accepts exactly #x9 #xA #xD #x20-#xD7FF #xE000-#xFFFD #x10000-#x10FFFF', () => {
    const isAllowed = (cp: number) =>
      cp === 0x9 ||
      cp === 0xa ||
      cp === 0xd ||
      (cp >= 0x20 && cp <= 0xd7ff) ||
      (cp >= 0xe000 && cp <= 0xfffd) ||
      (cp >= 0x10000 && cp <= 0x10ffff);
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 0x10ffff }), (cp) => {
        if (cp >= 0xd800 && cp <= 0xdfff) return; // not a scalar value: tested below as lone surrogates
        expect(findInvalidCharacter(`ok${String.fromCodePoint(cp)}ok`) === undefined).toBe(isAllowed(cp));
      }),
      { numRuns: 2000 },
    );
    expect(findInvalidCharacter('\ud800')).toBe(0xd800);
    expect(findInvalidCharacter('a\udc00')).toBe(0xdc00);
    expect(findInvalidCharacter('\ud83d\ude00')).toBeUndefined();
  });
});

describe('message attributes', () => {
  const string = (v: string) => ({ DataType: 'String', StringValue: v });

  it('accepts the three types with custom suffixes', () => {
    const parsed = parseMessageAttributes({
      a: string('x'),
      n: { DataType: 'Number.int', StringValue: '-1.5e3' },
      b: { DataType: 'Binary.png', BinaryValue: new Uint8Array([1]) },
    });
    expect(Object.keys(parsed)).toEqual(['a', 'n', 'b']);
  });

  it.each([
    [{ '': string('x') }, 'non-empty message attribute name'],
    [{ 'AWS.thing': string('x') }, 'reserved'],
    [{ 'amazon.thing': string('x') }, 'reserved'],
    [{ '.lead': string('x') }, 'invalid'],
    [{ 'trail.': string('x') }, 'invalid'],
    [{ 'two..dots': string('x') }, 'invalid'],
    [{ 'spa ce': string('x') }, 'invalid'],
    [{ a: { DataType: '', StringValue: 'x' } }, 'non-empty message attribute type'],
    [{ a: { DataType: 'string', StringValue: 'x' } }, 'supported type prefixes is Binary, Number, and String'],
    [{ a: { DataType: 'String', StringValue: '' } }, "non-empty value of type 'String'"],
    [{ a: { DataType: 'Binary' } }, "non-empty value of type 'Binary'"],
    [{ a: { DataType: 'Number', StringValue: 'twelve' } }, 'to a number'],
    [{ a: { DataType: 'String', StringValue: 'bad\u0001' } }, 'invalid character'],
    [
      { a: { DataType: 'String', StringValue: 'x', BinaryValue: new Uint8Array([1]) } },
      "Message (user) attribute 'a' must have a single value.",
    ],
    [
      { a: { DataType: 'Binary', StringValue: '', BinaryValue: new Uint8Array([1]) } },
      "Message (user) attribute 'a' must have a single value.",
    ],
    [
      { a: { DataType: 'String', BinaryValue: new Uint8Array([1]) } },
      "Message (user) attribute 'a' with type 'String' must use field 'String'.",
    ],
    [
      { a: { DataType: 'Number', BinaryValue: new Uint8Array([1]) } },
      "Message (user) attribute 'a' with type 'Number' must use field 'String'.",
    ],
    [
      { a: { DataType: 'Binary.png', StringValue: 'AQ==' } },
      "Message (user) attribute 'a' with type 'Binary.png' must use field 'Binary'.",
    ],
  ])('refuses %j with InvalidParameterValue', (attributes, fragment) => {
    const err = errorOf(() => parseMessageAttributes(attributes));
    expect(err.definition.name).toBe('InvalidParameterValue');
    expect(err.message).toContain(fragment);
  });

  it('refuses a system attribute with two values or its value in the wrong field', () => {
    const both = errorOf(() =>
      parseMessageSystemAttributes({
        AWSTraceHeader: { DataType: 'String', StringValue: 'Root=1', BinaryValue: new Uint8Array([1]) },
      }),
    );
    expect(both.message).toBe("Message (system) attribute 'AWSTraceHeader' must have a single value.");
    const wrongField = errorOf(() =>
      parseMessageSystemAttributes({ AWSTraceHeader: { DataType: 'String', BinaryValue: new Uint8Array([1]) } }),
    );
    expect(wrongField.message).toBe(
      "Message (system) attribute 'AWSTraceHeader' with type 'String' must use field 'String'.",
    );
  });

  it('refuses more than 10 attributes', () => {
    const many = Object.fromEntries(Array.from({ length: 11 }, (_, i) => [`a${i}`, string('x')]));
    expect(errorOf(() => parseMessageAttributes(many)).message).toBe(
      'Number of message attributes [11] exceeds the allowed maximum [10].',
    );
  });

  it('judges numbers by 38 significant digits and magnitude 1e-128 to 1e126', () => {
    expect(isSqsNumber('0')).toBe(true);
    expect(isSqsNumber('1'.repeat(38))).toBe(true);
    expect(isSqsNumber('1'.repeat(39))).toBe(false);
    expect(isSqsNumber('1'.repeat(38) + '000')).toBe(true);
    expect(isSqsNumber('1e126')).toBe(true);
    expect(isSqsNumber('1e127')).toBe(false);
    expect(isSqsNumber('0.001e-125')).toBe(true);
    expect(isSqsNumber('1e-129')).toBe(false);
    expect(isSqsNumber('.5')).toBe(true);
    expect(isSqsNumber('1.')).toBe(true);
    expect(isSqsNumber('NaN')).toBe(false);
    expect(isSqsNumber('')).toBe(false);
  });
});

describe('batch entry ids and queue names', () => {
  it('accepts 1-80 of [A-Za-z0-9_-] as ids', () => {
    expect(validateBatchEntries([{ Id: 'A-z_0' }, { Id: 'x'.repeat(80) }], 'E')).toHaveLength(2);
    expect(errorOf(() => validateBatchEntries([{ Id: 'é' }], 'E')).definition.name).toBe('InvalidBatchEntryId');
  });

  it('accepts 1-80 of [A-Za-z0-9_-] as queue names, .fifo counting toward the 80', () => {
    expect(validateQueueName('a'.repeat(80))).toHaveLength(80);
    expect(validateQueueName(`${'a'.repeat(75)}.fifo`)).toHaveLength(80);
    for (const bad of ['a'.repeat(81), `${'a'.repeat(76)}.fifo`, 'has space', 'dot.ted', '']) {
      expect(errorOf(() => validateQueueName(bad)).definition.name, bad).toMatch(
        /InvalidParameterValue|MissingParameter/,
      );
    }
  });
});
