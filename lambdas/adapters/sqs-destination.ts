// The SQS destination: SendMessage of the delivery's CloudEvents envelope, exactly as the inbox's own
// queue carries it, to a queue the operator names by ARN (in this account or another, in this region or
// another). A target queue whose MaximumMessageSize is below the envelope gets the envelope's claim-check
// form instead, its body in the payload bucket (`dataref`), as the inbox's queue carries large bodies.
import {
  GetQueueAttributesCommand,
  type GetQueueAttributesCommandOutput,
  SendMessageCommand,
  type SendMessageCommandOutput,
} from '@aws-sdk/client-sqs';
import type { ForwardDestination } from '../../config';
import type { AttemptResult } from '../core/destinations/attempt';
import type { DestinationSender, OutboundDelivery } from '../core/destinations/ports';
import { maximumMessageSizeOf, sqsMessageBytes, withDataref } from '../core/destinations/sqs-message-size';
import { type Envelope, envelopeAttributes, payloadKey, serializeEnvelope } from '../core/envelope';
import { DependencyError } from '../core/errors';
import type { PayloadWriter } from '../core/ports';
import { type AttemptFailure, serviceFailure } from './destination-failure';
import { toMessageAttributes } from './sqs-message-attributes';

export type SqsDestination = Extract<ForwardDestination, { type: 'sqs' }>;

/** The message attribute that carries the delivery's webhook id (signing.ts), beside the envelope's own. */
export const WEBHOOK_ID_ATTRIBUTE = 'webhookId';

/** What the sender needs of an SQSClient: SendMessage, and GetQueueAttributes for the queue's size limit. */
export interface SendMessageClient {
  send(command: SendMessageCommand): Promise<Pick<SendMessageCommandOutput, 'MessageId'>>;
  send(command: GetQueueAttributesCommand): Promise<Pick<GetQueueAttributesCommandOutput, 'Attributes'>>;
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
  /**
   * Where the body goes when the envelope is over the target queue's MaximumMessageSize (the payload
   * bucket, under the body's content-addressed key). @default none: such an envelope is refused for good
   */
  payloads?: PayloadWriter;
}

/**
 * Refusals of this message itself, which no later attempt can change: characters SQS does not take (the
 * body is ASCII and the attributes are cleaned, so this is a bug's mark), a message over the queue's
 * MaximumMessageSize (InvalidParameterValue) that even its claim-check form does not get under, a bad
 * attribute. Everything else is retried (destination-failure.ts): throttling and 5xx, and what the
 * queue's owner fixes, after which the waiting messages go through by themselves: AccessDenied (the queue
 * policy does not let the forwarder send yet, typical for a queue in another account), QueueDoesNotExist
 * (a queue deleted and made again, or not made yet), and the KMS refusals of an encrypted queue (a key
 * policy, a disabled key, a key pending deletion). A queue that never comes right exhausts the retry
 * schedule and lands in the DLQ.
 */
const PERMANENT_ERRORS: ReadonlySet<string> = new Set([
  'InvalidMessageContents',
  'InvalidParameterValue',
  'InvalidAttributeName',
  'InvalidAttributeValue',
  'UnsupportedOperation',
]);

export class SqsDestinationSender implements DestinationSender {
  /**
   * Each target queue's MaximumMessageSize, by URL, once read: kept until the queue refuses an envelope
   * again, so after the first refusal the envelopes over it go in their claim-check form without another
   * refusal first.
   */
  private readonly limits = new Map<string, number>();

  constructor(private readonly options: SqsDestinationSenderOptions) {}

  async send(delivery: OutboundDelivery): Promise<AttemptResult> {
    const { destination } = delivery;
    if (destination.type !== 'sqs') {
      throw new Error(`SqsDestinationSender: destination ${destination.id} is ${destination.type}`);
    }
    const client = this.clientOf(destination);
    const queueUrl = this.options.queueUrlFor(destination);
    const attributes = {
      ...envelopeAttributes(delivery.envelope),
      [WEBHOOK_ID_ATTRIBUTE]: delivery.webhookId,
    };
    const bytes = (envelope: Envelope) => sqsMessageBytes(serializeEnvelope(envelope), attributes);

    const inline = delivery.envelope;
    const canMove = this.options.payloads !== undefined && inline.dataref === undefined;
    const known = this.limits.get(queueUrl);
    if (canMove && known !== undefined && bytes(inline) > known) {
      const moved = await this.claimCheck(delivery);
      return isEnvelope(moved) ? this.sendOnce(client, queueUrl, moved, attributes) : moved;
    }
    const result = await this.sendOnce(client, queueUrl, inline, attributes);
    if (!canMove || result.kind !== 'failed' || result.retryable) return result;

    // A refusal for good of an inline envelope: a queue smaller than the envelope, most likely. Its limit
    // is read and kept; unreadable (no sqs:GetQueueAttributes on a queue of another account), the
    // claim-check form is tried all the same, since everything else in the message is cleaned already.
    // A limit kept from before is read again: an envelope under it was refused, so the owner may have
    // lowered it since, and the kept one would refuse every such envelope for good.
    this.limits.delete(queueUrl);
    const limit = await this.maximumMessageSize(destination);
    if (limit !== undefined && bytes(inline) <= limit) return result;
    const moved = await this.claimCheck(delivery);
    return isEnvelope(moved) ? this.sendOnce(client, queueUrl, moved, attributes) : moved;
  }

  /**
   * The target queue's MaximumMessageSize (GetQueueAttributes), kept once read; undefined if it cannot be
   * read. For `destinations test` too.
   */
  async maximumMessageSize(destination: SqsDestination): Promise<number | undefined> {
    const queueUrl = this.options.queueUrlFor(destination);
    const known = this.limits.get(queueUrl);
    if (known !== undefined) return known;
    try {
      const { Attributes } = await this.clientOf(destination).send(
        new GetQueueAttributesCommand({ QueueUrl: queueUrl, AttributeNames: ['MaximumMessageSize'] }),
      );
      const limit = maximumMessageSizeOf(Attributes);
      if (limit !== undefined) this.limits.set(queueUrl, limit);
      return limit;
    } catch {
      return undefined;
    }
  }

  private clientOf(destination: SqsDestination): SendMessageClient {
    return this.options.clientFor?.(destination) ?? this.options.client;
  }

  /**
   * The envelope with its body in the payload bucket, under the body's content-addressed key: the object
   * the consumer reads `dataref` from (it must be allowed s3:GetObject there), kept the bucket's lifetime
   * for payloads from this write.
   */
  private async claimCheck(delivery: OutboundDelivery): Promise<Envelope | AttemptFailure> {
    const { envelope } = delivery;
    try {
      const ref = await (this.options.payloads as PayloadWriter).put(
        payloadKey(envelope.provider, envelope.payloadsha256),
        delivery.body,
        envelope.payloadsha256,
      );
      return withDataref(envelope, ref);
    } catch (error) {
      if (error instanceof DependencyError) {
        return { kind: 'failed', code: 'payload_store_unavailable', retryable: true };
      }
      throw error;
    }
  }

  private async sendOnce(
    client: SendMessageClient,
    queueUrl: string,
    envelope: Envelope,
    attributes: Record<string, string>,
  ): Promise<AttemptResult> {
    const command = new SendMessageCommand({
      QueueUrl: queueUrl,
      MessageBody: serializeEnvelope(envelope),
      MessageAttributes: toMessageAttributes(attributes),
    });
    try {
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

function isEnvelope(value: Envelope | AttemptFailure): value is Envelope {
  return 'specversion' in value;
}
