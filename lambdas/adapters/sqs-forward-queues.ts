// The processor's fan-out: a SendMessage to each destination's own queue.
import type { SQSClient } from '@aws-sdk/client-sqs';
import type { ForwardQueues } from '../core/destinations/ports';
import type { QueueMessage } from '../core/ports';
import { sendMessage } from './sqs-queue';

export class SqsForwardQueues implements ForwardQueues {
  constructor(
    private readonly client: SQSClient,
    /** Destination id to its queue URL. */
    private readonly queueUrls: Readonly<Record<string, string>>,
  ) {}

  async send(destinationId: string, message: QueueMessage): Promise<{ messageId: string }> {
    const queueUrl = Object.hasOwn(this.queueUrls, destinationId) ? this.queueUrls[destinationId] : undefined;
    if (queueUrl === undefined) throw new Error(`no queue for destination ${destinationId}`);
    return { messageId: await sendMessage(this.client, queueUrl, message) };
  }
}
