import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { normalizeHeaders } from '../../../../../lambdas/core/headers';
import { sha256Hex } from '../../../../../lambdas/core/schemes/primitives';
import { shopify } from '../../../../../lambdas/core/schemes/shopify';
import { CONTEXT, describeSchemeContract } from '../../../../support/scheme-contract';

describeSchemeContract({
  scheme: shopify,
  signatureHeader: 'X-Shopify-Hmac-Sha256',
  withSignature: (_value, signature) => signature,
  encoding: 'base64',
});

const SECRET = 'shpss_0123456789abcdef0123456789abcdef';
const BODY = '{"id":820982911946154508,"email":"jon@example.com","total_price":"199.00","note":"Zoë 🚀"}';
// Computed here with node:crypto, independently of the scheme: Shopify publishes no test vector.
const independent = (body: string | Buffer, secret = SECRET) =>
  createHmac('sha256', secret).update(body).digest('base64');

const verify = (headers: Record<string, string | string[]>, body: string | Buffer = BODY) =>
  shopify.verify(
    { body: Buffer.isBuffer(body) ? body : Buffer.from(body), headers: normalizeHeaders(headers) },
    [SECRET],
    CONTEXT,
  );

describe('shopify', () => {
  it('verifies a base64 HMAC-SHA256 of the raw body computed independently', () => {
    const outcome = verify({
      'X-Shopify-Hmac-Sha256': independent(BODY),
      'X-Shopify-Topic': 'orders/create',
      'X-Shopify-Webhook-Id': 'b54557e4-bdd9-4b37-8a5f-bf7d70bcd043',
      'X-Shopify-Event-Id': '98880550-7158-44d4-b7cd-2c97c8a091b5',
    });
    if (!outcome.ok) throw new Error(outcome.reason);
    expect(outcome.delivery.dedupKey).toBe(sha256Hex(Buffer.from(BODY)));
    expect(outcome.delivery.deliveryId).toBe('b54557e4-bdd9-4b37-8a5f-bf7d70bcd043');
    expect(outcome.delivery.eventType).toBe('orders/create');
    expect(outcome.delivery.timestamp).toBeUndefined();
  });

  it('signs what the independent computation produces', () => {
    const headers = shopify.sign({ body: Buffer.from(BODY), secret: SECRET, timestamp: 0, id: 'w-1' });
    expect(headers['X-Shopify-Hmac-Sha256']).toBe(independent(BODY));
    expect(headers['X-Shopify-Webhook-Id']).toBe('w-1');
  });

  it('uses the body hash as dedup key: the webhook id is unsigned and can be swapped', () => {
    const signature = independent(BODY);
    const a = verify({ 'X-Shopify-Hmac-Sha256': signature, 'X-Shopify-Webhook-Id': 'id-a' });
    const b = verify({ 'X-Shopify-Hmac-Sha256': signature, 'X-Shopify-Webhook-Id': 'id-b' });
    expect(a.ok && b.ok && a.delivery.dedupKey === b.delivery.dedupKey).toBe(true);
  });

  it('has no timestamp: an old delivery still verifies, so replays rely on the dedup key', () => {
    const outcome = shopify.verify(
      { body: Buffer.from(BODY), headers: normalizeHeaders({ 'X-Shopify-Hmac-Sha256': independent(BODY) }) },
      [SECRET],
      { nowSeconds: 4_000_000_000, toleranceSeconds: 1 },
    );
    expect(outcome.ok).toBe(true);
  });

  it('works without the metadata headers, with no delivery id or event type', () => {
    const outcome = verify({ 'X-Shopify-Hmac-Sha256': independent(BODY) });
    if (!outcome.ok) throw new Error(outcome.reason);
    expect(outcome.delivery.deliveryId).toBeUndefined();
    expect(outcome.delivery.eventType).toBeUndefined();
  });

  it.each([
    ['a repeated webhook id', { 'X-Shopify-Webhook-Id': ['a', 'b'] }, 'repeated_header'],
    ['a webhook id with a space', { 'X-Shopify-Webhook-Id': 'a b' }, 'malformed_id'],
  ])('rejects %s', (_name, extra, reason) => {
    expect(verify({ 'X-Shopify-Hmac-Sha256': independent(BODY), ...extra })).toEqual({ ok: false, reason });
  });

  it('rejects the right MAC hex-encoded: Shopify sends base64', () => {
    const hex = createHmac('sha256', SECRET).update(BODY).digest('hex');
    expect(verify({ 'X-Shopify-Hmac-Sha256': hex })).toEqual({ ok: false, reason: 'malformed_signature' });
  });

  it('rejects base64 with the padding stripped', () => {
    const unpadded = independent(BODY).replace(/=+$/, '');
    expect(verify({ 'X-Shopify-Hmac-Sha256': unpadded })).toEqual({
      ok: false,
      reason: 'malformed_signature',
    });
  });
});

// Shopify's events webhooks: the same headers without `x-`, as shopify-api-js's WEBHOOK_HEADER_NAMES names
// them. For now Shopify sends both spellings; the newer one alone must work too.
describe('shopify: the shopify-* header family', () => {
  const EVENT_ID = '98880550-7158-44d4-b7cd-2c97c8a091b5';
  const newer = (overrides: Record<string, string | string[]> = {}) => ({
    'shopify-hmac-sha256': independent(BODY),
    'shopify-topic': 'orders/create',
    'shopify-shop-domain': 'shop1.myshopify.com',
    'shopify-api-version': '2026-01',
    'shopify-event-id': EVENT_ID,
    'shopify-triggered-at': '2026-11-30T12:00:00.000Z',
    ...overrides,
  });
  const classicOf = (headers: Record<string, string | string[]>) =>
    Object.fromEntries(Object.entries(headers).map(([name, value]) => [`x-${name}`, value]));

  it('verifies a delivery that carries only the shopify-* headers', () => {
    const outcome = verify(newer());
    if (!outcome.ok) throw new Error(outcome.reason);
    expect(outcome.delivery.eventType).toBe('orders/create');
    expect(outcome.delivery.deliveryId).toBe(EVENT_ID);
    expect(outcome.delivery.dedupKey).toBe(sha256Hex(Buffer.from(BODY)));
  });

  it('takes the same dedup key, event type and delivery id from either family', () => {
    const fromNewer = verify(newer());
    const fromClassic = verify(classicOf(newer()));
    const fromBoth = verify({ ...newer(), ...classicOf(newer()) });
    const facts = (outcome: ReturnType<typeof verify>) =>
      outcome.ok
        ? [outcome.delivery.dedupKey, outcome.delivery.eventType, outcome.delivery.deliveryId]
        : outcome.reason;
    expect(facts(fromNewer)).toEqual([sha256Hex(Buffer.from(BODY)), 'orders/create', EVENT_ID]);
    expect(facts(fromClassic)).toEqual(facts(fromNewer));
    expect(facts(fromBoth)).toEqual(facts(fromNewer));
  });

  it('prefers the webhook id of either family over the event id as delivery id', () => {
    const outcome = verify(newer({ 'shopify-webhook-id': 'b54557e4-bdd9-4b37-8a5f-bf7d70bcd043' }));
    expect(outcome.ok && outcome.delivery.deliveryId).toBe('b54557e4-bdd9-4b37-8a5f-bf7d70bcd043');
  });

  it('rejects a wrong shopify-hmac-sha256 like a wrong X-Shopify-Hmac-Sha256', () => {
    expect(verify(newer({ 'shopify-hmac-sha256': independent(BODY, 'another-secret') }))).toEqual({
      ok: false,
      reason: 'bad_signature',
    });
  });

  it.each([
    ['signature', { 'x-shopify-hmac-sha256': independent(`${BODY} `) }],
    ['topic', { 'x-shopify-topic': 'orders/paid' }],
    ['event id', { 'x-shopify-event-id': 'another-event' }],
    ['shop domain', { 'x-shopify-shop-domain': 'shop2.myshopify.com' }],
  ])('refuses both families with a different %s as a repeated header', (_name, classic) => {
    expect(verify({ ...newer(), ...classic })).toEqual({ ok: false, reason: 'repeated_header' });
  });

  it('refuses a shopify-* header next to a repeated x-shopify-* one', () => {
    const signature = independent(BODY);
    expect(
      verify({ 'shopify-hmac-sha256': signature, 'x-shopify-hmac-sha256': [signature, signature] }),
    ).toEqual({ ok: false, reason: 'repeated_header' });
  });
});
