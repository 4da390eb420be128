// Zoom: `x-zm-signature: v0=<hex>` over `v0:{x-zm-request-timestamp}:{body}`, keyed by the app's Secret
// Token. No id is signed, so the dedup key is the body hash; the event type is the body's `event`.
import { randomBytes } from 'node:crypto';
import { builtInSpec, hmacScheme } from './generic-hmac';

const SPEC = builtInSpec({
  name: 'zoom',
  signatureHeader: 'x-zm-signature',
  signaturePrefix: 'v0=',
  template: 'v0:{timestamp}:{body}',
  timestampHeader: 'x-zm-request-timestamp',
  eventType: { jsonPath: ['event'] },
});

export const zoom = hmacScheme(
  SPEC,
  () => randomBytes(16).toString('base64url'),
  () => ({ 'Content-Type': 'application/json' }),
);
