// Paddle Billing: `Paddle-Signature: ts=<ts>;h1=<hex>[;h1=<hex>...]` over `{ts}:{body}`, keyed by the
// whole `pdl_ntfset_...` secret. Several h1 values arrive while a secret rotates. The dedup key is the
// body's `notification_id`, which stays the same when Paddle retries or replays a notification.
import { randomBytes } from 'node:crypto';
import { checkKeyedSignatures, hmac, type KeyedSignatureFormat, signedEventId } from './primitives';
import type { Scheme } from './types';
import { acceptSignedEvent } from './verified-delivery';

const EVENT_TYPE = { jsonPath: ['event_type'] } as const;
const FORMAT: KeyedSignatureFormat = {
  header: 'paddle-signature',
  separator: ';',
  timestampKey: 'ts',
  signatureKey: 'h1',
  joiner: ':',
};
// Paddle ids are a prefix and 26 lowercase Crockford base32 characters.
const ID_ALPHABET = '0123456789abcdefghjkmnpqrstvwxyz';

function paddleId(): string {
  return Array.from(randomBytes(26), (byte) => ID_ALPHABET[byte % 32]).join('');
}

export const paddle: Scheme = {
  name: 'paddle',

  verify(request, secrets, { nowSeconds, toleranceSeconds }) {
    const checked = checkKeyedSignatures(request, secrets, FORMAT, nowSeconds, toleranceSeconds);
    if (!checked.ok) return checked;
    const notification = signedEventId(request.body, ['notification_id']);
    if (!notification.ok) return notification;
    const { timestamp, secretIndex } = checked.value;
    return acceptSignedEvent(request, notification.value, EVENT_TYPE, timestamp, secretIndex);
  },

  sign({ body, secret, timestamp }) {
    const signature = hmac('sha256', secret, [`${timestamp}:`, body]).toString('hex');
    return { 'Paddle-Signature': `ts=${timestamp};h1=${signature}`, 'Content-Type': 'application/json' };
  },

  generateSecret: () => `pdl_ntfset_${paddleId()}_${randomBytes(24).toString('base64url')}`,
};
