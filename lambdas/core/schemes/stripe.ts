// Stripe: `Stripe-Signature: t=<ts>,v1=<hex>[,v1=<hex>...]` over `{t}.{body}`, keyed by the whole
// `whsec_...` string. The dedup key is the event `id` in the (signed) body.
import { randomBytes } from 'node:crypto';
import { checkKeyedSignatures, hmac, type KeyedSignatureFormat, signedEventId } from './primitives';
import type { Scheme } from './types';
import { acceptSignedEvent } from './verified-delivery';

const EVENT_TYPE = { jsonPath: ['type'] } as const;
// v0 (test-mode legacy) and unknown schemes are ignored, as Stripe's libraries do.
const FORMAT: KeyedSignatureFormat = {
  header: 'stripe-signature',
  separator: ',',
  timestampKey: 't',
  signatureKey: 'v1',
  joiner: '.',
};

export const stripe: Scheme = {
  name: 'stripe',

  verify(request, secrets, { nowSeconds, toleranceSeconds }) {
    const checked = checkKeyedSignatures(request, secrets, FORMAT, nowSeconds, toleranceSeconds);
    if (!checked.ok) return checked;
    const event = signedEventId(request.body, ['id']);
    if (!event.ok) return event;
    return acceptSignedEvent(
      request,
      event.value,
      EVENT_TYPE,
      checked.value.timestamp,
      checked.value.secretIndex,
    );
  },

  sign({ body, secret, timestamp }) {
    const signature = hmac('sha256', secret, [`${timestamp}.`, body]).toString('hex');
    return { 'Stripe-Signature': `t=${timestamp},v1=${signature}`, 'Content-Type': 'application/json' };
  },

  generateSecret: () => `whsec_${randomBytes(24).toString('hex')}`,
};
