// `npm run bench:sigv4 -- [--requests N]`
//
// What verifying a SigV4 signature costs the gateway per request, on its own: the side-by-side
// bench runs every SQS endpoint without credentials, so its figures leave this cost out. Signs N
// SendMessage requests (JSON protocol, bodies of 100 B, 1 KiB and 64 KiB) the way the AWS SDKs do
// (Authorization header, x-amz-content-sha256 absent, so the verifier hashes the body itself),
// then times `SigV4Verifier.verify` over them on this one thread and prints microseconds per
// request. Every signature must verify: a failure ends the run, so the figure is of the success path.
import { createHmac } from 'node:crypto';
import { parseArgs } from 'node:util';
import { SystemClock } from '../src/base/clock.js';
import {
  deriveSigningKey,
  formatAmzDate,
  sha256Hex,
  SigV4Verifier,
  type SignedRequest,
} from '../src/sqs/sigv4-verifier.js';

const accessKeyId = 'AKIDBENCH';
const secretAccessKey = 'bench-secret-key';
const region = 'us-east-1';
const host = '127.0.0.1:9324';

/** A signed SendMessage request as a client would send it: the canonical request of SigV4 over POST /. */
function signedSendMessage(bodyBytes: number, nowMs: number, index: number): SignedRequest {
  const body = Buffer.from(
    JSON.stringify({ QueueUrl: `http://${host}/000000000000/bench`, MessageBody: `${index} `.padEnd(bodyBytes, 'x') }),
    'utf8',
  );
  const amzDate = formatAmzDate(nowMs);
  const date = amzDate.slice(0, 8);
  const headers: Array<[string, string]> = [
    ['content-type', 'application/x-amz-json-1.0'],
    ['host', host],
    ['x-amz-date', amzDate],
    ['x-amz-target', 'AmazonSQS.SendMessage'],
  ];
  const signedHeaders = headers.map(([name]) => name).join(';');
  const canonicalHeaders = headers.map(([name, value]) => `${name}:${value}\n`).join('');
  const canonicalRequest = ['POST', '/', '', canonicalHeaders, signedHeaders, sha256Hex(body)].join('\n');
  const scope = `${date}/${region}/sqs/aws4_request`;
  const stringToSign = ['AWS4-HMAC-SHA256', amzDate, scope, sha256Hex(Buffer.from(canonicalRequest, 'utf8'))].join(
    '\n',
  );
  const signature = createHmac('sha256', deriveSigningKey(secretAccessKey, date, region, 'sqs'))
    .update(stringToSign, 'utf8')
    .digest('hex');
  const authorization = `AWS4-HMAC-SHA256 Credential=${accessKeyId}/${scope}, SignedHeaders=${signedHeaders}, Signature=${signature}`;
  return { method: 'POST', rawUrl: '/', rawHeaders: [...headers.flat(), 'Authorization', authorization], body };
}

function main(): void {
  const { values } = parseArgs({ options: { requests: { type: 'string', default: '20000' } } });
  const requests = Number(values.requests);
  if (!Number.isInteger(requests) || requests < 100)
    throw new Error(`--requests must be an integer >= 100, got ${values.requests}`);
  const clock = new SystemClock();
  const verifier = new SigV4Verifier(new Map([[accessKeyId, secretAccessKey]]), clock);
  process.stdout.write(`SigV4 verification, ${requests} SendMessage requests per size, one thread\n`);
  process.stdout.write('body     µs per request   requests/s of one core\n');
  for (const bodyBytes of [100, 1024, 65_536]) {
    const batch = Array.from({ length: Math.min(requests, 2_000) }, (_, i) =>
      signedSendMessage(bodyBytes, clock.nowMs(), i),
    );
    for (const request of batch) verifier.verify(request); // warm-up, and every signature must verify
    const startedNs = process.hrtime.bigint();
    for (let i = 0; i < requests; i++) verifier.verify(batch[i % batch.length] as SignedRequest);
    const perRequestUs = Number(process.hrtime.bigint() - startedNs) / 1000 / requests;
    process.stdout.write(
      `${String(bodyBytes).padEnd(8)} ${perRequestUs.toFixed(1).padStart(15)}   ${Math.round(1e6 / perRequestUs)
        .toLocaleString('en')
        .padStart(22)}\n`,
    );
  }
}

main();
