// URL-verification handshakes some providers send before they deliver anything. They are answered
// synchronously, never enqueued: the provider refuses to save the URL otherwise.
//   Slack Events API: `{"type":"url_verification","challenge":"..."}` -> echo the challenge.
//   Zoom: `{"event":"endpoint.url_validation","payload":{"plainToken":"..."}}` -> the token and its
//   HMAC-SHA256 (hex) under the secret token.
// Both are signed and answered after the signature check. Slack's slash-command probe is not signed:
//   `ssl_check=1&token=...` (form-encoded) -> an empty 200, before any signature work (unsignedHandshake).
import { createHmac } from 'node:crypto';
import type { SchemeName } from '../../config/schema';
import { stringAt, type VerifiedDelivery } from './schemes/verified-delivery';

export interface HandshakeAnswer {
  /** Which handshake was answered, for the log line. */
  kind: 'url_verification' | 'endpoint.url_validation' | 'ssl_check';
  /** The JSON answer; none for an empty 200. */
  body?: Record<string, string>;
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
    return challenge && TOKEN.test(challenge) ? { kind: 'url_verification', body: { challenge } } : undefined;
  }
  if (stringAt(json.value, ['event']) !== 'endpoint.url_validation') return undefined;
  const plainToken = stringAt(json.value, ['payload', 'plainToken']);
  const secret = secrets[delivery.secretIndex];
  if (!plainToken || !TOKEN.test(plainToken) || secret === undefined) return undefined;
  return {
    kind: 'endpoint.url_validation',
    body: { plainToken, encryptedToken: createHmac('sha256', secret).update(plainToken).digest('hex') },
  };
}

// Slack's probe is a few dozen bytes: `ssl_check=1&token=<verification token>`.
const SSL_CHECK_MAX_BYTES = 512;
// The only fields it has, each with the only values it sends. Values are matched as sent, undecoded: a
// `%` or `+` is already something else than Slack's probe.
const SSL_CHECK_FIELDS: Readonly<Record<string, RegExp>> = {
  ssl_check: /^1$/,
  token: /^[A-Za-z0-9._-]{1,256}$/,
};

/**
 * Slack's unsigned probe of a slash-command URL, which expects a 200 (Bolt answers it so, before verifying
 * anything: it is not signed). Only that exact form qualifies: form-encoded, `ssl_check=1`, at most a
 * `token` besides, each once. Anything else that looks like a payload (`command`, `payload`, any other
 * field) is verified like every delivery. Answering it stores, queues and reads nothing, not even a secret.
 */
export function unsignedHandshake(
  scheme: SchemeName,
  mediaType: string,
  body: Buffer,
): HandshakeAnswer | undefined {
  if (scheme !== 'slack' || mediaType !== 'application/x-www-form-urlencoded') return undefined;
  if (body.length > SSL_CHECK_MAX_BYTES) return undefined;
  const seen = new Set<string>();
  for (const field of body.toString('latin1').split('&')) {
    const eq = field.indexOf('=');
    const name = eq < 0 ? field : field.slice(0, eq);
    const pattern = Object.hasOwn(SSL_CHECK_FIELDS, name) ? SSL_CHECK_FIELDS[name] : undefined;
    if (!pattern || eq < 0 || seen.has(name) || !pattern.test(field.slice(eq + 1))) return undefined;
    seen.add(name);
  }
  return seen.has('ssl_check') ? { kind: 'ssl_check' } : undefined;
}
