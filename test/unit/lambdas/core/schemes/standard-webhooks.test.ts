import { Webhook as StandardWebhook } from 'standardwebhooks';
import { Webhook as SvixWebhook } from 'svix';
import { describe, expect, it } from 'vitest';
import { normalizeHeaders } from '../../../../../lambdas/core/headers';
import { standardWebhooks } from '../../../../../lambdas/core/schemes/standard-webhooks';
import { CONTEXT, describeSchemeContract } from '../../../../support/scheme-contract';

describeSchemeContract({
  scheme: standardWebhooks,
  signatureHeader: 'webhook-signature',
  withSignature: (_value, signature) => `v1,${signature}`,
  encoding: 'base64',
  timestampHeader: 'webhook-timestamp',
  idHeader: 'webhook-id',
  unknownVersionsOnly: (value) => `v1a,${value.slice(3)} v2,${value.slice(3)} v0,${value.slice(3)}`,
  withExtraSignature: (value, bogus) => `v1,${bogus} ${value}`,
});

const VECTOR = {
  secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
  id: 'msg_p5jXN8AQM9LWM0D4loKWxJek',
  timestamp: 1614265330,
  body: '{"test": 2432232314}',
  signature: 'v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=',
};

const now = () => Math.floor(Date.now() / 1000);

describe('standard-webhooks', () => {
  it('verifies the Standard Webhooks reference vector', () => {
    const outcome = standardWebhooks.verify(
      {
        body: Buffer.from(VECTOR.body),
        headers: normalizeHeaders({
          'webhook-id': VECTOR.id,
          'webhook-timestamp': String(VECTOR.timestamp),
          'webhook-signature': VECTOR.signature,
        }),
      },
      [VECTOR.secret],
      { nowSeconds: VECTOR.timestamp, toleranceSeconds: 300 },
    );
    if (!outcome.ok) throw new Error(outcome.reason);
    expect(outcome.delivery.dedupKey).toBe(VECTOR.id);
    expect(outcome.delivery.timestamp).toBe(VECTOR.timestamp);
  });

  it('signs the reference vector byte for byte', () => {
    const headers = standardWebhooks.sign({
      body: Buffer.from(VECTOR.body),
      secret: VECTOR.secret,
      timestamp: VECTOR.timestamp,
      id: VECTOR.id,
    });
    expect(headers['webhook-signature']).toBe(VECTOR.signature);
  });

  it('reads svix-* headers when webhook-* are absent', () => {
    const outcome = standardWebhooks.verify(
      {
        body: Buffer.from(VECTOR.body),
        headers: normalizeHeaders({
          'svix-id': VECTOR.id,
          'svix-timestamp': String(VECTOR.timestamp),
          'svix-signature': VECTOR.signature,
        }),
      },
      [VECTOR.secret],
      { nowSeconds: VECTOR.timestamp, toleranceSeconds: 300 },
    );
    expect(outcome.ok).toBe(true);
  });

  it('takes the event type from the body type field, once asked', () => {
    const body = Buffer.from('{"type":"invoice.paid","timestamp":"2026-11-30T00:00:00Z","data":{}}');
    const headers = standardWebhooks.sign({
      body,
      secret: VECTOR.secret,
      timestamp: CONTEXT.nowSeconds,
      id: 'msg_1',
    });
    const outcome = standardWebhooks.verify(
      { body, headers: normalizeHeaders(headers) },
      [VECTOR.secret],
      CONTEXT,
    );
    expect(outcome.ok && outcome.delivery.eventType).toBe('invoice.paid');
  });

  it('accepts a secret without the whsec_ prefix, as the reference libraries do', () => {
    const body = Buffer.from('{}');
    const headers = standardWebhooks.sign({
      body,
      secret: VECTOR.secret,
      timestamp: CONTEXT.nowSeconds,
      id: 'msg_1',
    });
    const bare = VECTOR.secret.slice('whsec_'.length);
    expect(standardWebhooks.verify({ body, headers: normalizeHeaders(headers) }, [bare], CONTEXT).ok).toBe(
      true,
    );
  });

  it.each([['whsec_not base64!'], ['whsec_'], ['whsec_abc']])(
    'fails closed on the unusable secret %j',
    (secret) => {
      const body = Buffer.from('{}');
      const headers = standardWebhooks.sign({
        body,
        secret: VECTOR.secret,
        timestamp: CONTEXT.nowSeconds,
        id: 'msg_1',
      });
      const outcome = standardWebhooks.verify(
        { body, headers: normalizeHeaders(headers) },
        [secret],
        CONTEXT,
      );
      expect(outcome).toEqual({ ok: false, reason: 'no_secret' });
    },
  );

  it.each([
    ['standardwebhooks', StandardWebhook],
    ['svix', SvixWebhook],
  ])('verifies what %s signs, and it verifies what we sign', (_name, Peer) => {
    const peer = new Peer(VECTOR.secret);
    const body = '{"type":"user.created","data":{"name":"Zoë 🚀"}}';
    const ts = now();
    const theirs = peer.sign('msg_peer_1', new Date(ts * 1000), body);
    const headers = normalizeHeaders({
      'webhook-id': 'msg_peer_1',
      'webhook-timestamp': String(ts),
      'webhook-signature': theirs,
    });
    expect(
      standardWebhooks.verify({ body: Buffer.from(body), headers }, [VECTOR.secret], {
        nowSeconds: ts,
        toleranceSeconds: 300,
      }).ok,
    ).toBe(true);

    const ours = standardWebhooks.sign({
      body: Buffer.from(body),
      secret: VECTOR.secret,
      timestamp: ts,
      id: 'msg_ours_1',
    });
    const svixHeaders = {
      'svix-id': ours['webhook-id']!,
      'svix-timestamp': ours['webhook-timestamp']!,
      'svix-signature': ours['webhook-signature']!,
    };
    expect(() => peer.verify(body, { ...ours, ...svixHeaders })).not.toThrow();
  });
});
