import { createHmac, randomUUID, timingSafeEqual } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { normalizeHeaders } from '../../../../../lambdas/core/headers';
import { mobazha } from '../../../../../lambdas/core/schemes/mobazha';
import { CONTEXT, describeSchemeContract, NOW } from '../../../../support/scheme-contract';

describeSchemeContract({
  scheme: mobazha,
  signatureHeader: 'X-Webhook-Signature',
  withSignature: (_value, signature) => `sha256=${signature}`,
  encoding: 'hex',
  timestampHeader: 'X-Webhook-Timestamp',
  idHeader: 'X-Webhook-ID',
  unknownVersionsOnly: (value) => `sha512=${value.slice('sha256='.length)}`,
});

const SECRET = 'mbz_endpoint_secret_for_tests';

// Mobazha's documented receiver example, reimplemented as published (it compares strings, and uses the wall
// clock).
function verifyMobazhaWebhook(input: {
  secret: string;
  webhookId: string;
  timestamp: string;
  signature: string;
  rawBody: string;
}): boolean {
  if (Math.abs(Date.now() / 1000 - Number(input.timestamp)) > 300) return false;
  const message = `${input.webhookId}.${input.timestamp}.${input.rawBody}`;
  const expected = `sha256=${createHmac('sha256', input.secret).update(message).digest('hex')}`;
  return (
    expected.length === input.signature.length &&
    timingSafeEqual(Buffer.from(expected), Buffer.from(input.signature))
  );
}

// The sender side of the same construction: signature over `{id}.{ts}.{raw body}`, `sha256=` prefixed.
function mobazhaSend(body: string, timestamp: number, webhookId = randomUUID()) {
  const message = `${webhookId}.${timestamp}.${body}`;
  return {
    'X-Webhook-ID': webhookId,
    'X-Webhook-Timestamp': String(timestamp),
    'X-Webhook-Signature': `sha256=${createHmac('sha256', SECRET).update(message).digest('hex')}`,
    'Content-Type': 'application/json',
  };
}

const cloudEvent = (type?: string) =>
  JSON.stringify({
    specversion: '1.0',
    id: 'evt_01J9Z',
    source: 'https://mobazha.example/v1/stores/st_1',
    ...(type ? { type } : {}),
    time: '2026-06-12T10:30:00Z',
    datacontenttype: 'application/json',
    data: { orderId: 'ord_123', total: '99.00', buyer: 'Zoë 🚀' },
  });

describe('mobazha', () => {
  it("verifies what Mobazha's documented construction signs, keyed by the signed X-Webhook-ID", () => {
    const body = cloudEvent('order.created');
    const headers = mobazhaSend(body, NOW, '6f1c8a2e-4b7d-4e0a-9c3f-2d5b8e1a7c90');
    const outcome = mobazha.verify(
      { body: Buffer.from(body), headers: normalizeHeaders(headers) },
      [SECRET],
      CONTEXT,
    );
    if (!outcome.ok) throw new Error(outcome.reason);
    expect(outcome.delivery.dedupKey).toBe('6f1c8a2e-4b7d-4e0a-9c3f-2d5b8e1a7c90');
    expect(outcome.delivery.deliveryId).toBe('6f1c8a2e-4b7d-4e0a-9c3f-2d5b8e1a7c90');
    expect(outcome.delivery.timestamp).toBe(NOW);
    expect(outcome.delivery.eventType).toBe('order.created');
  });

  it("passes Mobazha's documented receiver check for what we sign", () => {
    const body = cloudEvent('payment.completed');
    const timestamp = Math.floor(Date.now() / 1000);
    const ours = mobazha.sign({ body: Buffer.from(body), secret: SECRET, timestamp, id: randomUUID() });
    expect(
      verifyMobazhaWebhook({
        secret: SECRET,
        webhookId: ours['X-Webhook-ID']!,
        timestamp: ours['X-Webhook-Timestamp']!,
        signature: ours['X-Webhook-Signature']!,
        rawBody: body,
      }),
    ).toBe(true);
  });

  it('reports no event type for an envelope without one', () => {
    const body = cloudEvent();
    const outcome = mobazha.verify(
      { body: Buffer.from(body), headers: normalizeHeaders(mobazhaSend(body, NOW)) },
      [SECRET],
      CONTEXT,
    );
    expect(outcome.ok && outcome.delivery.eventType).toBeUndefined();
  });

  it('rejects a signature without the sha256= prefix', () => {
    const body = cloudEvent('order.created');
    const headers = mobazhaSend(body, NOW);
    headers['X-Webhook-Signature'] = headers['X-Webhook-Signature'].slice('sha256='.length);
    expect(
      mobazha.verify({ body: Buffer.from(body), headers: normalizeHeaders(headers) }, [SECRET], CONTEXT),
    ).toEqual({ ok: false, reason: 'malformed_signature' });
  });
});
