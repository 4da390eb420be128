// The pieces `send` and `selftest` are built from, checked in-process (no child process): every sample of
// every built-in scheme signs and verifies with the scheme the verify Lambda runs, samples are new
// deliveries each time, and a file is the same delivery each time.
import { describe, expect, it } from 'vitest';
import {
  checkLocally,
  fileDelivery,
  newToken,
  sampleDelivery,
  sampleEvents,
  signDelivery,
  signedUrl,
} from '../../../cli/operations/signed-delivery';
import { maskSecret, parseDuration } from '../../../cli/shared/output';
import { parseConfig } from '../../../config';
import { SCHEMES } from '../../../lambdas/core/schemes';
import { DEMO_PERMANENT_TYPE, DEMO_TRANSIENT_TYPE, demoEvents } from '../../../lambdas/events/demo';

const config = parseConfig({});
const BASE = 'http://127.0.0.1:3000/webhooks/';

describe('cli samples', () => {
  for (const provider of Object.values(config.providers)) {
    it(`${provider.id}: every sample verifies, and two samples are two deliveries`, () => {
      const secret = SCHEMES[provider.scheme].generateSecret();
      const url = BASE + provider.id;
      for (const event of sampleEvents(provider)) {
        const keys = [0, 1].map(() => {
          const now = Date.now();
          const signed = signDelivery(provider, sampleDelivery(provider, { event, nowMs: now, url }), {
            secret,
            timestamp: Math.floor(now / 1000),
            url,
          });
          const check = checkLocally(provider, { ...signed, url }, [secret]);
          expect(check, `${provider.id} ${event}`).toMatchObject({ ok: true });
          expect(JSON.parse(signed.body.toString('utf8'))).toEqual(expect.any(Object));
          return check.ok ? check.dedupKey : '';
        });
        expect(keys[0]).not.toBe(keys[1]);
      }
    });
  }

  it('keeps the delivery ids of a token: the same id with another body', () => {
    const provider = config.providers.stripe;
    if (!provider) throw new Error('stripe is not configured');
    const token = newToken();
    const a = sampleDelivery(provider, { nowMs: Date.now(), url: BASE, token });
    const b = sampleDelivery(provider, { nowMs: Date.now(), url: BASE, token });
    expect(JSON.parse(a.body.toString()).id).toBe(JSON.parse(b.body.toString()).id);
    expect(a.body.equals(b.body)).toBe(false);
  });

  it("derives a file's delivery id from its bytes", () => {
    const provider = config.providers['standard-webhooks'];
    if (!provider) throw new Error('standard-webhooks is not configured');
    const body = Buffer.from('{"type":"user.created","timestamp":"2026-01-01T00:00:00Z","data":{}}');
    const first = fileDelivery(provider, { body });
    expect(fileDelivery(provider, { body: Buffer.from(body) }).deliveryId).toBe(first.deliveryId);
    expect(fileDelivery(provider, { body: Buffer.concat([body, Buffer.from('\n')]) }).deliveryId).not.toBe(
      first.deliveryId,
    );
    expect(first.eventType).toBe('user.created');
  });

  it('signs the URL the verify Lambda reconstructs: https, host without port, path', () => {
    expect(signedUrl('http://127.0.0.1:41234/webhooks/square')).toBe('https://127.0.0.1/webhooks/square');
    expect(signedUrl('https://abc.execute-api.eu-west-1.amazonaws.com/prod/webhooks/square')).toBe(
      'https://abc.execute-api.eu-west-1.amazonaws.com/prod/webhooks/square',
    );
  });

  it('parses durations and masks secrets', () => {
    expect([parseDuration('30s'), parseDuration('15m'), parseDuration('2h'), parseDuration('7d')]).toEqual([
      30_000, 900_000, 7_200_000, 604_800_000,
    ]);
    expect([parseDuration('2 days'), parseDuration('-1h'), parseDuration('1.5h')]).toEqual([
      undefined,
      undefined,
      undefined,
    ]);
    const secret = 'whsec_0123456789abcdefghijklmnopqrstuv';
    const masked = maskSecret(secret);
    expect(masked.startsWith('whsec_')).toBe(true);
    expect(masked).not.toContain(secret.slice(6, 30));
  });

  it('sends demo samples the demo handlers accept: one that is retried once, one that fails for good', () => {
    const provider = config.providers['standard-webhooks'];
    if (!provider) throw new Error('standard-webhooks is not configured');
    for (const handler of demoEvents) {
      const sample = sampleDelivery(provider, { event: handler.type, nowMs: Date.now(), url: BASE });
      const body = JSON.parse(sample.body.toString('utf8'));
      expect(handler.schema.safeParse(body).success, handler.type).toBe(true);
      if (handler.type === DEMO_TRANSIENT_TYPE) expect(body.data.failures).toBe(1);
    }
    expect(demoEvents.map((handler) => handler.type).sort()).toEqual([
      DEMO_PERMANENT_TYPE,
      DEMO_TRANSIENT_TYPE,
    ]);
  });
});
