/**
 * Acknowledgements of one consumer, sent as DeleteMessageBatch requests: the deletes asked for in
 * the same turn of the event loop (up to 10) share one request, so a busy consumer makes one
 * request per batch of messages instead of one per message. Each delete still succeeds or fails
 * on its own.
 */
import { DeleteMessageBatchCommand, type SQSClient } from '@aws-sdk/client-sqs';
import { sqsLimits } from '../base/limits.js';

interface PendingDelete {
  readonly receiptHandle: string;
  readonly resolve: () => void;
  readonly reject: (error: unknown) => void;
}

/** A failed entry of a batch, shaped like the SDK's errors so that callers classify it alike. */
export class BatchEntryFailedError extends Error {
  readonly $fault: 'client' | 'server';
  constructor(
    readonly code: string,
    readonly isSenderFault: boolean,
    message: string,
  ) {
    super(message);
    this.name = code;
    this.$fault = isSenderFault ? 'client' : 'server';
  }
}

export class DeleteBatcher {
  private pending: PendingDelete[] = [];
  private isFlushScheduled = false;

  constructor(
    private readonly client: SQSClient,
    private readonly queueUrl: string,
  ) {}

  delete(receiptHandle: string): Promise<void> {
    return new Promise((resolve, reject) => {
      this.pending.push({ receiptHandle, resolve, reject });
      if (this.pending.length >= sqsLimits.batchEntriesMax.value) this.flush();
      else if (!this.isFlushScheduled) {
        this.isFlushScheduled = true;
        setImmediate(() => this.flush());
      }
    });
  }

  private flush(): void {
    this.isFlushScheduled = false;
    while (this.pending.length > 0) {
      const batch = this.pending.splice(0, sqsLimits.batchEntriesMax.value);
      void this.send(batch);
    }
  }

  private async send(batch: PendingDelete[]): Promise<void> {
    const entries = batch.map((entry, index) => ({ Id: String(index), ReceiptHandle: entry.receiptHandle }));
    try {
      const output = await this.client.send(
        new DeleteMessageBatchCommand({ QueueUrl: this.queueUrl, Entries: entries }),
      );
      const failures = new Map((output.Failed ?? []).map((f) => [f.Id, f]));
      batch.forEach((entry, index) => {
        const failure = failures.get(String(index));
        if (failure === undefined) entry.resolve();
        else
          entry.reject(
            new BatchEntryFailedError(
              failure.Code ?? 'Unknown',
              failure.SenderFault === true,
              failure.Message ?? 'the delete failed',
            ),
          );
      });
    } catch (error) {
      for (const entry of batch) entry.reject(error);
    }
  }
}
