// The headers of a forwarded HTTP delivery: Standard Webhooks' id, timestamp and signature, so the
// receiving service verifies with any Standard Webhooks library, and the inbox's own facts. Pure.
import { randomBytes } from 'node:crypto';
import { hmac, sha256Hex } from '../schemes/primitives';
import { standardWebhooksKey } from '../schemes/standard-webhooks';

export const FORWARD_HEADERS = {
  id: 'webhook-id',
  timestamp: 'webhook-timestamp',
  signature: 'webhook-signature',
  provider: 'webhook-inbox-provider',
  eventType: 'webhook-inbox-event-type',
  attempt: 'webhook-inbox-attempt',
  deliveryId: 'webhook-inbox-delivery-id',
} as const;

/**
 * The delivery's `webhook-id`: the same on every attempt and every redrive of one delivery to any
 * destination, and unique across deliveries (the envelope id is provider and dedup key, the inbox's own
 * identity of a delivery). Hashed, because a dedup key may hold characters a header cannot.
 */
export function webhookId(envelopeId: string): string {
  return `msg_${sha256Hex(Buffer.from(envelopeId, 'utf8')).slice(0, 32)}`;
}

/** A new destination secret in the `whsec_` form Standard Webhooks libraries take: 24 random bytes. */
export function newDestinationSecret(): string {
  return `whsec_${randomBytes(24).toString('base64')}`;
}

/** A stored secret as the receiver configures it: Secrets Manager's generated ones have no `whsec_`. */
export function displaySecret(secret: string): string {
  return secret.startsWith('whsec_') ? secret : `whsec_${secret}`;
}

export class UnusableSecretError extends Error {
  override name = 'UnusableSecretError';
  readonly code = 'destination_secret_unusable';
}

/**
 * `v1,<base64>` per secret, space-separated, newest first: while a rotation is under way the receiver
 * may still hold the previous secret, and Standard Webhooks accepts any one matching signature.
 */
export function signatureHeader(
  secrets: readonly string[],
  id: string,
  timestampSeconds: number,
  body: Buffer,
): string {
  const signatures = secrets.map((secret) => {
    const key = standardWebhooksKey(secret);
    if (!key) throw new UnusableSecretError();
    return `v1,${hmac('sha256', key, [id, '.', String(timestampSeconds), '.', body]).toString('base64')}`;
  });
  if (signatures.length === 0) throw new UnusableSecretError();
  return signatures.join(' ');
}

export interface ForwardHeaderInput {
  id: string;
  timestampSeconds: number;
  body: Buffer;
  secrets: readonly string[];
  contentType: string;
  provider: string;
  eventType: string;
  attempt: number;
  deliveryId?: string;
}

/** Header values must be visible ASCII: an event type outside it is percent-encoded. */
function headerValue(text: string): string {
  return /^[\x20-\x7e]*$/.test(text) ? text : encodeURIComponent(text);
}

export function forwardHeaders(input: ForwardHeaderInput): Record<string, string> {
  return {
    'content-type': input.contentType,
    [FORWARD_HEADERS.id]: input.id,
    [FORWARD_HEADERS.timestamp]: String(input.timestampSeconds),
    [FORWARD_HEADERS.signature]: signatureHeader(input.secrets, input.id, input.timestampSeconds, input.body),
    [FORWARD_HEADERS.provider]: input.provider,
    [FORWARD_HEADERS.eventType]: headerValue(input.eventType),
    [FORWARD_HEADERS.attempt]: String(input.attempt),
    ...(input.deliveryId === undefined
      ? {}
      : { [FORWARD_HEADERS.deliveryId]: headerValue(input.deliveryId) }),
    'user-agent': 'webhook-inbox',
  };
}
