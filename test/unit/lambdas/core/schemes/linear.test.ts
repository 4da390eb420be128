import { createHmac } from 'node:crypto';
import { LinearWebhookClient } from '@linear/sdk/webhooks';
import { describe, expect, it } from 'vitest';
import { normalizeHeaders } from '../../../../../lambdas/core/headers';
import { linear } from '../../../../../lambdas/core/schemes/linear';
import { sha256Hex } from '../../../../../lambdas/core/schemes/primitives';
import { describeSchemeContract, NOW, withJsonField } from '../../../../support/scheme-contract';

describeSchemeContract({
  scheme: linear,
  signatureHeader: 'Linear-Signature',
  withSignature: (_value, signature) => signature,
  encoding: 'hex',
  withSignedFields: (body, timestamp) => withJsonField(body, 'webhookTimestamp', timestamp * 1000),
});

const SECRET = linear.generateSecret();
// Linear's documented window, which config sets as linear's toleranceSeconds.
const CONTEXT = { nowSeconds: NOW, toleranceSeconds: 60 };
const payload = (fields: Record<string, unknown>) =>
  Buffer.from(
    JSON.stringify({
      action: 'update',
      type: 'Issue',
      data: { id: '2174add1-f7c8-44e3-bbf3-2d60b5ea8bc9', title: 'Zoë 🚀' },
      url: 'https://linear.app/issue/LIN-1',
      ...fields,
    }),
  );
const signedRequest = (body: Buffer, extra: Record<string, string | undefined> = {}) => {
  const headers: Record<string, string> = {
    ...linear.sign({ body, secret: SECRET, timestamp: 0, id: '3a1e4ad5-9c1c-4b8a-b8a4-1f2e0c5e3d7b' }),
  };
  for (const [name, value] of Object.entries(extra)) {
    if (value === undefined) delete headers[name];
    else headers[name] = value;
  }
  return { body, headers: normalizeHeaders(headers) };
};
const verify = (body: Buffer, extra?: Record<string, string | undefined>, nowSeconds = NOW) =>
  linear.verify(signedRequest(body, extra), [SECRET], { ...CONTEXT, nowSeconds });

describe('linear', () => {
  it('verifies the body signature, with the body hash as dedup key and Linear-Delivery as metadata', () => {
    const body = payload({ webhookTimestamp: NOW * 1000 + 250 });
    const outcome = verify(body);
    if (!outcome.ok) throw new Error(outcome.reason);
    expect(outcome.delivery.dedupKey).toBe(sha256Hex(body));
    expect(outcome.delivery.deliveryId).toBe('3a1e4ad5-9c1c-4b8a-b8a4-1f2e0c5e3d7b');
    expect(outcome.delivery.timestamp).toBe(NOW);
    expect(outcome.delivery.eventType).toBe('Issue');
  });

  it('verifies a hex HMAC-SHA256 of the raw body computed independently (Linear publishes no vector)', () => {
    const body = payload({ webhookTimestamp: NOW * 1000 });
    const signature = createHmac('sha256', SECRET).update(body).digest('hex');
    expect(verify(body, { 'Linear-Signature': signature }).ok).toBe(true);
    expect(verify(body, { 'Linear-Signature': signature.toUpperCase() }).ok).toBe(true);
  });

  it('takes the event type from Linear-Event, else from the body type', () => {
    const body = payload({ type: 'Comment', webhookTimestamp: NOW * 1000 });
    const fromHeader = verify(body, { 'Linear-Event': 'IssueLabel' });
    expect(fromHeader.ok && fromHeader.delivery.eventType).toBe('IssueLabel');
    const fromBody = verify(body, { 'Linear-Event': undefined });
    expect(fromBody.ok && fromBody.delivery.eventType).toBe('Comment');
  });

  it.each([
    ['59.999 s old', -59_999, 'accepted'],
    ['exactly 60 s old', -60_000, 'accepted'],
    ['60.001 s old', -60_001, 'stale_timestamp'],
    ['60.001 s ahead', 60_001, 'future_timestamp'],
    ['exactly 60 s ahead', 60_000, 'accepted'],
  ])('judges a webhookTimestamp %s in milliseconds against the window', (_name, offset, expected) => {
    const outcome = verify(payload({ webhookTimestamp: NOW * 1000 + offset }));
    expect(outcome.ok ? 'accepted' : outcome.reason).toBe(expected);
  });

  it('rejects a webhookTimestamp in seconds: it reads as 1970', () => {
    expect(verify(payload({ webhookTimestamp: NOW }))).toEqual({ ok: false, reason: 'stale_timestamp' });
  });

  it.each([
    ['missing', undefined],
    ['a string', String(NOW * 1000)],
    ['a fraction', NOW * 1000 + 0.5],
    ['negative', -1],
    ['null', null],
    ['an object', { ms: NOW * 1000 }],
    ['beyond safe integers', 2 ** 60],
  ])('answers malformed_timestamp for a signed webhookTimestamp that is %s', (_name, value) => {
    expect(verify(payload({ webhookTimestamp: value }))).toEqual({
      ok: false,
      reason: 'malformed_timestamp',
    });
  });

  it('answers malformed_timestamp for an authentic body that is not JSON', () => {
    expect(verify(Buffer.from('webhookTimestamp=1700000000000'))).toEqual({
      ok: false,
      reason: 'malformed_timestamp',
    });
  });

  it('checks the signature before the timestamp: a forged stale body is a bad signature', () => {
    const request = signedRequest(payload({ webhookTimestamp: NOW * 1000 }));
    const forged = { ...request, body: payload({ webhookTimestamp: (NOW - 3600) * 1000 }) };
    expect(linear.verify(forged, [SECRET], CONTEXT)).toEqual({ ok: false, reason: 'bad_signature' });
  });

  it('ignores an unsigned Linear-Timestamp header', () => {
    const body = payload({ webhookTimestamp: NOW * 1000 });
    expect(verify(body, { 'Linear-Timestamp': String((NOW - 3600) * 1000) }).ok).toBe(true);
  });

  it('issues secrets in the lin_wh_ format', () => {
    expect(linear.generateSecret()).toMatch(/^lin_wh_[A-Za-z0-9_-]{44}$/);
  });

  it("is accepted by @linear/sdk's LinearWebhookClient, and refused by it without webhookTimestamp", () => {
    // The SDK only verifies; there is no Linear signer to check the other way.
    const client = new LinearWebhookClient(SECRET);
    const body = payload({ webhookTimestamp: Date.now() });
    const ours = linear.sign({ body, secret: SECRET, timestamp: 0, id: 'd-1' });
    expect(client.verify(body, ours['Linear-Signature']!)).toBe(true);
    expect(
      linear.verify(signedRequest(body), [SECRET], { ...CONTEXT, nowSeconds: Math.floor(Date.now() / 1000) })
        .ok,
    ).toBe(true);
    const untimed = payload({});
    const untimedSignature = linear.sign({ body: untimed, secret: SECRET, timestamp: 0, id: 'd-2' })[
      'Linear-Signature'
    ]!;
    expect(() => client.verify(untimed, untimedSignature)).toThrow();
    expect(linear.verify(signedRequest(untimed), [SECRET], CONTEXT)).toEqual({
      ok: false,
      reason: 'malformed_timestamp',
    });
  });
});
