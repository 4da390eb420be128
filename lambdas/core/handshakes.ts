// URL-verification handshakes some providers send before they deliver anything. They are answered
// synchronously (after the signature check), never enqueued: the provider refuses to save the URL
// otherwise.
//   Slack Events API: `{"type":"url_verification","challenge":"..."}` -> echo the challenge.
//   Zoom: `{"event":"endpoint.url_validation","payload":{"plainToken":"..."}}` -> the token and its
//   HMAC-SHA256 (hex) under the secret token.
import { createHmac } from 'node:crypto';
import type { SchemeName } from '../../config/schema';
import { stringAt, type VerifiedDelivery } from './schemes/verified-delivery';

export interface HandshakeAnswer {
  body: Record<string, string>;
}

const TOKEN = /^[\x21-\x7e]{1,512}$/;

export function handshakeAnswer(
  scheme: SchemeName,
  delivery: VerifiedDelivery,
  secrets: readonly string[],
): HandshakeAnswer | undefined {
  if (scheme !== 'slack' && scheme !== 'zoom') return undefined;
  const json = delivery.json();
  if (!json.ok) return undefined;
  if (scheme === 'slack') {
    if (stringAt(json.value, ['type']) !== 'url_verification') return undefined;
    const challenge = stringAt(json.value, ['challenge']);
    return challenge && TOKEN.test(challenge) ? { body: { challenge } } : undefined;
  }
  if (stringAt(json.value, ['event']) !== 'endpoint.url_validation') return undefined;
  const plainToken = stringAt(json.value, ['payload', 'plainToken']);
  const secret = secrets[delivery.secretIndex];
  if (!plainToken || !TOKEN.test(plainToken) || secret === undefined) return undefined;
  return {
    body: { plainToken, encryptedToken: createHmac('sha256', secret).update(plainToken).digest('hex') },
  };
}
