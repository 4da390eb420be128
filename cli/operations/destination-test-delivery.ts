// `webhook-inbox destinations test <id>`: one signed test event through the forwarder's own sender for
// the destination, from this machine, judged by the forwarder's own rules; nothing is recorded.
import { randomBytes } from 'node:crypto';
import type { ForwardDestination } from '../../config';
import { type AttemptVerdict, judgeAttempt } from '../../lambdas/core/destinations/attempt';
import type { DestinationSender } from '../../lambdas/core/destinations/ports';
import { webhookId as webhookIdOf } from '../../lambdas/core/destinations/signing';
import { largestInlineBodyBytes, sqsMessageBytes } from '../../lambdas/core/destinations/sqs-message-size';
import {
  buildEnvelope,
  type Envelope,
  envelopeAttributes,
  serializeEnvelope,
} from '../../lambdas/core/envelope';
import { sha256Hex } from '../../lambdas/core/schemes/primitives';
import { CLI } from '../shared/hint';
import type { Target } from '../shared/target-types';

export const TEST_EVENT_TYPE = 'webhook-inbox.test';
export const TEST_PROVIDER = 'webhook-inbox';

export interface TestOutcome {
  id: string;
  webhookId: string;
  status?: number;
  code?: string;
  verdict: AttemptVerdict['kind'];
  /** What the forwarder would do with this answer. */
  meaning: string;
  durationMs: number;
  /** SQS: the target queue's MaximumMessageSize (GetQueueAttributes), when this machine may read it. */
  maxMessageBytes?: number;
  /** SQS: what the queue's size means for the envelopes it gets, when it matters. */
  note?: string;
}

const MEANING: Record<AttemptVerdict['kind'], string> = {
  delivered: 'delivered',
  retry: 'the forwarder would retry this on its schedule',
  permanent: 'the forwarder would dead-letter this at once',
  gone: 'the forwarder would disable this destination (410 Gone) until `destinations enable`',
};

/** What `maximumMessageSize` a sender offers (the SQS one): the target queue's limit, read once. */
interface QueueSizeReader {
  maximumMessageSize(destination: ForwardDestination): Promise<number | undefined>;
}

function readsQueueSize(sender: DestinationSender): sender is DestinationSender & QueueSizeReader {
  return typeof (sender as Partial<QueueSizeReader>).maximumMessageSize === 'function';
}

/**
 * The target queue's limit, and what it means: a queue smaller than the envelope of a body just under
 * inlineLimitBytes gets the larger inline envelopes as `dataref` (the body in the payload bucket).
 */
async function queueSize(
  target: Target,
  sender: DestinationSender,
  destination: ForwardDestination,
  sample: { envelope: Envelope; webhookId: string },
): Promise<Pick<TestOutcome, 'maxMessageBytes' | 'note'>> {
  if (destination.type !== 'sqs' || !readsQueueSize(sender)) return {};
  const limit = await sender.maximumMessageSize(destination);
  if (limit === undefined) {
    return {
      note:
        "the target queue's MaximumMessageSize could not be read (sqs:GetQueueAttributes); envelopes it " +
        'refuses for size are sent again with their body in the payload bucket (dataref)',
    };
  }
  const attributes = { ...envelopeAttributes(sample.envelope), webhookId: sample.webhookId };
  const empty = sqsMessageBytes(serializeEnvelope({ ...sample.envelope, data_base64: '' }), attributes);
  const largest = largestInlineBodyBytes(limit, empty);
  if (largest >= target.config.inlineLimitBytes) return { maxMessageBytes: limit };
  return {
    maxMessageBytes: limit,
    note:
      `the target queue takes messages up to ${limit} bytes: bodies over about ${largest} bytes (under ` +
      `inlineLimitBytes, ${target.config.inlineLimitBytes}) reach it as dataref envelopes, the body in the ` +
      'payload bucket: give its consumers s3:GetObject there',
  };
}

async function senderFor(target: Target, destination: ForwardDestination): Promise<DestinationSender> {
  const { targetSenders } = await import('./destination-senders');
  const sender = (await targetSenders(target))[destination.type];
  if (!sender) throw new Error(`no sender for ${destination.type}`);
  return sender;
}

export async function sendTestDelivery(
  target: Target,
  destination: ForwardDestination,
): Promise<TestOutcome> {
  const nowMs = Date.now();
  const body = Buffer.from(
    JSON.stringify({
      type: TEST_EVENT_TYPE,
      timestamp: new Date(nowMs).toISOString(),
      data: {
        destination: destination.id,
        message: `a test delivery from \`${CLI} destinations test\``,
      },
    }),
  );
  const dedupKey = `test_${randomBytes(8).toString('hex')}`;
  const envelope = buildEnvelope({
    provider: TEST_PROVIDER,
    dedupKey,
    eventType: TEST_EVENT_TYPE,
    contentType: 'application/json',
    payloadSha256: sha256Hex(body),
    body,
    receivedAtMs: nowMs,
  });
  // Its own id (the dedup key is random), in the form of every other: a receiver that dedups on
  // webhook-id must not take a second test for the first.
  const webhookId = webhookIdOf(envelope.id);
  const sender = await senderFor(target, destination);
  const started = performance.now();
  const result = await sender.send({ destination, webhookId, envelope, body, attempt: 1, nowMs });
  const durationMs = Math.round(performance.now() - started);
  const verdict = judgeAttempt(result, Date.now());
  const size = await queueSize(target, sender, destination, { envelope, webhookId });
  return {
    id: destination.id,
    webhookId,
    ...(result.kind === 'answered' ? { status: result.status } : {}),
    ...(verdict.kind === 'delivered' ? {} : { code: verdict.code }),
    verdict: verdict.kind,
    meaning: MEANING[verdict.kind],
    durationMs,
    ...size,
  };
}
