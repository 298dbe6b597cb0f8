import { SQSClient } from '@aws-sdk/client-sqs';
import { startSqsEndpoint, type SqsEndpoint } from './sqs-endpoint.js';

/** An SQS endpoint with an unmodified @aws-sdk/client-sqs client pointed at it. */
export interface SdkFixture {
  readonly endpoint: SqsEndpoint;
  readonly sqs: SQSClient;
  close(): Promise<void>;
}

/**
 * An unmodified SDK client for a test node. Test nodes run without a credentials file, so any key
 * signs; `maxAttempts` is the SDK's own retry count (its default of 3 when omitted).
 */
export function sdkClient(endpoint: string, options: { readonly maxAttempts?: number } = {}): SQSClient {
  return new SQSClient({
    endpoint,
    region: 'us-east-1',
    credentials: { accessKeyId: 'AKIDTEST', secretAccessKey: 'secret' },
    ...(options.maxAttempts === undefined ? {} : { maxAttempts: options.maxAttempts }),
  });
}

/** Starts a test endpoint (see startSqsEndpoint) with an SDK client for it. */
export async function startSdkFixture(options: { readonly maxAttempts?: number } = {}): Promise<SdkFixture> {
  const endpoint = await startSqsEndpoint();
  const sqs = sdkClient(endpoint.endpoint, options);
  return {
    endpoint,
    sqs,
    async close() {
      sqs.destroy();
      await endpoint.close();
    },
  };
}
