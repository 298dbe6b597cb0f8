import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import type { Clock } from '../base/clock.js';
import { raftqLimits } from '../base/limits.js';
import type { CredentialStore } from './credentials-file.js';
import { SqsApiError } from './errors.js';

/**
 * AWS Signature Version 4, verified the way AWS verifies it: rebuild the canonical request from
 * what arrived (method, path, sorted query, the signed headers, the payload hash), derive the
 * signing key from the secret of the claimed access key, and compare signatures in constant time.
 * Both the Authorization header and presigned query strings (X-Amz-Signature) are accepted.
 */

export interface SignedRequest {
  readonly method: string;
  /** Path and query exactly as they arrived on the request line. */
  readonly rawUrl: string;
  /** Node's rawHeaders: name, value, name, value, ... */
  readonly rawHeaders: readonly string[];
  readonly body: Uint8Array;
}

export interface VerifiedCaller {
  readonly accessKeyId: string;
}

const algorithm = 'AWS4-HMAC-SHA256';
const emptyPayloadHash = sha256Hex(new Uint8Array(0));

interface SignatureParts {
  readonly accessKeyId: string;
  readonly date: string;
  readonly region: string;
  readonly service: string;
  readonly signedHeaders: readonly string[];
  readonly signature: string;
  readonly amzDate: string;
  readonly isPresigned: boolean;
  readonly expiresSeconds: number | undefined;
}

export class SigV4Verifier {
  private readonly signingKeys = new Map<string, Buffer>();

  constructor(
    private readonly credentials: CredentialStore,
    private readonly clock: Clock,
  ) {}

  verify(request: SignedRequest): VerifiedCaller {
    const queryIndex = request.rawUrl.indexOf('?');
    const rawPath = queryIndex < 0 ? request.rawUrl : request.rawUrl.slice(0, queryIndex);
    const rawQuery = queryIndex < 0 ? '' : request.rawUrl.slice(queryIndex + 1);
    const queryPairs = splitQuery(rawQuery);
    const headers = collectHeaders(request.rawHeaders);
    const parts = parseSignature(headers, queryPairs);
    const secret = this.credentials.get(parts.accessKeyId);
    if (secret === undefined)
      throw new SqsApiError('InvalidClientTokenId', 'The security token included in the request is invalid.');
    this.checkTime(parts);

    const canonicalQuery = canonicalQueryString(queryPairs, parts.isPresigned);
    const canonicalHeaders = parts.signedHeaders.map((name) => `${name}:${headers.get(name) ?? ''}\n`).join('');
    const payloadHashes = candidatePayloadHashes(headers, request.body, parts.isPresigned);
    const scope = `${parts.date}/${parts.region}/${parts.service}/aws4_request`;
    const key = this.signingKey(secret, parts);
    const provided = Buffer.from(parts.signature, 'hex');
    for (const canonicalPath of candidatePaths(rawPath)) {
      for (const payloadHash of payloadHashes) {
        const canonicalRequest = [
          request.method.toUpperCase(),
          canonicalPath,
          canonicalQuery,
          canonicalHeaders,
          parts.signedHeaders.join(';'),
          payloadHash,
        ].join('\n');
        const stringToSign = [algorithm, parts.amzDate, scope, sha256Hex(Buffer.from(canonicalRequest, 'utf8'))].join(
          '\n',
        );
        const expected = createHmac('sha256', key).update(stringToSign, 'utf8').digest();
        if (provided.length === expected.length && timingSafeEqual(provided, expected))
          return { accessKeyId: parts.accessKeyId };
      }
    }
    throw new SqsApiError(
      'SignatureDoesNotMatch',
      'The request signature we calculated does not match the signature you provided. Check your AWS Secret Access Key and signing method.',
    );
  }

  private checkTime(parts: SignatureParts): void {
    const signedAtMs = parseAmzDate(parts.amzDate);
    if (signedAtMs === undefined)
      throw new SqsApiError(
        'IncompleteSignature',
        `X-Amz-Date ${parts.amzDate} is not of the form YYYYMMDD'T'HHMMSS'Z'.`,
      );
    if (parts.amzDate.slice(0, 8) !== parts.date)
      throw new SqsApiError(
        'SignatureDoesNotMatch',
        `The credential scope date ${parts.date} does not match X-Amz-Date ${parts.amzDate}.`,
      );
    const nowMs = this.clock.nowMs();
    const skewMs = raftqLimits.sigV4ClockSkewMsMax.value;
    if (parts.isPresigned) {
      const expiresMs = (parts.expiresSeconds ?? 0) * 1000;
      if (signedAtMs - skewMs > nowMs)
        throw new SqsApiError(
          'SignatureDoesNotMatch',
          `The presigned request is dated ${parts.amzDate}, in the future.`,
        );
      if (nowMs > signedAtMs + expiresMs)
        throw new SqsApiError(
          'RequestExpired',
          `The presigned request expired at ${new Date(signedAtMs + expiresMs).toISOString()}.`,
        );
      return;
    }
    // Worded as SQS words them: people and tools recognise clock skew by these messages.
    const skewMinutes = skewMs / 60_000;
    if (signedAtMs < nowMs - skewMs) {
      throw new SqsApiError(
        'SignatureDoesNotMatch',
        `Signature expired: ${parts.amzDate} is now earlier than ${formatAmzDate(nowMs - skewMs)} (${formatAmzDate(nowMs)} - ${skewMinutes} min.)`,
      );
    }
    if (signedAtMs > nowMs + skewMs) {
      throw new SqsApiError(
        'SignatureDoesNotMatch',
        `Signature not yet current: ${parts.amzDate} is still later than ${formatAmzDate(nowMs + skewMs)} (${formatAmzDate(nowMs)} + ${skewMinutes} min.)`,
      );
    }
  }

  /** kSigning = HMAC chain over date, region, service, "aws4_request": cached per day and scope. */
  private signingKey(secret: string, parts: SignatureParts): Buffer {
    const cacheKey = `${parts.accessKeyId}\n${parts.date}\n${parts.region}\n${parts.service}`;
    const cached = this.signingKeys.get(cacheKey);
    if (cached !== undefined) return cached;
    const key = deriveSigningKey(secret, parts.date, parts.region, parts.service);
    if (this.signingKeys.size >= raftqLimits.sigV4SigningKeysCachedMax.value) this.signingKeys.clear();
    this.signingKeys.set(cacheKey, key);
    return key;
  }

  /** For tests: how many signing keys are cached. */
  cachedSigningKeyCount(): number {
    return this.signingKeys.size;
  }
}

export function deriveSigningKey(secret: string, date: string, region: string, service: string): Buffer {
  const kDate = createHmac('sha256', `AWS4${secret}`).update(date, 'utf8').digest();
  const kRegion = createHmac('sha256', kDate).update(region, 'utf8').digest();
  const kService = createHmac('sha256', kRegion).update(service, 'utf8').digest();
  return createHmac('sha256', kService).update('aws4_request', 'utf8').digest();
}

function parseSignature(headers: ReadonlyMap<string, string>, queryPairs: readonly [string, string][]): SignatureParts {
  const query = new Map(queryPairs);
  const authorization = headers.get('authorization');
  if (authorization !== undefined) {
    if (!authorization.startsWith(`${algorithm} `))
      throw new SqsApiError('IncompleteSignature', `Only ${algorithm} signatures are supported.`);
    const fields = new Map<string, string>();
    for (const part of authorization.slice(algorithm.length + 1).split(',')) {
      const eq = part.indexOf('=');
      if (eq > 0) fields.set(part.slice(0, eq).trim(), part.slice(eq + 1).trim());
    }
    const amzDate = headers.get('x-amz-date') ?? dateHeaderAsAmzDate(headers.get('date'));
    return buildParts(
      fields.get('Credential'),
      fields.get('SignedHeaders'),
      fields.get('Signature'),
      amzDate,
      false,
      undefined,
    );
  }
  if (query.has('X-Amz-Algorithm') || query.has('X-Amz-Signature')) {
    if (query.get('X-Amz-Algorithm') !== algorithm)
      throw new SqsApiError('IncompleteSignature', `Only ${algorithm} signatures are supported.`);
    const expires = Number(query.get('X-Amz-Expires'));
    if (!Number.isInteger(expires) || expires < 1 || expires > raftqLimits.presignedUrlExpirySecondsMax.value) {
      throw new SqsApiError(
        'IncompleteSignature',
        `X-Amz-Expires must be an integer between 1 and ${raftqLimits.presignedUrlExpirySecondsMax.value} seconds.`,
      );
    }
    return buildParts(
      query.get('X-Amz-Credential'),
      query.get('X-Amz-SignedHeaders'),
      query.get('X-Amz-Signature'),
      query.get('X-Amz-Date'),
      true,
      expires,
    );
  }
  throw new SqsApiError(
    'MissingAuthenticationToken',
    'Request is missing Authentication Token: sign it with AWS Signature Version 4.',
  );
}

function buildParts(
  credential: string | undefined,
  signedHeaders: string | undefined,
  signature: string | undefined,
  amzDate: string | undefined,
  isPresigned: boolean,
  expiresSeconds: number | undefined,
): SignatureParts {
  if (credential === undefined || signedHeaders === undefined || signature === undefined) {
    throw new SqsApiError('IncompleteSignature', 'The signature must contain Credential, SignedHeaders and Signature.');
  }
  if (amzDate === undefined)
    throw new SqsApiError(
      'IncompleteSignature',
      'The request must contain an X-Amz-Date (or Date) header or parameter.',
    );
  const scope = credential.split('/');
  if (scope.length !== 5 || scope[4] !== 'aws4_request' || scope.some((s) => s === '')) {
    throw new SqsApiError(
      'IncompleteSignature',
      `The credential ${credential} is not of the form ACCESS_KEY/DATE/REGION/SERVICE/aws4_request.`,
    );
  }
  if (!/^[0-9a-f]{64}$/i.test(signature))
    throw new SqsApiError('IncompleteSignature', 'The signature must be 64 hexadecimal digits.');
  const headerNames = signedHeaders.split(';').map((h) => h.trim().toLowerCase());
  if (!headerNames.includes('host'))
    throw new SqsApiError('IncompleteSignature', 'The signed headers must include host.');
  const [accessKeyId, date, region, service] = scope as [string, string, string, string, string];
  return {
    accessKeyId,
    date,
    region,
    service,
    signedHeaders: headerNames,
    signature: signature.toLowerCase(),
    amzDate,
    isPresigned,
    expiresSeconds,
  };
}

/** Lower-cased header name → values joined with commas, each trimmed with inner runs of spaces collapsed. */
function collectHeaders(rawHeaders: readonly string[]): Map<string, string> {
  const headers = new Map<string, string>();
  for (let i = 0; i + 1 < rawHeaders.length; i += 2) {
    const name = (rawHeaders[i] ?? '').toLowerCase();
    const value = (rawHeaders[i + 1] ?? '').trim().replace(/\s+/g, ' ');
    const previous = headers.get(name);
    headers.set(name, previous === undefined ? value : `${previous},${value}`);
  }
  return headers;
}

function splitQuery(rawQuery: string): [string, string][] {
  const pairs: [string, string][] = [];
  for (const part of rawQuery.split('&')) {
    if (part === '') continue;
    const eq = part.indexOf('=');
    pairs.push([safeDecode(eq < 0 ? part : part.slice(0, eq)), safeDecode(eq < 0 ? '' : part.slice(eq + 1))]);
  }
  return pairs;
}

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text.replace(/\+/g, ' '));
  } catch {
    return text;
  }
}

function canonicalQueryString(pairs: readonly [string, string][], isPresigned: boolean): string {
  return pairs
    .filter(([key]) => !(isPresigned && key === 'X-Amz-Signature'))
    .map(([key, value]) => [uriEncode(key), uriEncode(value)] as const)
    .sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : a[1] < b[1] ? -1 : a[1] > b[1] ? 1 : 0))
    .map(([key, value]) => `${key}=${value}`)
    .join('&');
}

/**
 * Non-S3 services sign the path URI-encoded once more than it travels (so a `%` becomes `%25`);
 * some clients sign it as sent. Both are tried: the path is almost always `/` or `/ACCOUNT/NAME`,
 * where they coincide.
 */
function candidatePaths(rawPath: string): string[] {
  const segments = normalizeSegments(rawPath === '' ? '/' : rawPath);
  const asSent = segments.join('/');
  const encodedAgain = segments.map(uriEncode).join('/');
  return asSent === encodedAgain ? [asSent] : [encodedAgain, asSent];
}

function normalizeSegments(path: string): string[] {
  const out: string[] = [];
  const segments = path.split('/');
  for (let i = 0; i < segments.length; i++) {
    const segment = segments[i] ?? '';
    if (segment === '.') continue;
    if (segment === '..') {
      if (out.length > 1) out.pop();
      continue;
    }
    if (segment === '' && i !== 0 && i !== segments.length - 1) continue;
    out.push(segment);
  }
  return out.length === 1 ? ['', ''] : out;
}

function candidatePayloadHashes(
  headers: ReadonlyMap<string, string>,
  body: Uint8Array,
  isPresigned: boolean,
): string[] {
  const declared = headers.get('x-amz-content-sha256');
  if (declared !== undefined) {
    if (declared !== 'UNSIGNED-PAYLOAD' && declared.toLowerCase() !== sha256Hex(body)) {
      throw new SqsApiError(
        'SignatureDoesNotMatch',
        'The x-amz-content-sha256 header does not match the SHA-256 of the request body.',
      );
    }
    return [declared];
  }
  const actual = body.byteLength === 0 ? emptyPayloadHash : sha256Hex(body);
  return isPresigned ? [actual, 'UNSIGNED-PAYLOAD'] : [actual];
}

/** RFC 3986 percent-encoding: everything but A-Z a-z 0-9 - _ . ~, with upper-case hex. */
export function uriEncode(text: string): string {
  return encodeURIComponent(text).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
}

export function sha256Hex(data: Uint8Array): string {
  return createHash('sha256').update(data).digest('hex');
}

export function parseAmzDate(amzDate: string): number | undefined {
  const m = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/.exec(amzDate);
  if (m === null) return undefined;
  const ms = Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3]), Number(m[4]), Number(m[5]), Number(m[6]));
  return Number.isFinite(ms) ? ms : undefined;
}

export function formatAmzDate(ms: number): string {
  return new Date(ms)
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d{3}/, '');
}

function dateHeaderAsAmzDate(date: string | undefined): string | undefined {
  if (date === undefined) return undefined;
  const ms = Date.parse(date);
  return Number.isFinite(ms) ? formatAmzDate(ms) : undefined;
}
