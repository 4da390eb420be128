import { WebhooksHelper } from 'square';
import { describe, expect, it } from 'vitest';
import { normalizeHeaders } from '../../../../../lambdas/core/headers';
import { statusForReason } from '../../../../../lambdas/core/reasons';
import { square } from '../../../../../lambdas/core/schemes/square';
import { CONTEXT, describeSchemeContract, withJsonField } from '../../../../support/scheme-contract';

const URL = 'https://inbox.example.com/webhooks/square';
const eventId = (body: Buffer, _timestamp: number, id: string) => withJsonField(body, 'event_id', id);

describeSchemeContract({
  scheme: square,
  signatureHeader: 'x-square-hmacsha256-signature',
  withSignature: (_value, signature) => signature,
  encoding: 'base64',
  url: URL,
  withSignedFields: eventId,
});

describeSchemeContract({
  scheme: square,
  options: { notificationUrl: URL },
  signatureHeader: 'x-square-hmacsha256-signature',
  withSignature: (_value, signature) => signature,
  encoding: 'base64',
  withSignedFields: eventId,
});

// The vector every official Square SDK tests its WebhooksHelper with, verbatim.
const VECTOR = {
  body: '{"merchant_id":"MLEFBHHSJGVHD","type":"webhooks.test_notification","event_id":"ac3ac95b-f97d-458c-a6e6-18981597e05f","created_at":"2022-07-13T20:30:59.037339943Z","data":{"type":"webhooks","id":"bc368e64-01aa-407e-b46e-3231809b1129"}}',
  signature: 'GF4YkrJgGBDZ9NIYbNXBnMzqb2HoL4RW/S6vkZ9/2N4=',
  key: 'Ibxx_5AKakO-3qeNVR61Dw',
  url: 'https://webhook.site/679a4f3a-dcfa-49ee-bac5-9d0edad886b9',
};
// The same suites' "escaped" vector: authentic, but without an event_id.
const ESCAPED = {
  body: '{"data":{"type":"webhooks","id":">id<"}}',
  signature: 'Cxt7+aTi4rKgcA0bC4g9EHdVtLSDWdqccmL5MvihU4U=',
  key: 'signature-key',
  url: 'https://webhook.site/webhooks',
};

const verify = (
  vector: { body: string; signature: string; key: string },
  url: string | undefined,
  options?: { notificationUrl?: string },
) =>
  square.verify(
    {
      body: Buffer.from(vector.body),
      headers: normalizeHeaders({ 'x-square-hmacsha256-signature': vector.signature }),
      url,
    },
    [vector.key],
    { ...CONTEXT, options },
  );

describe('square', () => {
  it("verifies the Square SDKs' test vector, with the URL the request arrived at", () => {
    const outcome = verify(VECTOR, VECTOR.url);
    if (!outcome.ok) throw new Error(outcome.reason);
    expect(outcome.delivery.dedupKey).toBe('ac3ac95b-f97d-458c-a6e6-18981597e05f');
    expect(outcome.delivery.eventType).toBe('webhooks.test_notification');
    expect(outcome.delivery.timestamp).toBeUndefined();
  });

  it("signs the Square SDKs' test vector byte for byte", () => {
    const headers = square.sign({
      body: Buffer.from(VECTOR.body),
      secret: VECTOR.key,
      timestamp: 0,
      id: '',
      url: VECTOR.url,
    });
    expect(headers['x-square-hmacsha256-signature']).toBe(VECTOR.signature);
  });

  it('prefers the configured notification URL over the one the request reports', () => {
    expect(verify(VECTOR, 'https://internal.example/proxy', { notificationUrl: VECTOR.url }).ok).toBe(true);
    expect(verify(VECTOR, VECTOR.url, { notificationUrl: 'https://other.example/hook' })).toEqual({
      ok: false,
      reason: 'bad_signature',
    });
  });

  it("rejects the vector at the SDKs' mismatched URL", () => {
    expect(verify(VECTOR, 'https://webhook.site/79a4f3a-dcfa-49ee-bac5-9d0edad886b9')).toEqual({
      ok: false,
      reason: 'bad_signature',
    });
  });

  it('answers missing_event_id for the authentic escaped vector', () => {
    expect(verify(ESCAPED, ESCAPED.url)).toEqual({ ok: false, reason: 'missing_event_id' });
  });

  it('answers not_json for an authentic body that is not JSON', () => {
    const body = Buffer.from('event_id=1');
    const headers = square.sign({ body, secret: VECTOR.key, timestamp: 0, id: '', url: URL });
    expect(
      square.verify({ body, headers: normalizeHeaders(headers), url: URL }, [VECTOR.key], CONTEXT),
    ).toEqual({ ok: false, reason: 'not_json' });
  });

  it.each([
    ['neither a configured nor a reported URL', undefined, undefined],
    ['an empty reported URL', '', undefined],
    ['an empty configured URL and none reported', undefined, { notificationUrl: '' }],
  ])('fails closed with a server error for %s', (_name, url, options) => {
    const outcome = verify(VECTOR, url, options);
    expect(outcome).toEqual({ ok: false, reason: 'no_notification_url' });
    if (!outcome.ok) expect(statusForReason(outcome.reason)).toBe(500);
  });

  it('refuses to sign without a notification URL', () => {
    expect(() => square.sign({ body: Buffer.from('{}'), secret: 'k', timestamp: 0, id: '' })).toThrow(
      TypeError,
    );
  });

  it('rejects the legacy HMAC-SHA1 header alone', () => {
    const outcome = square.verify(
      {
        body: Buffer.from(VECTOR.body),
        headers: normalizeHeaders({ 'x-square-signature': '1z2n3DEJJiUPKcPzQo1ftvbxGdw=' }),
        url: VECTOR.url,
      },
      [VECTOR.key],
      CONTEXT,
    );
    expect(outcome).toEqual({ ok: false, reason: 'missing_header' });
  });

  it('is accepted by the square SDK (WebhooksHelper.verifySignature), which agrees on the vector', async () => {
    // The SDK only verifies, so the other direction is its published vector above.
    const body = Buffer.from(
      '{"type":"payment.updated","event_id":"6a8f5f28-54a1-4eb0-a98a-3111513fd4fc","note":"Zoë 🚀"}',
    );
    const ours = square.sign({ body, secret: VECTOR.key, timestamp: 0, id: '', url: URL });
    const check = (requestBody: string, signatureHeader: string, notificationUrl = URL) =>
      WebhooksHelper.verifySignature({
        requestBody,
        signatureHeader,
        signatureKey: VECTOR.key,
        notificationUrl,
      });
    expect(await check(body.toString(), ours['x-square-hmacsha256-signature']!)).toBe(true);
    expect(await check(VECTOR.body, VECTOR.signature, VECTOR.url)).toBe(true);
    expect(await check(body.toString(), ours['x-square-hmacsha256-signature']!, `${URL}/`)).toBe(false);
  });
});
