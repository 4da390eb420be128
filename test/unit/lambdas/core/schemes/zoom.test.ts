import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { normalizeHeaders } from '../../../../../lambdas/core/headers';
import { sha256Hex } from '../../../../../lambdas/core/schemes/primitives';
import { zoom } from '../../../../../lambdas/core/schemes/zoom';
import { CONTEXT, describeSchemeContract, NOW } from '../../../../support/scheme-contract';

describeSchemeContract({
  scheme: zoom,
  signatureHeader: 'x-zm-signature',
  withSignature: (_value, signature) => `v0=${signature}`,
  encoding: 'hex',
  timestampHeader: 'x-zm-request-timestamp',
  unknownVersionsOnly: (value) => `v1=${value.slice(3)}`,
});

const SECRET = 'u8FJ3kQ2Rz9TbWm4Xc7Nqa';
const BODY =
  '{"event":"meeting.started","event_ts":1700000000123,"payload":{"account_id":"AAAA","object":{"id":"85746065","topic":"Zoë 🚀"}}}';
// Zoom's documented construction, computed here independently of the scheme; Zoom publishes no vector.
const zoomSign = (timestamp: string, body: string) =>
  `v0=${createHmac('sha256', SECRET).update(`v0:${timestamp}:${body}`).digest('hex')}`;

const verify = (body: string, headers: Record<string, string>, nowSeconds = NOW) =>
  zoom.verify({ body: Buffer.from(body), headers: normalizeHeaders(headers) }, [SECRET], {
    ...CONTEXT,
    nowSeconds,
  });

describe('zoom', () => {
  it("verifies Zoom's documented v0:{timestamp}:{body} construction", () => {
    const outcome = verify(BODY, {
      'x-zm-signature': zoomSign(String(NOW), BODY),
      'x-zm-request-timestamp': String(NOW),
    });
    if (!outcome.ok) throw new Error(outcome.reason);
    expect(outcome.delivery.dedupKey).toBe(sha256Hex(Buffer.from(BODY)));
    expect(outcome.delivery.eventType).toBe('meeting.started');
    expect(outcome.delivery.timestamp).toBe(NOW);
  });

  it('signs exactly that construction', () => {
    const headers = zoom.sign({ body: Buffer.from(BODY), secret: SECRET, timestamp: NOW, id: 'x' });
    expect(headers['x-zm-signature']).toBe(zoomSign(String(NOW), BODY));
    expect(headers['x-zm-request-timestamp']).toBe(String(NOW));
  });

  it('verifies the endpoint.url_validation request and reports its event type', () => {
    const body =
      '{"payload":{"plainToken":"qgg8vlvZRS6UYooatFL8Aw"},"event_ts":1654503849680,"event":"endpoint.url_validation"}';
    const outcome = verify(body, {
      'x-zm-signature': zoomSign(String(NOW), body),
      'x-zm-request-timestamp': String(NOW),
    });
    expect(outcome.ok && outcome.delivery.eventType).toBe('endpoint.url_validation');
  });

  it('rejects a millisecond timestamp as malformed, even when signed', () => {
    const millis = String(NOW * 1000);
    expect(
      verify(BODY, { 'x-zm-signature': zoomSign(millis, BODY), 'x-zm-request-timestamp': millis }),
    ).toEqual({
      ok: false,
      reason: 'malformed_timestamp',
    });
  });

  it('rejects a signature made without the v0: prefix in the signed content', () => {
    const wrong = `v0=${createHmac('sha256', SECRET).update(`${NOW}:${BODY}`).digest('hex')}`;
    expect(verify(BODY, { 'x-zm-signature': wrong, 'x-zm-request-timestamp': String(NOW) })).toEqual({
      ok: false,
      reason: 'bad_signature',
    });
  });

  it('rejects a missing timestamp header', () => {
    expect(verify(BODY, { 'x-zm-signature': zoomSign(String(NOW), BODY) })).toEqual({
      ok: false,
      reason: 'missing_header',
    });
  });
});
