import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sigV4Signer } from '../support/sigv4-signer.js';
import { makeTempDir } from '../support/temp-dir.js';
import { startSqsEndpoint, type SqsEndpoint } from '../sqs/support/sqs-endpoint.js';

/**
 * Errors that come before any action, as AWS's "Common Errors" page for SQS lists them and as
 * SQS words them: a malformed query string (HTTP 404), and the SigV4 refusals of a node started
 * with --credentials-file — missing authentication, unknown key, wrong secret (403), and a
 * request dated outside the 15-minute window, which SQS refuses as SignatureDoesNotMatch with the
 * "Signature expired: … is now earlier than … (… - 15 min.)" message that clients and people
 * recognise as clock skew.
 */

const credentialsDir = makeTempDir('compat-sigv4');
const signingKey = { accessKeyId: 'AKIDCOMPATSIGV4', secretAccessKey: 'compat/secret+key' };
let open: SqsEndpoint;
let signed: SqsEndpoint;

beforeAll(async () => {
  const credentialsFile = join(credentialsDir.path, 'credentials.json');
  writeFileSync(credentialsFile, JSON.stringify({ credentials: [signingKey] }));
  [open, signed] = await Promise.all([startSqsEndpoint(), startSqsEndpoint({ credentialsFile })]);
});

afterAll(async () => {
  await Promise.all([open?.close(), signed?.close()]);
  credentialsDir.cleanup();
});

function xmlText(body: string, element: string): string | undefined {
  return new RegExp(`<${element}>([^<]*)</${element}>`).exec(body)?.[1];
}

interface QueryAnswer {
  readonly status: number;
  readonly code: string | undefined;
  readonly type: string | undefined;
  readonly message: string | undefined;
  readonly dateHeader: string | null;
}

async function answer(res: Response): Promise<QueryAnswer> {
  const body = await res.text();
  return {
    status: res.status,
    code: xmlText(body, 'Code'),
    type: xmlText(body, 'Type'),
    message: xmlText(body, 'Message'),
    dateHeader: res.headers.get('date'),
  };
}

async function signedListQueues(options: {
  signingDate: Date;
  secretAccessKey?: string;
  accessKeyId?: string;
}): Promise<QueryAnswer> {
  const url = new URL(signed.endpoint);
  const signer = sigV4Signer({
    accessKeyId: options.accessKeyId ?? signingKey.accessKeyId,
    secretAccessKey: options.secretAccessKey ?? signingKey.secretAccessKey,
  });
  const body = 'Action=ListQueues&Version=2012-11-05';
  const request = await signer.sign(
    {
      method: 'POST',
      protocol: 'http:',
      hostname: url.hostname,
      port: Number(url.port),
      path: '/',
      headers: { host: url.host, 'content-type': 'application/x-www-form-urlencoded' },
      body,
    },
    { signingDate: options.signingDate },
  );
  return answer(await fetch(`${signed.endpoint}/`, { method: 'POST', headers: request.headers, body }));
}

describe('query protocol errors before an action', () => {
  it('answers a malformed percent escape in a form body with MalformedQueryString, HTTP 404, as AWS lists it', async () => {
    const res = await answer(
      await fetch(`${open.endpoint}/`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: 'Action=ListQueues&QueueNamePrefix=%zz',
      }),
    );
    expect(res).toMatchObject({ status: 404, code: 'MalformedQueryString', type: 'Sender' });
  });

  it('answers a malformed percent escape in a GET query string with MalformedQueryString, HTTP 404', async () => {
    const res = await answer(await fetch(`${open.endpoint}/?Action=ListQueues&QueueNamePrefix=%E0%A4%A`));
    expect(res).toMatchObject({ status: 404, code: 'MalformedQueryString' });
  });
});

describe('SigV4 refusals of a node with a credentials file', () => {
  it('refuses an unsigned request with MissingAuthenticationToken, HTTP 403', async () => {
    const res = await answer(await fetch(`${signed.endpoint}/?Action=ListQueues`));
    expect(res).toMatchObject({ status: 403, code: 'MissingAuthenticationToken', type: 'Sender' });
  });

  it('refuses an unknown access key with InvalidClientTokenId, HTTP 403', async () => {
    const res = await signedListQueues({ signingDate: new Date(), accessKeyId: 'AKIDNOBODYHERE' });
    expect(res).toMatchObject({ status: 403, code: 'InvalidClientTokenId' });
  });

  it('refuses a wrong secret with SignatureDoesNotMatch, HTTP 403', async () => {
    const res = await signedListQueues({ signingDate: new Date(), secretAccessKey: 'not-the-secret' });
    expect(res).toMatchObject({ status: 403, code: 'SignatureDoesNotMatch' });
  });

  it('refuses a request signed 20 minutes ago with SignatureDoesNotMatch, HTTP 403, worded "Signature expired: X is now earlier than Y (NOW - 15 min.)"', async () => {
    const res = await signedListQueues({ signingDate: new Date(Date.now() - 20 * 60_000) });
    expect(res).toMatchObject({ status: 403, code: 'SignatureDoesNotMatch' });
    const match =
      /^Signature expired: (\d{8}T\d{6}Z) is now earlier than (\d{8}T\d{6}Z) \((\d{8}T\d{6}Z) - 15 min\.\)$/.exec(
        res.message ?? '',
      );
    expect(match, res.message).not.toBeNull();
    const [, signedAt, earliest, now] = match as unknown as [string, string, string, string];
    expect(signedAt < earliest && earliest < now).toBe(true);
    // Clients correct their clock from the response's Date header.
    expect(res.dateHeader).not.toBeNull();
  });

  it('refuses a request signed 20 minutes ahead with SignatureDoesNotMatch, worded "Signature not yet current: X is still later than Y (NOW + 15 min.)"', async () => {
    const res = await signedListQueues({ signingDate: new Date(Date.now() + 20 * 60_000) });
    expect(res).toMatchObject({ status: 403, code: 'SignatureDoesNotMatch' });
    const match =
      /^Signature not yet current: (\d{8}T\d{6}Z) is still later than (\d{8}T\d{6}Z) \((\d{8}T\d{6}Z) \+ 15 min\.\)$/.exec(
        res.message ?? '',
      );
    expect(match, res.message).not.toBeNull();
    const [, signedAt, latest, now] = match as unknown as [string, string, string, string];
    expect(now < latest && latest < signedAt).toBe(true);
  });

  it('accepts a request signed 10 minutes ago, inside the window', async () => {
    const res = await signedListQueues({ signingDate: new Date(Date.now() - 10 * 60_000) });
    expect(res.status).toBe(200);
  });
});
