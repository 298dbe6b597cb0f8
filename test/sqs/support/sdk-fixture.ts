import { SQSClient } from '@aws-sdk/client-sqs';
import { startSqsEndpoint, type SqsEndpoint } from './sqs-endpoint.js';

/** An SQS endpoint with an unmodified @aws-sdk/client-sqs client pointed at it. */
export interface SdkFixture {
  readonly endpoint: SqsEndpoint;
  readonly sqs: SQSClient;
  close(): Promise<void>;
}

/**
 * The endpoint is started without a credentials file, so any key signs; `maxAttempts` is the
 * SDK's own retry count (its default of 3 when omitted).
 */
export async function startSdkFixture(options: { readonly maxAttempts?: number } = {}): Promise<SdkFixture> {
  const endpoint = await startSqsEndpoint();
  const sqs = new SQSClient({
    endpoint: endpoint.endpoint,
    region: 'us-east-1',
    credentials: { accessKeyId: 'AKIDTEST', secretAccessKey: 'secret' },
    ...(options.maxAttempts === undefined ? {} : { maxAttempts: options.maxAttempts }),
  });
  return {
    endpoint,
    sqs,
    async close() {
      sqs.destroy();
      await endpoint.close();
    },
  };
}
