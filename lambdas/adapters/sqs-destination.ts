// The SQS destination: SendMessage of the delivery's CloudEvents envelope, exactly as the inbox's own
// queue carries it, to a queue the operator names by ARN (in this account or another).
import { SendMessageCommand, type SendMessageCommandOutput } from '@aws-sdk/client-sqs';
import type { ForwardDestination } from '../../config';
import type { AttemptResult } from '../core/destinations/attempt';
import type { DestinationSender, OutboundDelivery } from '../core/destinations/ports';
import { envelopeAttributes, serializeEnvelope } from '../core/envelope';
import { serviceFailure } from './destination-failure';
import { toMessageAttributes } from './sqs-message-attributes';

export type SqsDestination = Extract<ForwardDestination, { type: 'sqs' }>;

/** The message attribute that carries the delivery's webhook id (signing.ts), beside the envelope's own. */
export const WEBHOOK_ID_ATTRIBUTE = 'webhookId';

/** What the sender needs of an SQSClient. */
export interface SendMessageClient {
  send(command: SendMessageCommand): Promise<Pick<SendMessageCommandOutput, 'MessageId'>>;
}

export interface SqsDestinationSenderOptions {
  client: SendMessageClient;
  /**
   * The client for a destination: one of its queue's own region, since SQS takes a request signed for the
   * queue's region only. @default `client` for every destination
   */
  clientFor?(destination: SqsDestination): SendMessageClient;
  /** The target queue's URL (DestinationResources.targetQueueUrl; queueUrlFromArn on AWS). */
  queueUrlFor(destination: SqsDestination): string;
}

/**
 * Refusals of this message itself, which no later attempt can change: characters SQS does not take (the
 * body is ASCII and the attributes are cleaned, so this is a bug's mark), a message over the queue's
 * MaximumMessageSize (InvalidParameterValue), a bad attribute. Everything else is retried
 * (destination-failure.ts): throttling and 5xx, and what the queue's owner fixes, after which the
 * waiting messages go through by themselves: AccessDenied (the queue policy does not let the forwarder
 * send yet, typical for a queue in another account), QueueDoesNotExist (a queue deleted and made again,
 * or not made yet), and the KMS refusals of an encrypted queue (a key policy, a disabled key, a key
 * pending deletion). A queue that never comes right exhausts the retry schedule and lands in the DLQ.
 */
const PERMANENT_ERRORS: ReadonlySet<string> = new Set([
  'InvalidMessageContents',
  'InvalidParameterValue',
  'InvalidAttributeName',
  'InvalidAttributeValue',
  'UnsupportedOperation',
]);

export class SqsDestinationSender implements DestinationSender {
  constructor(private readonly options: SqsDestinationSenderOptions) {}

  async send(delivery: OutboundDelivery): Promise<AttemptResult> {
    const { destination, envelope } = delivery;
    if (destination.type !== 'sqs') {
      throw new Error(`SqsDestinationSender: destination ${destination.id} is ${destination.type}`);
    }
    const command = new SendMessageCommand({
      QueueUrl: this.options.queueUrlFor(destination),
      MessageBody: serializeEnvelope(envelope),
      MessageAttributes: toMessageAttributes({
        ...envelopeAttributes(envelope),
        [WEBHOOK_ID_ATTRIBUTE]: delivery.webhookId,
      }),
    });
    try {
      const client = this.options.clientFor?.(destination) ?? this.options.client;
      const { MessageId: messageId } = await client.send(command);
      // SQS returns an id for every stored message; without one nothing says it was stored.
      return messageId === undefined
        ? { kind: 'failed', code: 'sqs_unanswered', retryable: true }
        : { kind: 'accepted' };
    } catch (error) {
      return serviceFailure(error, { unavailable: 'sqs_unavailable', permanent: PERMANENT_ERRORS });
    }
  }
}
