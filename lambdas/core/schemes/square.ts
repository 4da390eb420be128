// Square: `x-square-hmacsha256-signature: <base64>` HMAC-SHA256 over `{notificationUrl}{body}`. The URL is
// the one registered with Square, so a proxy that rewrites it breaks every signature: configure
// `notificationUrl` when the front door's URL differs. The dedup key is the body's `event_id`.
import { randomBytes } from 'node:crypto';
import {
  checkSecrets,
  decodeSignature,
  hmac,
  matchAnySecret,
  type Parsed,
  signedEventId,
  singleHeader,
} from './primitives';
import type { Scheme, SchemeOptions } from './types';
import { acceptSignedEvent } from './verified-delivery';

const EVENT_TYPE = { jsonPath: ['type'] } as const;

/** The configured URL wins: it is what Square signed, whatever the request says it arrived at. */
function notificationUrl(options: SchemeOptions, requestUrl: string | undefined): Parsed<string> {
  const configured =
    typeof options === 'object' && options !== null && 'notificationUrl' in options
      ? options.notificationUrl
      : undefined;
  const url = configured || requestUrl;
  return typeof url === 'string' && url !== ''
    ? { ok: true, value: url }
    : { ok: false, reason: 'no_notification_url' };
}

export const square: Scheme = {
  name: 'square',

  verify(request, secrets, { options }) {
    const noSecret = checkSecrets(secrets);
    if (noSecret) return { ok: false, reason: noSecret };
    const url = notificationUrl(options, request.url);
    if (!url.ok) return url;
    const header = singleHeader(request.headers, 'x-square-hmacsha256-signature');
    if (!header.ok) return header;
    const signature = decodeSignature(header.value, 'base64', 32);
    if (!signature) return { ok: false, reason: 'malformed_signature' };

    const matched = matchAnySecret('sha256', secrets, [url.value, request.body], [signature]);
    if (matched < 0) return { ok: false, reason: 'bad_signature' };
    const event = signedEventId(request.body, ['event_id']);
    if (!event.ok) return event;
    return acceptSignedEvent(request, event.value, EVENT_TYPE, undefined, matched);
  },

  sign({ body, secret, url, options }) {
    const target = notificationUrl(options, url);
    if (!target.ok) throw new TypeError('square: signing needs a notification URL (options or url)');
    return {
      'x-square-hmacsha256-signature': hmac('sha256', secret, [target.value, body]).toString('base64'),
      'Content-Type': 'application/json',
    };
  },

  generateSecret: () => randomBytes(16).toString('base64url'),
};
