// GitHub: `X-Hub-Signature-256: sha256=<hex>` over the body. GitHub signs no timestamp and no id, so the
// dedup key is the body hash; `X-GitHub-Delivery` is kept as unsigned metadata.
import { randomBytes } from 'node:crypto';
import {
  checkSecrets,
  decodeSignature,
  hmac,
  matchAnySecret,
  optionalHeader,
  parseDeliveryId,
  singleHeader,
} from './primitives';
import type { Scheme } from './types';
import { VerifiedDelivery } from './verified-delivery';

const PREFIX = 'sha256=';
const EVENT_TYPE = { header: 'x-github-event' } as const;

export const github: Scheme = {
  name: 'github',

  verify(request, secrets) {
    const noSecret = checkSecrets(secrets);
    if (noSecret) return { ok: false, reason: noSecret };
    const header = singleHeader(request.headers, 'x-hub-signature-256');
    if (!header.ok) return header;
    if (!header.value.startsWith(PREFIX)) return { ok: false, reason: 'malformed_signature' };
    const signature = decodeSignature(header.value.slice(PREFIX.length), 'hex', 32);
    if (!signature) return { ok: false, reason: 'malformed_signature' };
    const delivery = optionalHeader(request.headers, 'x-github-delivery');
    if (!delivery.ok) return delivery;
    const deliveryId = delivery.value === undefined ? undefined : parseDeliveryId(delivery.value);
    if (deliveryId && !deliveryId.ok) return deliveryId;

    const matched = matchAnySecret('sha256', secrets, [request.body], [signature]);
    if (matched < 0) return { ok: false, reason: 'bad_signature' };
    return {
      ok: true,
      delivery: new VerifiedDelivery(
        request.body,
        'body-sha256',
        EVENT_TYPE,
        request.headers,
        deliveryId?.value,
        undefined,
        matched,
      ),
    };
  },

  sign({ body, secret, id, eventType }) {
    return {
      'X-Hub-Signature-256': PREFIX + hmac('sha256', secret, [body]).toString('hex'),
      'X-GitHub-Event': eventType ?? 'ping',
      'X-GitHub-Delivery': id,
      'Content-Type': 'application/json',
    };
  },

  generateSecret: () => randomBytes(20).toString('hex'),
};
