// Deliveries and destinations as the forwarder hands them to a sender: destinations resolved by the real
// config parser (every default filled in), envelopes built by the verify path's own builder.
import { createHash } from 'node:crypto';
import type * as z from 'zod/mini';
import { type ForwardDestination, type httpDestinationSchema, parseConfig } from '../../config';
import type { OutboundDelivery } from '../../lambdas/core/destinations/ports';
import { webhookId } from '../../lambdas/core/destinations/signing';
import { buildEnvelope } from '../../lambdas/core/envelope';
import type { SecretSource } from '../../lambdas/core/ports';

export type HttpDestination = Extract<ForwardDestination, { type: 'http' }>;

export function httpDestination(
  settings: Omit<z.input<typeof httpDestinationSchema>, 'type'>,
  id = 'partner',
): HttpDestination {
  const config = parseConfig({ destinations: { [id]: { type: 'http', ...settings } } });
  return config.destinations[id] as HttpDestination;
}

export interface DeliveryInput {
  body?: Buffer;
  contentType?: string;
  dedupKey?: string;
  eventType?: string;
  deliveryId?: string;
  attempt?: number;
  nowMs?: number;
}

export function outboundDelivery(
  destination: ForwardDestination,
  input: DeliveryInput = {},
): OutboundDelivery {
  const body = input.body ?? Buffer.from('{"action":"opened","number":7}');
  const nowMs = input.nowMs ?? Date.now();
  const envelope = buildEnvelope({
    provider: 'github',
    dedupKey: input.dedupKey ?? 'delivery-1',
    eventType: input.eventType ?? 'pull_request',
    contentType: input.contentType ?? 'application/json',
    deliveryId: input.deliveryId ?? '72d3162e-cc78-11e3-81ab-4c9367dc0958',
    payloadSha256: createHash('sha256').update(body).digest('hex'),
    body,
    receivedAtMs: nowMs,
  });
  return {
    destination,
    webhookId: webhookId(envelope.id),
    envelope,
    body,
    attempt: input.attempt ?? 1,
    nowMs,
  };
}

/** Secrets by destination id, newest first; the test edits `byId` to rotate, lose or break one. */
export function secretsOf(byId: Record<string, string[]>): SecretSource & { byId: Record<string, string[]> } {
  return { byId, get: async (id) => byId[id] ?? [] };
}
