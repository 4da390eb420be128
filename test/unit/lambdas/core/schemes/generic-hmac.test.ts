import { createHmac, randomUUID } from 'node:crypto';
import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  DEFAULT_GENERIC_HMAC_OPTIONS,
  type GenericHmacOptions,
  genericHmacOptionsSchema,
} from '../../../../../config';
import { normalizeHeaders } from '../../../../../lambdas/core/headers';
import { compileOptions, genericHmac } from '../../../../../lambdas/core/schemes/generic-hmac';
import { sha256Hex } from '../../../../../lambdas/core/schemes/primitives';
import { parseTemplate } from '../../../../../lambdas/core/schemes/template';
import type { VerifyContext } from '../../../../../lambdas/core/schemes/types';
import { CONTEXT, describeSchemeContract, NOW } from '../../../../support/scheme-contract';

const options = (input: unknown): GenericHmacOptions => genericHmacOptionsSchema.parse(input);

const V1_PARTNER = options(DEFAULT_GENERIC_HMAC_OPTIONS);
const SHA512_BASE64 = options({
  signatureHeader: 'X-Partner-Signature',
  encoding: 'base64',
  algorithm: 'sha512',
  template: '{id}.{timestamp}.{body}',
  timestampHeader: 'X-Partner-Timestamp',
  idHeader: 'X-Partner-Delivery',
  eventTypeHeader: 'X-Partner-Event',
});

describeSchemeContract({
  scheme: genericHmac,
  options: V1_PARTNER,
  signatureHeader: 'X-Webhook-Signature',
  withSignature: (_value, signature) => `v1=${signature}`,
  encoding: 'hex',
  timestampHeader: 'X-Webhook-Timestamp',
  unknownVersionsOnly: (value) => `v2=${value.slice(3)}`,
});

describeSchemeContract({
  scheme: genericHmac,
  options: SHA512_BASE64,
  signatureHeader: 'X-Partner-Signature',
  withSignature: (_value, signature) => signature,
  encoding: 'base64',
  signatureBytes: 64,
  timestampHeader: 'X-Partner-Timestamp',
  idHeader: 'X-Partner-Delivery',
});

const SECRET = 'whsec_your_webhook_secret_key_here';
const context = (opts: unknown): VerifyContext => ({ ...CONTEXT, options: opts as GenericHmacOptions });

// A common partner sender (the default generic-hmac format): `v1=` + hex HMAC-SHA256 of
// `{timestamp}.{JSON body}`, with an X-Webhook-ID that is sent but not signed.
function v1PartnerSend(payload: unknown, secret: string, timestamp: number) {
  const body = JSON.stringify(payload);
  const signature = createHmac('sha256', secret).update(`${timestamp}.${body}`).digest('hex');
  return {
    body: Buffer.from(body),
    headers: normalizeHeaders({
      'Content-Type': 'application/json',
      'X-Webhook-Signature': `v1=${signature}`,
      'X-Webhook-Timestamp': String(timestamp),
      'X-Webhook-ID': randomUUID(),
    }),
  };
}

const order = {
  id: 'evt_1a2b3c4d5e',
  type: 'order.created',
  data: { object: { id: 'ord_98765', amount: 9900 } },
};

describe('generic-hmac with the default options', () => {
  it('verifies what a v1 partner signs, keyed by the body hash since its id is unsigned', () => {
    const request = v1PartnerSend(order, SECRET, NOW);
    const outcome = genericHmac.verify(request, [SECRET], context(V1_PARTNER));
    if (!outcome.ok) throw new Error(outcome.reason);
    expect(outcome.delivery.dedupKey).toBe(sha256Hex(request.body));
    expect(outcome.delivery.deliveryId).toBeUndefined();
    expect(outcome.delivery.eventType).toBe('order.created');
    expect(outcome.delivery.timestamp).toBe(NOW);
  });

  it('signs what a v1 partner signs', () => {
    const request = v1PartnerSend(order, SECRET, NOW);
    const ours = genericHmac.sign({
      body: request.body,
      secret: SECRET,
      timestamp: NOW,
      id: '',
      options: V1_PARTNER,
    });
    expect(ours['X-Webhook-Signature']).toBe(request.headers['x-webhook-signature']);
    expect(ours['X-Webhook-Timestamp']).toBe(String(NOW));
  });

  it('verifies with the input options too, once config has filled in their defaults', () => {
    const request = v1PartnerSend(order, SECRET, NOW);
    expect(genericHmac.verify(request, [SECRET], context(DEFAULT_GENERIC_HMAC_OPTIONS)).ok).toBe(true);
  });
});

describe('generic-hmac with base64, sha512 and {id}.{timestamp}.{body}', () => {
  const send = (body: string, id: string, timestamp = NOW) => {
    const signature = createHmac('sha512', SECRET).update(`${id}.${timestamp}.${body}`).digest('base64');
    return {
      body: Buffer.from(body),
      headers: normalizeHeaders({
        'X-Partner-Signature': signature,
        'X-Partner-Timestamp': String(timestamp),
        'X-Partner-Delivery': id,
        'X-Partner-Event': 'invoice.paid',
      }),
    };
  };

  it('verifies an independently computed signature and keys by the signed id', () => {
    const outcome = genericHmac.verify(send('{"n":1}', 'dlv_77'), [SECRET], context(SHA512_BASE64));
    if (!outcome.ok) throw new Error(outcome.reason);
    expect(outcome.delivery.dedupKey).toBe('dlv_77');
    expect(outcome.delivery.deliveryId).toBe('dlv_77');
    expect(outcome.delivery.eventType).toBe('invoice.paid');
  });

  it('rejects a sha256 MAC where sha512 is configured', () => {
    const request = send('{"n":1}', 'dlv_77');
    const sha256 = createHmac('sha256', SECRET).update(`dlv_77.${NOW}.{"n":1}`).digest('base64');
    const outcome = genericHmac.verify(
      { ...request, headers: { ...request.headers, 'x-partner-signature': sha256 } },
      [SECRET],
      context(SHA512_BASE64),
    );
    expect(outcome).toEqual({ ok: false, reason: 'malformed_signature' });
  });
});

describe('generic-hmac templates and options', () => {
  afterEach(() => vi.restoreAllMocks());

  it('parses a template into literal text and placeholders, other braces staying literal', () => {
    expect(parseTemplate('{id}.{timestamp}.{body}')).toEqual([
      { field: 'id' },
      '.',
      { field: 'timestamp' },
      '.',
      { field: 'body' },
    ]);
    expect(parseTemplate('v0:{timestamp}:{body}{x}')).toEqual([
      'v0:',
      { field: 'timestamp' },
      ':',
      { field: 'body' },
      '{x}',
    ]);
  });

  it('parses the template once per options object', () => {
    const opts = options({ signatureHeader: 'X-Sig', template: 'a.{body}' });
    expect(compileOptions(opts)).toBe(compileOptions(opts));
    expect(compileOptions({ ...opts })).not.toBe(compileOptions(opts));
  });

  it('streams the body into the HMAC instead of concatenating it with the template', () => {
    const request = v1PartnerSend(order, SECRET, NOW);
    const concat = vi.spyOn(Buffer, 'concat');
    const decode = vi.spyOn(request.body, 'toString');
    expect(genericHmac.verify(request, [SECRET], context(V1_PARTNER)).ok).toBe(true);
    expect(concat).not.toHaveBeenCalled();
    expect(decode).not.toHaveBeenCalled();
  });

  it('signs literal text in the template byte for byte, braces included', () => {
    const opts = options({ signatureHeader: 'X-Sig', template: 'pre{x}:{body}:post', algorithm: 'sha1' });
    const body = Buffer.from('{"a":1}');
    const headers = normalizeHeaders(
      genericHmac.sign({ body, secret: SECRET, timestamp: NOW, id: '', options: opts }),
    );
    const expected = createHmac('sha1', SECRET).update('pre{x}:{"a":1}:post').digest('hex');
    expect(headers['x-sig']).toBe(expected);
    expect(genericHmac.verify({ body, headers }, [SECRET], context(opts)).ok).toBe(true);
  });

  it('checks a configured timestamp header for freshness even when the template does not sign it', () => {
    const opts = options({ signatureHeader: 'X-Sig', timestampHeader: 'X-Ts' });
    const body = Buffer.from('{}');
    const sign = (timestamp: number) =>
      normalizeHeaders(genericHmac.sign({ body, secret: SECRET, timestamp, id: '', options: opts }));
    const fresh = genericHmac.verify({ body, headers: sign(NOW) }, [SECRET], context(opts));
    expect(fresh.ok && fresh.delivery.timestamp).toBeUndefined();
    expect(genericHmac.verify({ body, headers: sign(NOW - 301) }, [SECRET], context(opts))).toEqual({
      ok: false,
      reason: 'stale_timestamp',
    });
    expect(
      genericHmac.verify({ body, headers: { 'x-sig': sign(NOW)['x-sig'] } }, [SECRET], context(opts)),
    ).toEqual({
      ok: false,
      reason: 'missing_header',
    });
  });

  it('keeps an id header the template does not sign as metadata, with the body hash as dedup key', () => {
    const opts = options({ signatureHeader: 'X-Sig', idHeader: 'X-Id', eventTypeField: 'kind' });
    const body = Buffer.from('{"kind":"thing.done"}');
    const headers = normalizeHeaders(
      genericHmac.sign({ body, secret: SECRET, timestamp: NOW, id: 'd1', options: opts }),
    );
    const outcome = genericHmac.verify({ body, headers }, [SECRET], context(opts));
    if (!outcome.ok) throw new Error(outcome.reason);
    expect(outcome.delivery.deliveryId).toBe('d1');
    expect(outcome.delivery.dedupKey).toBe(sha256Hex(body));
    expect(outcome.delivery.eventType).toBe('thing.done');
  });

  it('prefers the event type header over the body field', () => {
    const opts = options({ signatureHeader: 'X-Sig', eventTypeHeader: 'X-Event', eventTypeField: 'type' });
    const body = Buffer.from('{"type":"from.body"}');
    const signedHeaders = genericHmac.sign({
      body,
      secret: SECRET,
      timestamp: NOW,
      id: '',
      eventType: 'from.header',
      options: opts,
    });
    const withHeader = genericHmac.verify(
      { body, headers: normalizeHeaders(signedHeaders) },
      [SECRET],
      context(opts),
    );
    expect(withHeader.ok && withHeader.delivery.eventType).toBe('from.header');
    const { 'X-Event': _dropped, ...rest } = signedHeaders;
    const withoutHeader = genericHmac.verify(
      { body, headers: normalizeHeaders(rest) },
      [SECRET],
      context(opts),
    );
    expect(withoutHeader.ok && withoutHeader.delivery.eventType).toBe('from.body');
  });

  it.each([
    ['no options', undefined],
    ["Square's options", { notificationUrl: 'https://example.com/hook' }],
    [
      'a {timestamp} template without a timestamp header',
      { signatureHeader: 'X-Sig', template: '{timestamp}.{body}' },
    ],
    ['an {id} template without an id header', { signatureHeader: 'X-Sig', template: '{id}.{body}' }],
    [
      'a template without {body}',
      { signatureHeader: 'X-Sig', template: '{timestamp}', timestampHeader: 'X-Ts' },
    ],
    [
      'a template whose {id} and {body} are side by side',
      { signatureHeader: 'X-Sig', template: '{id}{body}', idHeader: 'X-Id' },
    ],
    ['an unknown algorithm', { signatureHeader: 'X-Sig', algorithm: 'md5' }],
    ['an unknown encoding', { signatureHeader: 'X-Sig', encoding: 'base32' }],
    ['a header name that is not text', { signatureHeader: 'X-Sig', timestampHeader: 42, eventTypeHeader: 7 }],
    ['not an object', 'X-Sig'],
  ])('fails closed, without throwing, with %s', (_name, opts) => {
    const request = v1PartnerSend(order, SECRET, NOW);
    expect(genericHmac.verify(request, [SECRET], context(opts))).toEqual({
      ok: false,
      reason: 'bad_scheme_options',
    });
  });

  it('refuses to sign without usable options', () => {
    expect(() =>
      genericHmac.sign({ body: Buffer.from('{}'), secret: SECRET, timestamp: NOW, id: '' }),
    ).toThrow(TypeError);
  });
});
