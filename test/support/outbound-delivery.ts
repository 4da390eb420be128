// Deliveries and destinations as the forwarder hands them to a sender: destinations resolved by the real
// config parser (every default filled in), envelopes built by the verify path's own builder, real bytes.
import type * as z from 'zod/mini';
import { type ForwardDestination, type httpDestinationSchema, parseConfig } from '../../config';
import type { OutboundDelivery } from '../../lambdas/core/destinations/ports';
import { webhookId } from '../../lambdas/core/destinations/signing';
import { buildEnvelope, type EnvelopeInput } from '../../lambdas/core/envelope';
import type { SecretSource } from '../../lambdas/core/ports';
import { sha256Hex } from '../../lambdas/core/schemes/primitives';

export type HttpDestination = Extract<ForwardDestination, { type: 'http' }>;

/** A destination of the type and settings given, as parseConfig resolves it. */
function resolved<T extends ForwardDestination>(id: string, input: Record<string, unknown>): T {
  const config = parseConfig({ destinations: { [id]: input } });
  return config.destinations[id] as T;
}

export function httpDestination(
  settings: Omit<z.input<typeof httpDestinationSchema>, 'type'>,
  id = 'partner',
): HttpDestination {
  return resolved(id, { type: 'http', ...settings });
}

export const EVENTBRIDGE_DESTINATION = resolved<Extract<ForwardDestination, { type: 'eventbridge' }>>('bus', {
  type: 'eventbridge',
  retrySchedule: [60, 300],
});
export const SQS_DESTINATION = resolved<Extract<ForwardDestination, { type: 'sqs' }>>('partner-queue', {
  type: 'sqs',
  queueArn: 'arn:aws:sqs:eu-west-1:123456789012:partner-events',
  retrySchedule: [60, 300],
});

export interface DeliveryOptions extends Partial<Omit<EnvelopeInput, 'body' | 'payloadSha256'>> {
  body?: Buffer | string;
  destination?: ForwardDestination;
  attempt?: number;
  /** The attempt's time (HTTP's webhook-timestamp). @default now, so Standard Webhooks libraries accept it */
  nowMs?: number;
}

/**
 * A delivery to `destination` (an EventBridge one by default). Either argument form: the destination
 * first and the options after it, or the options alone.
 */
export function outboundDelivery(
  destinationOrOptions: ForwardDestination | DeliveryOptions = {},
  more: DeliveryOptions = {},
): OutboundDelivery {
  const options =
    'type' in destinationOrOptions ? { ...more, destination: destinationOrOptions } : destinationOrOptions;
  const {
    destination = EVENTBRIDGE_DESTINATION,
    body: given = '{"action":"opened","number":7}',
    attempt = 1,
    nowMs = Date.now(),
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
  return { destination, webhookId: webhookId(envelope.id), envelope, body, attempt, nowMs };
}

/** Secrets by destination id, newest first; the test edits `byId` to rotate, lose or break one. */
export function secretsOf(byId: Record<string, string[]>): SecretSource & { byId: Record<string, string[]> } {
  return { byId, get: async (id) => byId[id] ?? [] };
}
