// The processor's MessageControl over SQS: the backoff on the main queue, and handing a message back at
// once so the queue's redrive policy moves it to the DLQ.
import type { SQSClient } from '@aws-sdk/client-sqs';
import type { MessageControl } from '../core/ports';
import { changeVisibility } from './sqs-visibility';

export class SqsMessageControl implements MessageControl {
  constructor(
    private readonly client: SQSClient,
    private readonly queueUrl: string,
  ) {}

  async delay(receiptHandle: string, seconds: number): Promise<void> {
    await changeVisibility(this.client, this.queueUrl, receiptHandle, seconds);
  }
}
