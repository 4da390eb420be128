// The processor's MessageControl over SQS: the backoff on the main queue, and handing a message back at
// once so the queue's redrive policy moves it to the DLQ.
import type { SQSClient } from '@aws-sdk/client-sqs';
import type { MessageControl } from '../core/ports';
import { SqsQueueOps } from './sqs-queue-ops';

export class SqsMessageControl implements MessageControl {
  private readonly ops: SqsQueueOps;

  constructor(
    client: SQSClient,
    private readonly queueUrl: string,
  ) {
    this.ops = new SqsQueueOps(client);
  }

  async delay(receiptHandle: string, seconds: number): Promise<void> {
    await this.ops.changeVisibility(this.queueUrl, receiptHandle, seconds);
  }
}
