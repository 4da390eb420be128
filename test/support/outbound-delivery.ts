// OutboundDelivery values for the destination senders' tests: a real envelope around real bytes, to an
// EventBridge or SQS destination with every default filled in.
import type { ForwardDestination } from '../../config';
import type { OutboundDelivery } from '../../lambdas/core/destinations/ports';
import { webhookId } from '../../lambdas/core/destinations/signing';
import { buildEnvelope, type EnvelopeInput } from '../../lambdas/core/envelope';
import { sha256Hex } from '../../lambdas/core/schemes/primitives';

const COMMON = { filter: {}, retrySchedule: [60, 300], whenDisabled: 'wait' as const, maxConcurrency: 5 };

export const EVENTBRIDGE_DESTINATION: Extract<ForwardDestination, { type: 'eventbridge' }> = {
  id: 'bus',
  type: 'eventbridge',
  ...COMMON,
};
export const SQS_DESTINATION: Extract<ForwardDestination, { type: 'sqs' }> = {
  id: 'partner-queue',
  type: 'sqs',
  queueArn: 'arn:aws:sqs:eu-west-1:123456789012:partner-events',
  ...COMMON,
};

export interface DeliveryOptions extends Partial<Omit<EnvelopeInput, 'body' | 'payloadSha256'>> {
  body?: Buffer | string;
  destination?: ForwardDestination;
}

export function outboundDelivery(options: DeliveryOptions = {}): OutboundDelivery {
  const {
    destination = EVENTBRIDGE_DESTINATION,
    body: given = '{"action":"opened","number":7}',
    ...rest
  } = options;
  const body = Buffer.isBuffer(given) ? given : Buffer.from(given, 'utf8');
  const envelope = buildEnvelope({
    provider: 'github',
    dedupKey: 'f1e2d3c4-0000-4000-8000-000000000001',
    deliveryId: 'f1e2d3c4-0000-4000-8000-000000000001',
    eventType: 'pull_request',
    contentType: 'application/json',
    receivedAtMs: Date.UTC(2026, 10, 30, 12, 0, 0, 250),
    ...rest,
    payloadSha256: sha256Hex(body),
    body,
  });
  return {
    destination,
    webhookId: webhookId(envelope.id),
    envelope,
    body,
    attempt: 1,
    nowMs: Date.UTC(2026, 10, 30, 12, 0, 5),
  };
}
