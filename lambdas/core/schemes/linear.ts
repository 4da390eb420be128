// Linear: `Linear-Signature: <hex>` over the body. The only signed time is `webhookTimestamp`, Unix
// MILLISECONDS inside the JSON body; Linear asks receivers to refuse it outside a one-minute window (the
// provider's toleranceSeconds). No id is signed, so the dedup key is the body hash; `Linear-Delivery` is
// unsigned delivery-id metadata.
import { randomBytes } from 'node:crypto';
import { builtInSpec, checkHmac, signHmac } from './generic-hmac';
import { checkFreshness, parseJson, valueAt } from './primitives';
import type { Scheme } from './types';
import { VerifiedDelivery } from './verified-delivery';

const SPEC = builtInSpec({
  name: 'linear',
  signatureHeader: 'Linear-Signature',
  template: '{body}',
  idHeader: 'Linear-Delivery',
  eventType: { firstOf: [{ header: 'linear-event' }, { jsonPath: ['type'] }] },
});

export const linear: Scheme = {
  name: 'linear',

  verify(request, secrets, context) {
    const match = checkHmac(SPEC, request, secrets, context);
    if (!match.ok) return match;
    // Read only after the MAC matched: the timestamp is trusted because the body is.
    const json = parseJson(request.body);
    const millis = json.ok ? valueAt(json.value, ['webhookTimestamp']) : undefined;
    if (typeof millis !== 'number' || !Number.isSafeInteger(millis) || millis < 0) {
      return { ok: false, reason: 'malformed_timestamp' };
    }
    const { nowSeconds, toleranceSeconds } = context;
    const stale = checkFreshness(millis, nowSeconds * 1000, toleranceSeconds * 1000);
    if (stale) return { ok: false, reason: stale };
    return {
      ok: true,
      delivery: new VerifiedDelivery(
        request.body,
        'body-sha256',
        SPEC.spec.eventType,
        request.headers,
        match.value.id,
        Math.floor(millis / 1000),
        match.value.secretIndex,
        json,
      ),
    };
  },

  /** The body must already carry `webhookTimestamp`: Linear signs it there, not in a header. */
  sign: (input) => ({
    ...signHmac(SPEC, input),
    'Linear-Event': input.eventType ?? 'Issue',
    'Content-Type': 'application/json; charset=utf-8',
  }),

  generateSecret: () => `lin_wh_${randomBytes(33).toString('base64url')}`,
};
