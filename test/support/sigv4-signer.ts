import { createHash, createHmac } from 'node:crypto';
import { SignatureV4 } from '@smithy/signature-v4';

type Bytes = string | ArrayBuffer | ArrayBufferView;

/**
 * SHA-256 and HMAC-SHA-256 over node:crypto, in the shape the SDK's signer takes (its Checksum
 * interface). The tests sign with the SDK's own SigV4 implementation so that our verifier is
 * checked against an independent signer, not against itself.
 */
export class NodeSha256 {
  private hash;
  constructor(private readonly secret?: Bytes) {
    this.hash = NodeSha256.create(secret);
  }
  private static create(secret: Bytes | undefined) {
    if (secret === undefined) return createHash('sha256');
    const key =
      typeof secret === 'string'
        ? secret
        : secret instanceof ArrayBuffer
          ? new Uint8Array(secret)
          : new Uint8Array(secret.buffer, secret.byteOffset, secret.byteLength);
    return createHmac('sha256', key);
  }
  reset(): void {
    this.hash = NodeSha256.create(this.secret);
  }
  update(data: Bytes): void {
    if (typeof data === 'string') this.hash.update(data, 'utf8');
    else if (data instanceof ArrayBuffer) this.hash.update(new Uint8Array(data));
    else this.hash.update(new Uint8Array(data.buffer, data.byteOffset, data.byteLength));
  }
  async digest(): Promise<Uint8Array> {
    return new Uint8Array(this.hash.digest());
  }
}

export interface SigV4SignerOptions {
  readonly accessKeyId: string;
  readonly secretAccessKey: string;
  /** Defaults to us-east-1, the region the node assumes. */
  readonly region?: string;
  /** Defaults to sqs. */
  readonly service?: string;
}

/** The SDK's SigV4 signer for one key, region and service. */
export function sigV4Signer(options: SigV4SignerOptions): SignatureV4 {
  return new SignatureV4({
    credentials: { accessKeyId: options.accessKeyId, secretAccessKey: options.secretAccessKey },
    region: options.region ?? 'us-east-1',
    service: options.service ?? 'sqs',
    sha256: NodeSha256,
  });
}
