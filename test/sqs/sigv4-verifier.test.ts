import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/base/clock.js';
import { parseCredentials } from '../../src/sqs/credentials-file.js';
import { SqsApiError } from '../../src/sqs/errors.js';
import {
  deriveSigningKey,
  formatAmzDate,
  parseAmzDate,
  SigV4Verifier,
  type SignedRequest,
} from '../../src/sqs/sigv4-verifier.js';
import { sigV4Signer } from '../support/sigv4-signer.js';

// AWS's documentation example credentials (the SigV4 test suite uses them throughout).
const accessKeyId = 'AKIDEXAMPLE';
const secretAccessKey = 'wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY';
const credentials = parseCredentials(JSON.stringify({ credentials: [{ accessKeyId, secretAccessKey }] }));
const signedAtMs = Date.UTC(2015, 7, 30, 12, 36, 0);

function sdkSigner(region = 'us-east-1', service = 'sqs') {
  return sigV4Signer({ accessKeyId, secretAccessKey, region, service });
}

function toSignedRequest(req: {
  method: string;
  path: string;
  query?: Record<string, string | string[] | null>;
  headers: Record<string, string>;
  body?: string;
}): SignedRequest {
  const query = new URLSearchParams();
  for (const [k, v] of Object.entries(req.query ?? {})) if (typeof v === 'string') query.append(k, v);
  const qs = query.toString().replace(/\+/g, '%20');
  return {
    method: req.method,
    rawUrl: `${req.path}${qs === '' ? '' : `?${qs}`}`,
    rawHeaders: Object.entries(req.headers).flat(),
    body: Buffer.from(req.body ?? ''),
  };
}

function sqsPost(body: string) {
  return {
    method: 'POST',
    protocol: 'http:',
    hostname: 'localhost',
    port: 9324,
    path: '/',
    headers: { host: 'localhost:9324', 'content-type': 'application/x-www-form-urlencoded' },
    body,
  };
}

function expectApiError(fn: () => unknown, name: string): void {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(SqsApiError);
    expect((err as SqsApiError).definition.name).toBe(name);
    return;
  }
  throw new Error(`expected ${name}`);
}

describe('SigV4 signing key', () => {
  it('derives the key of AWS documentation example (20120215, us-east-1, iam)', () => {
    expect(deriveSigningKey(secretAccessKey, '20120215', 'us-east-1', 'iam').toString('hex')).toBe(
      'f4780e2d9f65fa895f9c67b32ce1baf0b0d8a43505a000a1a9e090d414db404d',
    );
  });

  it('is cached once per access key, day, region and service', async () => {
    const clock = new ManualClock(signedAtMs);
    const verifier = new SigV4Verifier(credentials, clock);
    for (let i = 0; i < 3; i++) {
      const signed = await sdkSigner().sign(sqsPost(`Action=ListQueues&n=${i}`), { signingDate: new Date(signedAtMs) });
      verifier.verify(toSignedRequest(signed));
    }
    expect(verifier.cachedSigningKeyCount()).toBe(1);
    const otherRegion = await sdkSigner('eu-west-1').sign(sqsPost('Action=ListQueues'), {
      signingDate: new Date(signedAtMs),
    });
    verifier.verify(toSignedRequest(otherRegion));
    expect(verifier.cachedSigningKeyCount()).toBe(2);
  });
});

describe('SigV4 verification', () => {
  it('accepts the get-vanilla request of the AWS SigV4 test suite', () => {
    const verifier = new SigV4Verifier(credentials, new ManualClock(signedAtMs));
    const request: SignedRequest = {
      method: 'GET',
      rawUrl: '/',
      rawHeaders: [
        'Host',
        'example.amazonaws.com',
        'X-Amz-Date',
        '20150830T123600Z',
        'Authorization',
        'AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/20150830/us-east-1/service/aws4_request, SignedHeaders=host;x-amz-date, Signature=5fa00fa31553b73ebf1942676e86291e8372ff2a2260956d9b8aae1d763fbf31',
      ],
      body: Buffer.alloc(0),
    };
    expect(verifier.verify(request)).toEqual({ accessKeyId });
    const tampered = { ...request, rawUrl: '/?a=b' };
    expectApiError(() => verifier.verify(tampered), 'SignatureDoesNotMatch');
  });

  it('accepts what the AWS SDK signs, and nothing it did not sign', async () => {
    const verifier = new SigV4Verifier(credentials, new ManualClock(signedAtMs + 60_000));
    const signed = await sdkSigner().sign(
      sqsPost('Action=SendMessage&MessageBody=hello%20world&QueueUrl=http%3A%2F%2Flocalhost%3A9324%2F000000000000%2Fq'),
      { signingDate: new Date(signedAtMs) },
    );
    expect(verifier.verify(toSignedRequest(signed))).toEqual({ accessKeyId });
    const bodyChanged = { ...toSignedRequest(signed), body: Buffer.from('Action=SendMessage&MessageBody=goodbye') };
    expectApiError(() => verifier.verify(bodyChanged), 'SignatureDoesNotMatch');
  });

  it('accepts a presigned GET until it expires', async () => {
    const clock = new ManualClock(signedAtMs);
    const verifier = new SigV4Verifier(credentials, clock);
    const presigned = await sdkSigner().presign(
      {
        method: 'GET',
        protocol: 'http:',
        hostname: 'localhost',
        port: 9324,
        path: '/000000000000/q',
        query: { Action: 'ReceiveMessage', MaxNumberOfMessages: '2' },
        headers: { host: 'localhost:9324' },
      },
      { signingDate: new Date(signedAtMs), expiresIn: 300 },
    );
    const request = toSignedRequest(presigned);
    expect(verifier.verify(request)).toEqual({ accessKeyId });
    clock.advanceMs(301_000);
    expectApiError(() => verifier.verify(request), 'RequestExpired');
  });

  it('refuses a request dated outside the 15-minute window', async () => {
    const verifier = new SigV4Verifier(credentials, new ManualClock(signedAtMs + 16 * 60_000));
    const signed = await sdkSigner().sign(sqsPost('Action=ListQueues'), { signingDate: new Date(signedAtMs) });
    expectApiError(() => verifier.verify(toSignedRequest(signed)), 'SignatureDoesNotMatch');
  });

  it('refuses an unknown access key, a wrong secret, and an unsigned request', async () => {
    const verifier = new SigV4Verifier(credentials, new ManualClock(signedAtMs));
    const stranger = sigV4Signer({ accessKeyId: 'AKIDOTHER', secretAccessKey });
    const fromStranger = await stranger.sign(sqsPost('Action=ListQueues'), { signingDate: new Date(signedAtMs) });
    expectApiError(() => verifier.verify(toSignedRequest(fromStranger)), 'InvalidClientTokenId');
    const wrongSecret = sigV4Signer({ accessKeyId, secretAccessKey: 'not-the-secret' });
    const signed = await wrongSecret.sign(sqsPost('Action=ListQueues'), { signingDate: new Date(signedAtMs) });
    expectApiError(() => verifier.verify(toSignedRequest(signed)), 'SignatureDoesNotMatch');
    expectApiError(
      () =>
        verifier.verify({
          method: 'POST',
          rawUrl: '/',
          rawHeaders: ['Host', 'x'],
          body: Buffer.from('Action=ListQueues'),
        }),
      'MissingAuthenticationToken',
    );
    expectApiError(
      () =>
        verifier.verify({
          method: 'POST',
          rawUrl: '/',
          rawHeaders: ['Host', 'x', 'Authorization', 'AWS4-HMAC-SHA256 Credential=garbage'],
          body: Buffer.alloc(0),
        }),
      'IncompleteSignature',
    );
  });
});

describe('X-Amz-Date', () => {
  it('round-trips between its basic ISO 8601 form and milliseconds', () => {
    expect(formatAmzDate(signedAtMs)).toBe('20150830T123600Z');
    expect(parseAmzDate('20150830T123600Z')).toBe(signedAtMs);
    expect(parseAmzDate('2015-08-30T12:36:00Z')).toBeUndefined();
  });
});
