// Hostile and broken deliveries through the real verify handler over dynalite and fauxqs. Every case is
// signed correctly except for the one thing it tests, and each checks the status (docs/how-it-works.md, "Answers"), the
// reason code in the log line, that nothing was stored, and that no secret, signature or body text was
// logged.
import { randomBytes } from 'node:crypto';
import type { APIGatewayProxyEvent } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import {
  bodyOfSize,
  DEFAULT_SECRETS,
  findLeaks,
  jsonBody,
  MAX_BODY_BYTES,
  needlesFor,
  SECRETS,
  TOLERANCE_SECONDS,
  useHardening,
} from '../../support/hardening';
import { CapturingLogger } from '../../support/pipeline';

const h = useHardening();

type Case = { name: string; event: () => APIGatewayProxyEvent };

const decoded = (event: APIGatewayProxyEvent) => Buffer.from(event.body!, 'base64').toString('utf8');

/** Flips the last bit of a base64 MAC's first byte, keeping its length and alphabet. */
const flipFirstByte = (b64: string) => {
  const mac = Buffer.from(b64, 'base64');
  mac[0] = (mac[0] as number) ^ 0x01;
  return mac.toString('base64');
};

describe('the leak check itself', () => {
  // Each leak is planted in a log line the way a careless log call would write it.
  it.each<{ name: string; leak: (event: APIGatewayProxyEvent) => string; found: string }>([
    { name: 'the secret', leak: () => SECRETS.sw, found: 'secret' },
    { name: 'the base64 key part of the secret', leak: () => SECRETS.sw.slice(6), found: 'secret key part' },
    {
      name: 'the key bytes as hex',
      leak: () => Buffer.from(SECRETS.sw.slice(6), 'base64').toString('hex'),
      found: 'secret key bytes (hex)',
    },
    {
      name: 'the signature header value',
      leak: (event) => event.headers['webhook-signature']!,
      found: 'webhook-signature header',
    },
    {
      name: 'the MAC alone',
      leak: (event) => event.headers['webhook-signature']!.slice(3),
      found: 'webhook-signature part',
    },
    { name: 'the body, quotes and all', leak: (event) => decoded(event), found: 'body' },
    { name: 'the body as base64', leak: (event) => event.body!, found: 'body (base64)' },
    {
      name: 'a slice of the body holding its canary',
      leak: (event) => decoded(event).slice(decoded(event).indexOf('body-canary'), -2),
      found: 'body canary',
    },
  ])('finds $name in a log line', ({ leak, found }) => {
    const event = h.sw({ body: jsonBody({ quote: 'he said "hi"\n' }) });
    const logger = new CapturingLogger();
    logger.info('delivery rejected', { reason: 'bad_signature', detail: leak(event) });
    expect(findLeaks(JSON.stringify(logger.lines), needlesFor(event, [SECRETS.sw]))).toContain(found);
  });
});

describe('request shape (before any signature work)', () => {
  it.each(['GET', 'PUT', 'DELETE', 'PATCH', 'HEAD', 'OPTIONS'])(
    'answers a signed %s 405 with Allow: POST',
    async (method) => {
      const sent = await h.send(h.sw({ method }));
      expect(sent.response.headers.allow).toBe('POST');
      await h.expectRejected(sent, { status: 405, reason: 'method_not_allowed' });
    },
  );

  // Names every plain object inherits: the provider table must not resolve them.
  it.each(['gitlab', 'constructor', '__proto__', 'toString', 'hasOwnProperty'])(
    'answers the unknown provider %s 404',
    async (provider) => {
      await h.expectRejected(await h.send(h.sw({ provider })), { status: 404, reason: 'unknown_provider' });
    },
  );

  it('answers a signed body one byte over maxBodyBytes 413 (standard-webhooks)', async () => {
    const sent = await h.send(h.sw({ body: bodyOfSize(MAX_BODY_BYTES + 1) }));
    await h.expectRejected(sent, { status: 413, reason: 'body_too_large' });
  });

  it('answers a signed body far over maxBodyBytes 413 (github)', async () => {
    const sent = await h.send(h.github({ body: bodyOfSize(4 * MAX_BODY_BYTES) }));
    await h.expectRejected(sent, { status: 413, reason: 'body_too_large' });
  });

  it.each<{ name: string; contentType: string | string[] | undefined }>([
    { name: 'text/plain', contentType: 'text/plain' },
    { name: 'a form encoding', contentType: 'application/x-www-form-urlencoded' },
    { name: 'a look-alike media type', contentType: 'application/jsonx' },
    { name: 'a missing content type', contentType: undefined },
    { name: 'an empty content type', contentType: '' },
    { name: 'a repeated content type', contentType: ['application/json', 'text/plain'] },
  ])('answers $name 415', async ({ contentType }) => {
    const sent = await h.send(h.sw({ headers: { 'Content-Type': contentType } }));
    await h.expectRejected(sent, { status: 415, reason: 'unsupported_media_type' });
  });
});

describe('authentic but unusable (400)', () => {
  it.each<Case>([
    { name: 'an empty body (standard-webhooks)', event: () => h.sw({ body: '' }) },
    { name: 'plain text (standard-webhooks)', event: () => h.sw({ body: 'not json at all, really' }) },
    { name: 'truncated JSON (standard-webhooks)', event: () => h.sw({ body: '{"type":"invoice.paid"' }) },
    { name: 'an empty body (github)', event: () => h.github({ body: '' }) },
    { name: 'plain text (github)', event: () => h.github({ body: 'not json at all, really' }) },
    { name: 'plain text (stripe)', event: () => h.stripe({ body: 'not json at all, really' }) },
    {
      // JSON must be UTF-8: with U+FFFD substituted this would parse, but the bytes are not JSON text.
      name: 'JSON with invalid UTF-8 in a string (standard-webhooks)',
      event: () =>
        h.sw({
          body: Buffer.concat([
            Buffer.from('{"type":"a","x":"'),
            Buffer.from([0xff, 0xfe]),
            Buffer.from('"}'),
          ]),
        }),
    },
  ])('answers correctly signed non-JSON, $name, 400 not_json', async ({ event }) => {
    await h.expectRejected(await h.send(event()), { status: 400, reason: 'not_json' });
  });

  it.each([
    { name: 'no id', body: () => jsonBody() },
    { name: 'a numeric id', body: () => jsonBody({ id: 42 }) },
    { name: 'an id with a dot', body: () => jsonBody({ id: 'evt.1' }) },
    { name: 'a JSON array body', body: () => Buffer.from('[{"id":"evt_1"}]') },
  ])('answers a correctly signed Stripe event with $name 400 missing_event_id', async ({ body }) => {
    const sent = await h.send(h.stripe({ body: body() }));
    await h.expectRejected(sent, { status: 400, reason: 'missing_event_id' });
  });
});

describe('missing headers (401)', () => {
  it.each<Case>([
    { name: 'no webhook-signature', event: () => h.sw({ headers: { 'webhook-signature': undefined } }) },
    { name: 'no webhook-id', event: () => h.sw({ headers: { 'webhook-id': undefined } }) },
    { name: 'no webhook-timestamp', event: () => h.sw({ headers: { 'webhook-timestamp': undefined } }) },
    { name: 'an empty webhook-signature', event: () => h.sw({ headers: { 'webhook-signature': '' } }) },
    { name: 'an empty webhook-id', event: () => h.sw({ id: '' }) },
    { name: 'an empty webhook-timestamp', event: () => h.sw({ timestamp: '' }) },
    {
      name: 'no X-Hub-Signature-256 (github)',
      event: () => h.github({ headers: { 'X-Hub-Signature-256': undefined } }),
    },
    {
      name: 'no Stripe-Signature (stripe)',
      event: () => h.stripe({ headers: { 'Stripe-Signature': undefined } }),
    },
  ])('answers a request with $name 401 missing_header', async ({ event }) => {
    await h.expectRejected(await h.send(event()), { status: 401, reason: 'missing_header' });
  });
});

describe('timestamps, each signed over exactly the text sent (401)', () => {
  // Lenient parsers read several of these as "now", so only strict parsing can reject them.
  it.each<{ name: string; timestamp: () => string }>([
    { name: 'a word (hello)', timestamp: () => 'hello' },
    { name: 'digits with a suffix (now + "abc")', timestamp: () => `${h.now()}abc` },
    { name: 'exponent notation equal to now', timestamp: () => `${h.now() / 1e9}e9` },
    { name: 'a negative number', timestamp: () => `-${h.now()}` },
    { name: 'milliseconds (13 digits)', timestamp: () => String(h.clock.now()) },
    { name: 'a leading space', timestamp: () => ` ${h.now()}` },
    { name: 'a plus sign', timestamp: () => `+${h.now()}` },
    { name: 'a decimal point', timestamp: () => `${h.now()}.0` },
    { name: 'hexadecimal', timestamp: () => `0x${h.now().toString(16)}` },
    { name: 'leading zeros past 10 digits', timestamp: () => `0${h.now()}` },
    {
      name: 'non-ASCII digits (Arabic-Indic)',
      timestamp: () => String(h.now()).replace(/\d/g, (d) => String.fromCharCode(0x660 + Number(d))),
    },
  ])('rejects $name as malformed_timestamp', async ({ timestamp }) => {
    const sent = await h.send(h.sw({ timestamp: timestamp() }));
    await h.expectRejected(sent, { status: 401, reason: 'malformed_timestamp' });
  });

  it('proves the exponent row would read as now to a lenient parser', () => {
    expect(Number(`${h.now() / 1e9}e9`)).toBe(h.now());
  });

  it('rejects a stale timestamp (tolerance + 1 s old) as stale_timestamp', async () => {
    const sent = await h.send(h.sw({ timestamp: h.now() - TOLERANCE_SECONDS - 1 }));
    await h.expectRejected(sent, { status: 401, reason: 'stale_timestamp' });
  });

  it('rejects a future timestamp (tolerance + 1 s ahead) as future_timestamp', async () => {
    const sent = await h.send(h.sw({ timestamp: h.now() + TOLERANCE_SECONDS + 1 }));
    await h.expectRejected(sent, { status: 401, reason: 'future_timestamp' });
  });

  it.each<{ name: string; timestamp: () => string; reason: 'malformed_timestamp' | 'stale_timestamp' }>([
    { name: 'a word', timestamp: () => 'hello', reason: 'malformed_timestamp' },
    { name: 'milliseconds', timestamp: () => String(h.clock.now()), reason: 'malformed_timestamp' },
    {
      name: 'a stale value',
      timestamp: () => String(h.now() - TOLERANCE_SECONDS - 1),
      reason: 'stale_timestamp',
    },
  ])('rejects a Stripe t= holding $name as $reason', async ({ timestamp, reason }) => {
    await h.expectRejected(await h.send(h.stripe({ timestamp: timestamp() })), { status: 401, reason });
  });

  it('rejects a future Stripe t= as future_timestamp', async () => {
    const sent = await h.send(h.stripe({ timestamp: h.now() + TOLERANCE_SECONDS + 1 }));
    await h.expectRejected(sent, { status: 401, reason: 'future_timestamp' });
  });

  it('rejects a Stripe header with two t= values as malformed_timestamp', async () => {
    const sent = await h.send(h.stripe({ signature: (t, mac) => `t=${t},t=${h.now() - 5},v1=${mac}` }));
    await h.expectRejected(sent, { status: 401, reason: 'malformed_timestamp' });
  });
});

describe('signature header shape (401)', () => {
  it.each<{
    name: string;
    signature: (mac: string) => string;
    reason: 'malformed_signature' | 'no_supported_signature';
  }>([
    // Unparseable.
    {
      name: 'trailing garbage after the MAC',
      signature: (mac) => `v1,${mac},x`,
      reason: 'malformed_signature',
    },
    {
      name: 'characters outside base64',
      signature: (mac) => `v1,${mac.slice(0, -2)}!?`,
      reason: 'malformed_signature',
    },
    { name: 'Stripe-style v1= framing', signature: (mac) => `v1=${mac}`, reason: 'no_supported_signature' },
    // Truncated.
    { name: 'a bare v1,', signature: () => 'v1,', reason: 'malformed_signature' },
    { name: 'the text foo', signature: () => 'foo', reason: 'no_supported_signature' },
    {
      name: 'a MAC cut by 4 characters',
      signature: (mac) => `v1,${mac.slice(0, -4)}`,
      reason: 'malformed_signature',
    },
    {
      name: 'a MAC without its padding',
      signature: (mac) => `v1,${mac.replace(/=+$/, '')}`,
      reason: 'malformed_signature',
    },
    // Odd length and non-ASCII.
    {
      name: 'an odd-length MAC (one character short)',
      signature: (mac) => `v1,${mac.slice(0, -1)}`,
      reason: 'malformed_signature',
    },
    { name: 'an over-long MAC', signature: (mac) => `v1,${mac}AAAA`, reason: 'malformed_signature' },
    {
      name: 'a non-ASCII character in the MAC',
      signature: (mac) => `v1,${mac.slice(0, -2)}é=`,
      reason: 'malformed_signature',
    },
    // Only versions we do not check, each carrying the valid MAC.
    { name: 'only v0', signature: (mac) => `v0,${mac}`, reason: 'no_supported_signature' },
    { name: 'only v2', signature: (mac) => `v2,${mac}`, reason: 'no_supported_signature' },
    { name: 'only v1a (asymmetric)', signature: (mac) => `v1a,${mac}`, reason: 'no_supported_signature' },
    { name: 'only an upper-case V1', signature: (mac) => `V1,${mac}`, reason: 'no_supported_signature' },
    {
      name: 'v0, v2 and v1a together',
      signature: (mac) => `v0,${mac} v2,${mac} v1a,${mac}`,
      reason: 'no_supported_signature',
    },
  ])('rejects a webhook-signature with $name as $reason', async ({ signature, reason }) => {
    await h.expectRejected(await h.send(h.sw({ signature })), { status: 401, reason });
  });

  it.each<{ name: string; signature: (mac: string) => string; reason: 'malformed_signature' }>([
    {
      name: 'an odd-length hex MAC',
      signature: (mac) => `sha256=${mac.slice(0, -1)}`,
      reason: 'malformed_signature',
    },
    {
      name: 'a non-ASCII character in the hex MAC',
      signature: (mac) => `sha256=${mac.slice(0, -1)}é`,
      reason: 'malformed_signature',
    },
    { name: 'a sha1= prefix', signature: (mac) => `sha1=${mac.slice(0, 40)}`, reason: 'malformed_signature' },
    {
      name: 'a truncated hex MAC',
      signature: (mac) => `sha256=${mac.slice(0, 32)}`,
      reason: 'malformed_signature',
    },
  ])('rejects an X-Hub-Signature-256 with $name as $reason', async ({ signature, reason }) => {
    await h.expectRejected(await h.send(h.github({ signature })), { status: 401, reason });
  });

  it.each<{
    name: string;
    signature: (t: string, mac: string) => string;
    reason: 'malformed_signature' | 'no_supported_signature';
  }>([
    { name: 'no t=', signature: (_t, mac) => `v1=${mac}`, reason: 'malformed_signature' },
    { name: 'no v1=', signature: (t) => `t=${t}`, reason: 'no_supported_signature' },
    { name: 'only v0=', signature: (t, mac) => `t=${t},v0=${mac}`, reason: 'no_supported_signature' },
    {
      name: 'an odd-length v1=',
      signature: (t, mac) => `t=${t},v1=${mac.slice(0, -1)}`,
      reason: 'malformed_signature',
    },
  ])('rejects a Stripe-Signature with $name as $reason', async ({ signature, reason }) => {
    await h.expectRejected(await h.send(h.stripe({ signature })), { status: 401, reason });
  });
});

describe('repeated headers (401 repeated_header)', () => {
  it.each<Case>([
    {
      name: 'two webhook-signature values, both valid',
      event: () => h.sw({ signature: (mac) => [`v1,${mac}`, `v1,${mac}`] }),
    },
    {
      name: 'two webhook-signature values, one valid',
      event: () => h.sw({ signature: (mac) => [`v1,${randomBytes(32).toString('base64')}`, `v1,${mac}`] }),
    },
    {
      name: 'webhook-signature and Webhook-Signature (names differing in case)',
      event: () => {
        // The same body both times, so the second spelling carries a signature valid for what is sent.
        const body = jsonBody();
        const valid = h.sw({ body }).headers['webhook-signature']!;
        return h.sw({ body, headers: { 'Webhook-Signature': valid } });
      },
    },
    {
      name: 'two spellings in the single-value map only (no multiValueHeaders)',
      event: () => {
        const event = h.sw();
        const valid = event.headers['webhook-signature']!;
        const headers = { ...event.headers, 'WEBHOOK-SIGNATURE': valid };
        return { ...event, headers, multiValueHeaders: null } as unknown as APIGatewayProxyEvent;
      },
    },
    {
      name: 'two webhook-id values',
      event: () => h.sw({ headers: { 'webhook-id': ['msg_hardening_1', 'msg_other'] } }),
    },
    {
      name: 'two webhook-timestamp values',
      event: () => h.sw({ headers: { 'webhook-timestamp': [String(h.now()), String(h.now())] } }),
    },
    {
      name: 'two X-Hub-Signature-256 values (github)',
      event: () => h.github({ signature: (mac) => [`sha256=${mac}`, `sha256=${mac}`] }),
    },
    {
      name: 'two X-GitHub-Delivery values (github)',
      event: () => h.github({ headers: { 'X-GitHub-Delivery': ['d-1', 'd-2'] } }),
    },
    {
      name: 'two Stripe-Signature values (stripe)',
      event: () => h.stripe({ signature: (t, mac) => [`t=${t},v1=${mac}`, `t=${t},v1=${mac}`] }),
    },
  ])('rejects $name', async ({ event }) => {
    await h.expectRejected(await h.send(event()), { status: 401, reason: 'repeated_header' });
  });
});

describe('delivery ids, each signed correctly with that id (401 malformed_id)', () => {
  it.each([
    { name: 'a dot', id: 'msg.1' },
    { name: 'a control character (U+0001)', id: 'msg\u00011' },
    { name: 'a newline', id: 'msg\n1' },
    { name: 'a tab', id: 'msg\t1' },
    { name: 'DEL (U+007F)', id: 'msg\u007f1' },
    { name: 'a space', id: 'msg 1' },
    { name: 'a non-ASCII letter', id: 'msg_é' },
    { name: '256 characters', id: 'm'.repeat(256) },
  ])('rejects an id with $name', async ({ id }) => {
    await h.expectRejected(await h.send(h.sw({ id })), { status: 401, reason: 'malformed_id' });
  });

  it('rejects a GitHub delivery id with a control character (unsigned, still parsed strictly)', async () => {
    const sent = await h.send(h.github({ headers: { 'X-GitHub-Delivery': 'd\u00011' } }));
    await h.expectRejected(sent, { status: 401, reason: 'malformed_id' });
  });
});

describe('forgeries (401 bad_signature)', () => {
  it.each<Case>([
    {
      name: 'a random MAC of the right length',
      event: () => h.sw({ signature: () => `v1,${randomBytes(32).toString('base64')}` }),
    },
    {
      name: 'the valid MAC with one bit flipped',
      event: () => h.sw({ signature: (mac) => `v1,${flipFirstByte(mac)}` }),
    },
    { name: 'the wrong secret (standard-webhooks)', event: () => h.sw({ secret: SECRETS.swWrong }) },
    { name: 'the wrong secret (github)', event: () => h.github({ secret: SECRETS.githubWrong }) },
    { name: 'the wrong secret (stripe)', event: () => h.stripe({ secret: SECRETS.stripeWrong }) },
    {
      name: 'a GitHub MAC of the right length',
      event: () => h.github({ signature: () => `sha256=${randomBytes(32).toString('hex')}` }),
    },
  ])('rejects $name', async ({ event }) => {
    await h.expectRejected(await h.send(event()), { status: 401, reason: 'bad_signature' });
  });
});

describe('tampering with a signed delivery (401 bad_signature, then the original is accepted)', () => {
  const spaced = () =>
    Buffer.from(
      '{ "type": "invoice.paid", "data": { "n": 1 }, "note": "body-canary-0d8f2c4e-51e6-4c0e-a43b-7cfbdb0a3e11" }',
    );

  /** Same headers, other bytes: the signature was made over `original`. */
  const withBody = (event: APIGatewayProxyEvent, body: Buffer): APIGatewayProxyEvent => ({
    ...event,
    body: body.toString('base64'),
    isBase64Encoded: true,
  });

  const rejectThenAccept = async (forged: APIGatewayProxyEvent, original: APIGatewayProxyEvent) => {
    await h.expectRejected(await h.send(forged), { status: 401, reason: 'bad_signature' });
    // The control: what was changed, not something else, made it fail.
    await h.expectAccepted(await h.send(original));
  };

  it('rejects a body re-serialized with different spacing (JSON.parse then JSON.stringify)', async () => {
    const original = h.sw({ body: spaced() });
    const reserialized = Buffer.from(JSON.stringify(JSON.parse(spaced().toString())));
    expect(reserialized.equals(spaced())).toBe(false);
    await rejectThenAccept(withBody(original, reserialized), original);
  });

  it('rejects a body with whitespace added (a trailing newline)', async () => {
    const original = h.sw({ body: spaced() });
    await rejectThenAccept(withBody(original, Buffer.concat([spaced(), Buffer.from('\n')])), original);
  });

  it('rejects a body with one byte flipped', async () => {
    const original = h.sw({ body: spaced() });
    const flipped = spaced();
    const at = flipped.indexOf('1');
    flipped[at] = '2'.charCodeAt(0);
    await rejectThenAccept(withBody(original, flipped), original);
  });

  it('rejects a GitHub body with one byte flipped', async () => {
    const original = h.github({ body: spaced() });
    const flipped = spaced();
    flipped[flipped.indexOf('1')] = '2'.charCodeAt(0);
    await rejectThenAccept(withBody(original, flipped), original);
  });

  it('rejects an id swapped in from another signed delivery', async () => {
    const original = h.sw({ id: 'msg_a' });
    const other = h.sw({ id: 'msg_b' });
    const swapped = withHeader(original, 'webhook-id', other.headers['webhook-id']!);
    await rejectThenAccept(swapped, original);
  });

  it('rejects a timestamp swapped in from another signed delivery', async () => {
    const original = h.sw({ timestamp: h.now() });
    const other = h.sw({ timestamp: h.now() - 10 });
    const swapped = withHeader(original, 'webhook-timestamp', other.headers['webhook-timestamp']!);
    await rejectThenAccept(swapped, original);
  });

  it('rejects a Stripe t= swapped in from another signed delivery', async () => {
    const original = h.stripe({ timestamp: h.now() });
    const [, mac] = original.headers['Stripe-Signature']!.split(',v1=');
    const swapped = withHeader(original, 'Stripe-Signature', `t=${h.now() - 10},v1=${mac}`);
    await rejectThenAccept(swapped, original);
  });
});

describe('unusable secrets fail closed (500 no_secret)', () => {
  it.each<{ name: string; provider: 'standard-webhooks' | 'github' | 'stripe'; secrets: string[] }>([
    { name: 'an empty secret', provider: 'standard-webhooks', secrets: [''] },
    { name: 'a whitespace secret', provider: 'standard-webhooks', secrets: ['   '] },
    { name: 'no secret at all', provider: 'standard-webhooks', secrets: [] },
    { name: 'a valid secret next to an empty one', provider: 'standard-webhooks', secrets: [SECRETS.sw, ''] },
    { name: 'a secret with a trailing newline', provider: 'standard-webhooks', secrets: [`${SECRETS.sw}\n`] },
    { name: 'a whsec_ prefix with no key', provider: 'standard-webhooks', secrets: ['whsec_'] },
    { name: 'an empty secret', provider: 'github', secrets: [''] },
    { name: 'a whitespace secret', provider: 'stripe', secrets: ['   '] },
  ])('answers $provider with $name 500', async ({ provider, secrets }) => {
    const event = provider === 'github' ? h.github() : provider === 'stripe' ? h.stripe() : h.sw();
    const sent = await h.send(event, { ...DEFAULT_SECRETS, [provider]: secrets });
    await h.expectRejected(sent, { status: 500, reason: 'no_secret' });
  });
});

function withHeader(event: APIGatewayProxyEvent, name: string, value: string): APIGatewayProxyEvent {
  return {
    ...event,
    headers: { ...event.headers, [name]: value },
    multiValueHeaders: { ...event.multiValueHeaders, [name]: [value] },
  };
}
