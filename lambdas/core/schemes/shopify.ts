// Shopify: `X-Shopify-Hmac-Sha256: <base64>` over the body. Nothing else is signed, so the dedup key is
// the body hash; `X-Shopify-Webhook-Id` (else the event id) is kept as unsigned delivery-id metadata.
// Shopify's events webhooks name the same headers without `x-` (`shopify-hmac-sha256`, `shopify-topic`,
// ...) and for now send both spellings; shopify-api-js reads either, and so does this scheme.
import { randomBytes } from 'node:crypto';
import { builtInSpec, checkHmac, deliveryOf, signHmac } from './generic-hmac';
import { optionalHeader, type Parsed, parseDeliveryId } from './primitives';
import type { HeaderMap, Scheme } from './types';

const SPEC = builtInSpec({
  name: 'shopify',
  signatureHeader: 'X-Shopify-Hmac-Sha256',
  encoding: 'base64',
  template: '{body}',
  idHeader: 'X-Shopify-Webhook-Id',
  eventType: { header: 'x-shopify-topic' },
});

// Every header Shopify sends under both spellings, as [newer, classic] names built once.
const SPELLINGS = [
  'hmac-sha256',
  'topic',
  'webhook-id',
  'event-id',
  'shop-domain',
  'api-version',
  'triggered-at',
  'sub-topic',
  'name',
  'handle',
  'action',
  'resource-id',
].map((suffix) => [`shopify-${suffix}`, `x-shopify-${suffix}`] as const);

/**
 * The headers under their `x-shopify-*` names, the `shopify-*` spelling standing in for a missing one.
 * Both spellings with different values are refused as a repeated header: which one Shopify signed or
 * meant is then unknowable, exactly as with two copies of one header.
 */
function classicView(headers: HeaderMap): Parsed<HeaderMap> {
  let view: Record<string, string | readonly string[] | undefined> | undefined;
  for (const [newer, classic] of SPELLINGS) {
    const value = headers[newer];
    if (value === undefined) continue;
    const existing = headers[classic];
    if (existing === undefined) {
      view ??= { ...headers };
      view[classic] = value;
    } else if (typeof existing !== 'string' || existing !== value) {
      return { ok: false, reason: 'repeated_header' };
    }
  }
  return { ok: true, value: view ?? headers };
}

export const shopify: Scheme = {
  name: 'shopify',
  // Shopify sends one order body under two topics at once (orders/create and orders/updated): a 409
  // would be retried for hours, warn the merchant, and perhaps end the subscription. The body arrived
  // under its first topic; under the second nothing runs.
  sameBodyOtherType: 'duplicate',

  verify(request, secrets, context) {
    const headers = classicView(request.headers);
    if (!headers.ok) return headers;
    const view = { ...request, headers: headers.value };
    const match = checkHmac(SPEC, view, secrets, context);
    if (!match.ok) return match;
    let id = match.value.id;
    if (id === undefined) {
      // Events webhooks carry no webhook id; their event id names the delivery instead.
      const event = optionalHeader(view.headers, 'x-shopify-event-id');
      if (!event.ok) return event;
      const parsed = event.value === undefined ? undefined : parseDeliveryId(event.value);
      if (parsed && !parsed.ok) return parsed;
      id = parsed?.value;
    }
    return { ok: true, delivery: deliveryOf(SPEC, view, { ...match.value, id }) };
  },

  sign: (input) => ({
    ...signHmac(SPEC, input),
    'X-Shopify-Topic': input.eventType ?? 'orders/create',
    'Content-Type': 'application/json',
  }),

  generateSecret: () => `shpss_${randomBytes(16).toString('hex')}`,
};
