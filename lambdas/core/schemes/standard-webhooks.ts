// Standard Webhooks (and Svix, its origin): `webhook-signature: v1,<base64> [v1,<base64> ...]` over
// `{id}.{timestamp}.{body}`, keyed by the base64 secret after `whsec_`. Svix senders use `svix-*` names.
import { randomBytes } from 'node:crypto';
import {
  decodeSignature,
  freshTimestamp,
  hmac,
  isUsableSecret,
  matchAnySecret,
  parseDeliveryId,
  singleHeader,
} from './primitives';
import type { HeaderMap, Scheme } from './types';
import { VerifiedDelivery } from './verified-delivery';

const SECRET_PREFIX = 'whsec_';
const BASE64_DIGITS = /^[A-Za-z0-9+/]+$/;
const EVENT_TYPE = { jsonPath: ['type'] } as const;

// Decoding a secret on every request is measurable at 1 KiB bodies; the set of secrets is tiny.
const keyCache = new Map<string, Buffer | null>();

/**
 * The key bytes of a `whsec_` secret as the reference libraries decode it: standard base64, padded or not
 * (the JavaScript library, on which Svix's is built, never required the `=`; Python adds it since 2026).
 * Refused (fail closed): the URL-safe alphabet, which JavaScript and Java reject and Python silently
 * drops characters of, fewer than four characters, which JavaScript rejects, and a length no encoder
 * produces (one character past a group), of which JavaScript silently ignores the last character.
 */
function decodeSecret(encoded: string): Buffer | null {
  const digits = encoded.endsWith('==')
    ? encoded.slice(0, -2)
    : encoded.endsWith('=')
      ? encoded.slice(0, -1)
      : encoded;
  if (encoded.length < 4 || digits.length % 4 === 1 || !BASE64_DIGITS.test(digits)) return null;
  const key = Buffer.from(digits, 'base64');
  return key.length > 0 ? key : null;
}

/** The HMAC key for a `whsec_` secret, or null if it is not usable (fail closed). */
export function standardWebhooksKey(secret: string): Buffer | null {
  let key = keyCache.get(secret);
  if (key === undefined) {
    const encoded = secret.startsWith(SECRET_PREFIX) ? secret.slice(SECRET_PREFIX.length) : secret;
    key = isUsableSecret(secret) ? decodeSecret(encoded) : null;
    if (keyCache.size > 64) keyCache.clear();
    keyCache.set(secret, key);
  }
  return key;
}

// Constant names: building `${prefix}id` per request costs a string concatenation and a slow property
// lookup by a fresh string, three times per verification.
const WEBHOOK_HEADERS = { id: 'webhook-id', timestamp: 'webhook-timestamp', signature: 'webhook-signature' };
const SVIX_HEADERS: typeof WEBHOOK_HEADERS = {
  id: 'svix-id',
  timestamp: 'svix-timestamp',
  signature: 'svix-signature',
};

/**
 * The header to read for one field: `webhook-*` (the standard) or its `svix-*` twin, whichever came. Both
 * with different values are refused (undefined): Svix's library would check one, the standard's the
 * other, so which one was meant is unknowable, as with a header sent twice.
 */
function fieldHeader(headers: HeaderMap, standard: string, svix: string): string | undefined {
  const twin = headers[svix];
  if (twin === undefined) return standard;
  const value = headers[standard];
  if (value === undefined) return svix;
  return typeof value === 'string' && value === twin ? standard : undefined;
}

export const standardWebhooks: Scheme = {
  name: 'standard-webhooks',

  verify(request, secrets, { nowSeconds, toleranceSeconds }) {
    if (secrets.length === 0) return { ok: false, reason: 'no_secret' };
    const keys: Buffer[] = [];
    for (const secret of secrets) {
      const key = standardWebhooksKey(secret);
      if (!key) return { ok: false, reason: 'no_secret' };
      keys.push(key);
    }
    const { headers } = request;
    const idName = fieldHeader(headers, WEBHOOK_HEADERS.id, SVIX_HEADERS.id);
    const timestampName = fieldHeader(headers, WEBHOOK_HEADERS.timestamp, SVIX_HEADERS.timestamp);
    const signatureName = fieldHeader(headers, WEBHOOK_HEADERS.signature, SVIX_HEADERS.signature);
    if (!idName || !timestampName || !signatureName) return { ok: false, reason: 'repeated_header' };
    const idHeader = singleHeader(headers, idName);
    if (!idHeader.ok) return idHeader;
    const id = parseDeliveryId(idHeader.value);
    if (!id.ok) return id;
    const timestamp = freshTimestamp(headers, timestampName, nowSeconds, toleranceSeconds);
    if (!timestamp.ok) return timestamp;
    const header = singleHeader(headers, signatureName);
    if (!header.ok) return header;

    // Space-separated `version,signature` pairs (empty entries included, as split(' ') would give them).
    // Only `v1,<sig>` entries count; unknown versions (v1a is asymmetric) are skipped. Walked in place
    // rather than split: most headers carry one signature, and the split array is measurable at 1 KiB.
    const value = header.value;
    const candidates: Buffer[] = [];
    let v1Seen = false;
    for (let start = 0; start <= value.length; ) {
      let end = value.indexOf(' ', start);
      if (end < 0) end = value.length;
      // 'v1,' holds no space, so a match cannot run past this entry.
      if (value.startsWith('v1,', start)) {
        v1Seen = true;
        const signature = decodeSignature(value.slice(start + 3, end), 'base64', 32);
        if (signature) candidates.push(signature);
      }
      start = end + 1;
    }
    if (candidates.length === 0)
      return { ok: false, reason: v1Seen ? 'malformed_signature' : 'no_supported_signature' };

    const matched = matchAnySecret(
      'sha256',
      keys,
      [`${id.value}.${timestamp.value}.`, request.body],
      candidates,
    );
    if (matched < 0) return { ok: false, reason: 'bad_signature' };
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
      ),
    };
  },

  sign({ body, secret, timestamp, id }) {
    const key = standardWebhooksKey(secret);
    if (!key) throw new TypeError('standard-webhooks: the secret is not a whsec_ base64 secret');
    const signature = hmac('sha256', key, [`${id}.${timestamp}.`, body]).toString('base64');
    return {
      'webhook-id': id,
      'webhook-timestamp': String(timestamp),
      'webhook-signature': `v1,${signature}`,
      'Content-Type': 'application/json',
    };
  },

  generateSecret: () => SECRET_PREFIX + randomBytes(24).toString('base64'),
};
