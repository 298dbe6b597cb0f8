// One request of SQS's JSON protocol over an undici pool: the bench's clients speak it directly,
// without the SDK, so that the client's own CPU stays small beside the server's.
import type { Pool } from 'undici';

/** The headers that name the protocol and the action of a JSON-protocol SQS request. */
export function sqsJsonHeaders(action: string): Record<string, string> {
  return { 'content-type': 'application/x-amz-json-1.0', 'x-amz-target': `AmazonSQS.${action}` };
}

export interface SqsJsonAnswer {
  readonly statusCode: number;
  /** The response body as text, read whatever the status (an error's body names the error). */
  readonly text: string;
}

/** POSTs `body` as JSON for `action`; what a status other than 200 means is the caller's to decide. */
export async function sqsJsonRequest(pool: Pool, action: string, body: object): Promise<SqsJsonAnswer> {
  const response = await pool.request({
    path: '/',
    method: 'POST',
    headers: sqsJsonHeaders(action),
    body: JSON.stringify(body),
  });
  return { statusCode: response.statusCode, text: await response.body.text() };
}
