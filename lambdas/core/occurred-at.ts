// When the provider says the event happened, read from signed material only: a field of the signed body,
// or a signed timestamp that stands for the event (not for the send attempt). Handlers get it as
// `ctx.occurredAt` to resist reordering; where a provider says nothing usable, the receive time stands in.
import type { SchemeName } from '../../config/schema';
import { valueAt } from './schemes/primitives';
import type { VerifiedDelivery } from './schemes/verified-delivery';

type TimeField =
  /** A field of the JSON body: ISO-8601 text, or a number in the given unit. */
  | { readonly path: readonly string[]; readonly unit?: 'seconds' | 'milliseconds' }
  /** The scheme's signed timestamp, where it is the event's own time. */
  | { readonly signedTimestamp: true };

/**
 * Per scheme, where the event time is. Not the delivery-attempt timestamps (Stripe's `t`, Standard
 * Webhooks' `webhook-timestamp`, Slack's request timestamp, Linear's `webhookTimestamp`): a retry carries
 * a newer one for the same old event. GitHub sends no event time at all.
 */
const EVENT_TIME: Partial<Record<SchemeName, readonly TimeField[]>> = {
  stripe: [{ path: ['created'], unit: 'seconds' }],
  'standard-webhooks': [{ path: ['timestamp'] }],
  // Mobazha's body is a CloudEvents envelope, whose `time` is when the occurrence happened.
  mobazha: [{ path: ['time'] }],
  shopify: [{ path: ['updated_at'] }, { path: ['created_at'] }],
  slack: [{ path: ['event_time'], unit: 'seconds' }],
  zoom: [{ path: ['event_ts'], unit: 'milliseconds' }],
  paddle: [{ path: ['occurred_at'] }],
  linear: [{ path: ['createdAt'] }],
  square: [{ path: ['created_at'] }],
  // Only when the partner's template signs it (the scheme reports no timestamp otherwise).
  'generic-hmac': [{ signedTimestamp: true }],
};

/** Earlier than this is not a webhook's event time but a zero or a unit mix-up. */
const EARLIEST_MS = Date.UTC(2000, 0, 1);
/** Clocks differ, but an event a day in the future is not plausible. */
const FUTURE_SLACK_MS = 86_400_000;

function read(delivery: VerifiedDelivery, field: TimeField): number | undefined {
  if ('signedTimestamp' in field)
    return delivery.timestamp === undefined ? undefined : delivery.timestamp * 1000;
  const json = delivery.json();
  if (!json.ok) return undefined;
  const value = valueAt(json.value, field.path);
  if (typeof value === 'string') return /^\d{4}-\d\d-\d\dT/.test(value) ? Date.parse(value) : undefined;
  if (typeof value === 'number') return field.unit === 'milliseconds' ? value : value * 1000;
  return undefined;
}

/** The event's own time in epoch milliseconds, or undefined when the provider does not say (or says nonsense). */
export function occurredAtOf(
  scheme: SchemeName,
  delivery: VerifiedDelivery,
  nowMs: number,
): number | undefined {
  for (const field of EVENT_TIME[scheme] ?? []) {
    const ms = read(delivery, field);
    if (ms !== undefined && Number.isFinite(ms) && ms >= EARLIEST_MS && ms <= nowMs + FUTURE_SLACK_MS) {
      return Math.trunc(ms);
    }
  }
  return undefined;
}
