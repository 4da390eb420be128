// Shopify: `X-Shopify-Hmac-Sha256: <base64>` over the body. Nothing else is signed, so the dedup key is
// the body hash; `X-Shopify-Webhook-Id` is kept as unsigned delivery-id metadata.
import { randomBytes } from 'node:crypto';
import { builtInSpec, hmacScheme } from './generic-hmac';

const SPEC = builtInSpec({
  name: 'shopify',
  signatureHeader: 'X-Shopify-Hmac-Sha256',
  encoding: 'base64',
  template: '{body}',
  idHeader: 'X-Shopify-Webhook-Id',
  eventType: { header: 'x-shopify-topic' },
});

export const shopify = hmacScheme(
  SPEC,
  () => `shpss_${randomBytes(16).toString('hex')}`,
  ({ eventType }) => ({
    'X-Shopify-Topic': eventType ?? 'orders/create',
    'Content-Type': 'application/json',
  }),
);
