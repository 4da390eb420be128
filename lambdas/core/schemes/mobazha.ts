// Mobazha's webhook contract: `X-Webhook-Signature: sha256=<hex>` over
// `{X-Webhook-ID}.{X-Webhook-Timestamp}.{body}`. The id is signed, so it is the dedup key. Bodies are
// CloudEvents 1.0 structured JSON: the type is `type`.
import { randomBytes } from 'node:crypto';
import { builtInSpec, hmacScheme } from './generic-hmac';

const SPEC = builtInSpec({
  name: 'mobazha',
  signatureHeader: 'X-Webhook-Signature',
  signaturePrefix: 'sha256=',
  template: '{id}.{timestamp}.{body}',
  timestampHeader: 'X-Webhook-Timestamp',
  idHeader: 'X-Webhook-ID',
  eventType: { jsonPath: ['type'] },
});

export const mobazha = hmacScheme(
  SPEC,
  () => randomBytes(32).toString('hex'),
  () => ({ 'Content-Type': 'application/json' }),
);
