import { Webhook as StandardWebhook } from 'standardwebhooks';
import { Webhook as SvixWebhook } from 'svix';
import { describe, expect, it } from 'vitest';
import { normalizeHeaders } from '../../../../../lambdas/core/headers';
import { standardWebhooks, standardWebhooksKey } from '../../../../../lambdas/core/schemes/standard-webhooks';
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

  it.each([
    ['not base64', 'whsec_not base64!'],
    ['an empty key', 'whsec_'],
    ['under four characters', 'whsec_abc'],
    ['URL-safe base64', `whsec_${Buffer.alloc(24, 0xfb).toString('base64url')}`],
    ['one character past a group', 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSwA'],
    ['padding inside the key', 'whsec_MfKQ=9r8GKYqrTwjUPD8ILPZIo2LaLaSw'],
    ['three padding characters', 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaS==='],
  ])('fails closed on a secret with %s', (_name, secret) => {
    const body = Buffer.from('{}');
    const headers = standardWebhooks.sign({
      body,
      secret: VECTOR.secret,
      timestamp: CONTEXT.nowSeconds,
      id: 'msg_1',
    });
    const outcome = standardWebhooks.verify({ body, headers: normalizeHeaders(headers) }, [secret], CONTEXT);
    expect(outcome).toEqual({ ok: false, reason: 'no_secret' });
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

// Key lengths whose base64 ends in two, one and no padding characters, and keys whose last character
// carries bits the decoder ignores.
const KEY_BYTES = [16, 24, 31, 32, 33, 64];

describe('standard-webhooks secrets without base64 padding', () => {
  const ts = now();
  const body = '{"type":"user.created","data":{"name":"Zoë 🚀"}}';
  const secretsFor = (bytes: number) => {
    const key = Buffer.from(Array.from({ length: bytes }, (_, i) => (i * 37 + bytes) % 256));
    const padded = key.toString('base64');
    return { key, padded, unpadded: padded.replace(/=+$/, '') };
  };
  /** Signs with the peer library, then verifies with our scheme under the same secret. */
  const peerSignedVerifies = (peer: StandardWebhook | SvixWebhook, secret: string, id: string) => {
    const headers = normalizeHeaders({
      'webhook-id': id,
      'webhook-timestamp': String(ts),
      'webhook-signature': peer.sign(id, new Date(ts * 1000), body),
    });
    return standardWebhooks.verify({ body: Buffer.from(body), headers }, [secret], {
      nowSeconds: ts,
      toleranceSeconds: 300,
    }).ok;
  };

  it.each(KEY_BYTES)('decodes an unpadded %i-byte key to the bytes the padded one has', (bytes) => {
    const { padded, unpadded } = secretsFor(bytes);
    expect(standardWebhooksKey(`whsec_${unpadded}`)).toEqual(standardWebhooksKey(`whsec_${padded}`));
    expect(standardWebhooksKey(unpadded)?.length).toBe(bytes);
  });

  it.each(
    KEY_BYTES.flatMap((bytes) => [
      ['standardwebhooks', bytes, StandardWebhook] as const,
      ['svix', bytes, SvixWebhook] as const,
    ]),
  )('verifies what %s signs with an unpadded %i-byte key, and it verifies ours', (_name, bytes, Peer) => {
    const secret = `whsec_${secretsFor(bytes).unpadded}`;
    const peer = new Peer(secret);
    expect(peerSignedVerifies(peer, secret, 'msg_unpadded_1')).toBe(true);

    const ours = standardWebhooks.sign({ body: Buffer.from(body), secret, timestamp: ts, id: 'msg_ours_2' });
    expect(() => peer.verify(body, ours)).not.toThrow();
  });

  it('decodes a key whose last character has unused bits set as the reference library does', () => {
    // 'x' and 'w' differ only in the bits a 31-byte key leaves unused after its last character.
    const { unpadded } = secretsFor(31);
    const loose = `whsec_${unpadded.slice(0, -1)}${unpadded.endsWith('x') ? 'w' : 'x'}`;
    expect(peerSignedVerifies(new StandardWebhook(loose), loose, 'msg_bits_1')).toBe(true);
  });

  it('refuses the URL-safe alphabet, which the reference library refuses too', () => {
    const urlSafe = `whsec_${Buffer.alloc(24, 0xfb).toString('base64url')}`;
    expect(() => new StandardWebhook(urlSafe)).toThrow();
    expect(standardWebhooksKey(urlSafe)).toBeNull();
  });
});

describe('standard-webhooks: webhook-* and svix-* headers together', () => {
  const ts = now();
  const body = '{"type":"user.created"}';
  const signed = new SvixWebhook(VECTOR.secret).sign('msg_mixed_1', new Date(ts * 1000), body);
  const fields = { id: 'msg_mixed_1', timestamp: String(ts), signature: signed };
  const verifyWith = (headers: Record<string, string>) =>
    standardWebhooks.verify(
      { body: Buffer.from(body), headers: normalizeHeaders(headers) },
      [VECTOR.secret],
      {
        nowSeconds: ts,
        toleranceSeconds: 300,
      },
    );

  it('reads each field from whichever spelling came, as Svix’s library does', () => {
    const mixed = {
      'webhook-id': fields.id,
      'svix-timestamp': fields.timestamp,
      'svix-signature': fields.signature,
    };
    expect(() => new SvixWebhook(VECTOR.secret).verify(body, mixed)).not.toThrow();
    expect(verifyWith(mixed).ok).toBe(true);
  });

  it('accepts both spellings with the same values', () => {
    const both = {
      'webhook-id': fields.id,
      'webhook-timestamp': fields.timestamp,
      'webhook-signature': fields.signature,
      'svix-id': fields.id,
      'svix-timestamp': fields.timestamp,
      'svix-signature': fields.signature,
    };
    expect(verifyWith(both).ok).toBe(true);
  });

  it.each([
    ['id', { 'svix-id': 'msg_other' }],
    ['timestamp', { 'svix-timestamp': String(ts - 1) }],
    ['signature', { 'svix-signature': 'v1,Ceo5qEr07ixe2NLpvHk3FH9bwy/WavXrAFQ/9tdO6mc=' }],
  ])('refuses both spellings with a different %s as a repeated header', (_name, twin) => {
    // Svix's library checks the svix-* value, the standard's the webhook-* one: no answer is right.
    const headers = {
      'webhook-id': fields.id,
      'webhook-timestamp': fields.timestamp,
      'webhook-signature': fields.signature,
      ...twin,
    };
    expect(verifyWith(headers)).toEqual({ ok: false, reason: 'repeated_header' });
  });
});
