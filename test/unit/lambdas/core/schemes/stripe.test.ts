import Stripe from 'stripe';
import { describe, expect, it } from 'vitest';
import { normalizeHeaders } from '../../../../../lambdas/core/headers';
import { stripe } from '../../../../../lambdas/core/schemes/stripe';
import { CONTEXT, describeSchemeContract, NOW } from '../../../../support/scheme-contract';

describeSchemeContract({
  scheme: stripe,
  signatureHeader: 'Stripe-Signature',
  withSignature: (value, signature) => `${value.split(',')[0]},v1=${signature}`,
  encoding: 'hex',
  unknownVersionsOnly: (value) => `${value.split(',')[0]},v0=${value.split('v1=')[1]},v2=abc`,
  withExtraSignature: (value, bogus) => `${value},v1=${bogus}`,
});

const SECRET = 'whsec_test_secret_for_cross_checks';
const stripeClient = new Stripe('sk_test_123');
const event = (id = 'evt_1NqX2') =>
  Buffer.from(
    JSON.stringify({
      id,
      object: 'event',
      type: 'payment_intent.succeeded',
      data: { object: { id: 'pi_1', amount: 2000 } },
    }),
  );
const verify = (body: Buffer, header: string, secrets = [SECRET], nowSeconds = NOW) =>
  stripe.verify({ body, headers: normalizeHeaders({ 'Stripe-Signature': header }) }, secrets, {
    nowSeconds,
    toleranceSeconds: 300,
  });
const header = (body: Buffer, timestamp = NOW) =>
  stripe.sign({ body, secret: SECRET, timestamp, id: '' })['Stripe-Signature']!;

describe('stripe', () => {
  it('takes the dedup key and event type from the signed body', () => {
    const outcome = verify(event('evt_dedup'), header(event('evt_dedup')));
    if (!outcome.ok) throw new Error(outcome.reason);
    expect(outcome.delivery.dedupKey).toBe('evt_dedup');
    expect(outcome.delivery.eventType).toBe('payment_intent.succeeded');
  });

  it.each([['hello'], ['1700000000abc'], ['1.7e9'], ['-1700000000'], ['1700000000000']])(
    'rejects the timestamp t=%s as malformed',
    (t) => {
      const good = header(event());
      expect(verify(event(), good.replace(/^t=\d+/, `t=${t}`))).toEqual({
        ok: false,
        reason: 'malformed_timestamp',
      });
    },
  );

  it('rejects a stale and a future timestamp', () => {
    expect(verify(event(), header(event(), NOW - 301))).toEqual({ ok: false, reason: 'stale_timestamp' });
    expect(verify(event(), header(event(), NOW + 301))).toEqual({ ok: false, reason: 'future_timestamp' });
  });

  it('rejects a timestamp swapped in from another signed delivery', () => {
    const good = header(event());
    expect(verify(event(), good.replace(/^t=\d+/, `t=${NOW - 5}`))).toEqual({
      ok: false,
      reason: 'bad_signature',
    });
  });

  it('rejects a header with two timestamps', () => {
    expect(verify(event(), `t=${NOW - 1},${header(event())}`)).toEqual({
      ok: false,
      reason: 'malformed_timestamp',
    });
  });

  it('answers not_json for an authentic body that is not JSON', () => {
    const body = Buffer.from('id=evt_1&type=x');
    expect(verify(body, header(body))).toEqual({ ok: false, reason: 'not_json' });
  });

  it('answers missing_event_id for an authentic event without an id', () => {
    const body = Buffer.from('{"type":"charge.succeeded"}');
    expect(verify(body, header(body))).toEqual({ ok: false, reason: 'missing_event_id' });
  });

  it("verifies what stripe-node's test helper signs, and constructEvent accepts what we sign", () => {
    const body = event('evt_cross');
    const now = Math.floor(Date.now() / 1000);
    const theirs = stripeClient.webhooks.generateTestHeaderString({
      payload: body.toString(),
      secret: SECRET,
      timestamp: now,
    });
    expect(verify(body, theirs, [SECRET], now).ok).toBe(true);
    const ours = header(body, now);
    expect(stripeClient.webhooks.constructEvent(body, ours, SECRET).id).toBe('evt_cross');
  });

  it('does not verify with the reference time of another clock', () => {
    expect(verify(event(), header(event()), [SECRET], CONTEXT.nowSeconds + 1000).ok).toBe(false);
  });
});
