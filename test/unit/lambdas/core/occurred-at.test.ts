import { describe, expect, it } from 'vitest';
import { occurredAtOf } from '../../../../lambdas/core/occurred-at';
import { VerifiedDelivery } from '../../../../lambdas/core/schemes/verified-delivery';

const NOW = Date.UTC(2026, 11, 1, 12, 0, 0);
const delivery = (body: unknown, timestamp?: number) =>
  new VerifiedDelivery(
    Buffer.from(typeof body === 'string' ? body : JSON.stringify(body)),
    'body-sha256',
    { fixed: 'x' },
    {},
    undefined,
    timestamp,
    0,
  );

describe('occurredAtOf: the event time from signed material', () => {
  it.each([
    ['stripe', { created: 1_764_590_400 }, Date.UTC(2025, 11, 1, 12, 0, 0)],
    ['standard-webhooks', { timestamp: '2026-11-30T08:00:00Z' }, Date.UTC(2026, 10, 30, 8, 0, 0)],
    [
      'mobazha',
      { specversion: '1.0', time: '2026-11-30T08:00:00.250Z' },
      Date.UTC(2026, 10, 30, 8, 0, 0, 250),
    ],
    ['paddle', { occurred_at: '2026-11-29T10:00:00.000000Z' }, Date.UTC(2026, 10, 29, 10, 0, 0)],
    ['square', { created_at: '2026-11-29T10:00:00Z' }, Date.UTC(2026, 10, 29, 10, 0, 0)],
    ['linear', { createdAt: '2026-11-29T10:00:00.000Z' }, Date.UTC(2026, 10, 29, 10, 0, 0)],
    ['slack', { event_time: 1_764_590_400 }, Date.UTC(2025, 11, 1, 12, 0, 0)],
    ['zoom', { event_ts: 1_764_590_400_123 }, Date.UTC(2025, 11, 1, 12, 0, 0, 123)],
    ['shopify', { updated_at: '2026-11-29T05:00:00-05:00' }, Date.UTC(2026, 10, 29, 10, 0, 0)],
  ] as const)('reads %s from its body', (scheme, body, expected) => {
    expect(occurredAtOf(scheme, delivery(body), NOW)).toBe(expected);
  });

  it('says nothing for GitHub, which sends no event time', () => {
    expect(
      occurredAtOf('github', delivery({ created_at: '2026-11-29T10:00:00Z' }, 1_764_590_400), NOW),
    ).toBeUndefined();
  });

  it("uses generic-hmac's timestamp only when the partner's template signs it", () => {
    expect(occurredAtOf('generic-hmac', delivery({}, 1_764_590_400), NOW)).toBe(1_764_590_400_000);
    expect(occurredAtOf('generic-hmac', delivery({}), NOW)).toBeUndefined();
  });

  it.each([
    ['a zero', { created: 0 }],
    ['milliseconds where seconds are documented', { created: 1_764_590_400_000 }],
    ['text where a number is documented', { created: 'yesterday' }],
    ['a date far in the future', { created: 4_102_444_800 }],
  ])('ignores %s and lets the receive time stand in', (_name, body) => {
    expect(occurredAtOf('stripe', delivery(body), NOW)).toBeUndefined();
  });

  it('ignores text that is not an ISO-8601 date, and a body that is not JSON', () => {
    expect(
      occurredAtOf('standard-webhooks', delivery({ timestamp: 'Mon, 30 Nov 2026' }), NOW),
    ).toBeUndefined();
    expect(occurredAtOf('standard-webhooks', delivery('not json'), NOW)).toBeUndefined();
  });
});
