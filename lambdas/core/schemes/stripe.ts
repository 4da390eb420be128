// Stripe: `Stripe-Signature: t=<ts>,v1=<hex>[,v1=<hex>...]` over `{t}.{body}`, keyed by the whole
// `whsec_...` string. The dedup key is the event `id` in the (signed) body.
import { randomBytes } from 'node:crypto';
import {
  checkFreshness,
  checkSecrets,
  decodeSignature,
  hmac,
  matchAnySecret,
  parseDeliveryId,
  parseUnixSeconds,
  singleHeader,
} from './primitives';
import type { Scheme } from './types';
import { stringAt, VerifiedDelivery } from './verified-delivery';

const EVENT_TYPE = { jsonPath: ['type'] } as const;

export const stripe: Scheme = {
  name: 'stripe',

  verify(request, secrets, { nowSeconds, toleranceSeconds }) {
    const noSecret = checkSecrets(secrets);
    if (noSecret) return { ok: false, reason: noSecret };
    const header = singleHeader(request.headers, 'stripe-signature');
    if (!header.ok) return header;

    let timestampText: string | undefined;
    let v1Seen = false;
    const candidates: Buffer[] = [];
    for (const item of header.value.split(',')) {
      const eq = item.indexOf('=');
      if (eq < 0) continue;
      const key = item.slice(0, eq);
      const value = item.slice(eq + 1);
      if (key === 't') {
        // Two timestamps make it ambiguous which one was signed.
        if (timestampText !== undefined) return { ok: false, reason: 'malformed_timestamp' };
        timestampText = value;
      } else if (key === 'v1') {
        v1Seen = true;
        const signature = decodeSignature(value, 'hex', 32);
        if (signature) candidates.push(signature);
      }
      // v0 (test-mode legacy) and unknown schemes are ignored, as Stripe's libraries do.
    }
    if (timestampText === undefined) return { ok: false, reason: 'malformed_signature' };
    const timestamp = parseUnixSeconds(timestampText);
    if (!timestamp.ok) return timestamp;
    if (candidates.length === 0)
      return { ok: false, reason: v1Seen ? 'malformed_signature' : 'no_supported_signature' };
    const stale = checkFreshness(timestamp.value, nowSeconds, toleranceSeconds);
    if (stale) return { ok: false, reason: stale };

    const matched = matchAnySecret('sha256', secrets, [`${timestampText}.`, request.body], candidates);
    if (matched < 0) return { ok: false, reason: 'bad_signature' };

    // Authentic from here on: what remains can only make it unusable (400), not forged.
    let event: unknown;
    try {
      event = JSON.parse(request.body.toString('utf8'));
    } catch {
      return { ok: false, reason: 'not_json' };
    }
    const eventId = stringAt(event, ['id']);
    if (eventId === undefined) return { ok: false, reason: 'missing_event_id' };
    const id = parseDeliveryId(eventId);
    if (!id.ok) return { ok: false, reason: 'missing_event_id' };
    return {
      ok: true,
      delivery: new VerifiedDelivery(
        request.body,
        { id: id.value },
        EVENT_TYPE,
        request.headers,
        id.value,
        timestamp.value,
        matched,
        { ok: true, value: event },
      ),
    };
  },

  sign({ body, secret, timestamp }) {
    const signature = hmac('sha256', secret, [`${timestamp}.`, body]).toString('hex');
    return { 'Stripe-Signature': `t=${timestamp},v1=${signature}`, 'Content-Type': 'application/json' };
  },

  generateSecret: () => `whsec_${randomBytes(24).toString('hex')}`,
};
