// The verify side's queue: one SendMessage per accepted delivery.
import { SendMessageCommand, type SQSClient } from '@aws-sdk/client-sqs';
import { DependencyError } from '../core/errors';
import type { DeliveryQueue, QueueMessage } from '../core/ports';
import { callDependency } from './dependency-call';
import { toMessageAttributes } from './sqs-message-attributes';

/** SendMessage, resolving with the message id once SQS has stored the message. */
export async function sendMessage(
  client: SQSClient,
  queueUrl: string,
  message: QueueMessage,
): Promise<string> {
  const { MessageId: messageId } = await callDependency('sqs', 'SendMessage', () =>
    client.send(
      new SendMessageCommand({
        QueueUrl: queueUrl,
        MessageBody: message.body,
        MessageAttributes: toMessageAttributes(message.attributes),
        ...(message.delaySeconds ? { DelaySeconds: message.delaySeconds } : {}),
      }),
    ),
  );
  // SQS returns an id for every stored message; without one we cannot claim it was stored.
  if (messageId === undefined) throw new DependencyError('sqs', 'SendMessage');
  return messageId;
}

export class SqsDeliveryQueue implements DeliveryQueue {
  constructor(
    private readonly client: SQSClient,
    private readonly queueUrl: string,
  ) {}

  async send(message: QueueMessage): Promise<{ messageId: string }> {
    return { messageId: await sendMessage(this.client, this.queueUrl, message) };
  }
}
