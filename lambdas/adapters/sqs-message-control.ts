// The processor's MessageControl over SQS: dead-letter to the DLQ, back off on the main queue.
import type { SQSClient } from '@aws-sdk/client-sqs';
import type { MessageControl } from '../core/ports';
import { SqsQueueOps } from './sqs-queue-ops';

export class SqsMessageControl implements MessageControl {
  private readonly ops: SqsQueueOps;

  constructor(
    client: SQSClient,
    private readonly queueUrl: string,
    private readonly dlqUrl: string,
  ) {
    this.ops = new SqsQueueOps(client);
  }

  async deadLetter(body: string, attributes: Record<string, string>): Promise<void> {
    await this.ops.sendRaw(this.dlqUrl, body, attributes);
  }

  async delay(receiptHandle: string, seconds: number): Promise<void> {
    await this.ops.changeVisibility(this.queueUrl, receiptHandle, seconds);
  }
}
