import { createHash, hash } from 'node:crypto';

/**
 * The MD5 digests SQS returns with every send and receive, computed the way AWS computes them so
 * that the SDKs' own checksum validation (on by default in @aws-sdk/client-sqs) accepts them.
 */

/** A message attribute as the gateway holds it after validation. */
export interface MessageAttributeValue {
  readonly dataType: string;
  readonly stringValue?: string;
  readonly binaryValue?: Uint8Array;
}

/** Transport type byte: 1 for values sent as strings (String, Number), 2 for Binary. */
const stringTransport = 1;
const binaryTransport = 2;

/** One-shot `hash` (Node.js 20.12+): about 1.8 µs for 1 KiB here, against 2.8 µs through a Hash object. */
export function md5OfMessageBody(body: string): string {
  return hash('md5', body, 'hex');
}

/**
 * MD5 over the attributes sorted by name (code-unit order, as AWS sorts them), each encoded as
 * length-prefixed name, length-prefixed data type, one transport byte, length-prefixed value;
 * lengths are 4-byte big-endian byte counts. The same encoding serves message system attributes.
 * Returns undefined for no attributes: AWS then omits the digest.
 */
export function md5OfMessageAttributes(
  attributes: Readonly<Record<string, MessageAttributeValue>>,
): string | undefined {
  const names = Object.keys(attributes).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  if (names.length === 0) return undefined;
  const hash = createHash('md5');
  for (const name of names) {
    const attribute = attributes[name];
    if (attribute === undefined) continue;
    updateLengthPrefixed(hash, Buffer.from(name, 'utf8'));
    updateLengthPrefixed(hash, Buffer.from(attribute.dataType, 'utf8'));
    if (isBinaryDataType(attribute.dataType)) {
      hash.update(Uint8Array.of(binaryTransport));
      updateLengthPrefixed(hash, attribute.binaryValue ?? new Uint8Array(0));
    } else {
      hash.update(Uint8Array.of(stringTransport));
      updateLengthPrefixed(hash, Buffer.from(attribute.stringValue ?? '', 'utf8'));
    }
  }
  return hash.digest('hex');
}

export function isBinaryDataType(dataType: string): boolean {
  return dataType === 'Binary' || dataType.startsWith('Binary.');
}

function updateLengthPrefixed(hash: ReturnType<typeof createHash>, bytes: Uint8Array): void {
  const length = Buffer.alloc(4);
  length.writeUInt32BE(bytes.byteLength, 0);
  hash.update(length);
  hash.update(bytes);
}
