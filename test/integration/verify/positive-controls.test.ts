// The deliveries the hardening must NOT refuse, through the real verify handler over dynalite and fauxqs:
// each is answered 202 with exactly one message whose payload is the sent bytes. Next to the edges of the
// bad-inputs rules (size, timestamp window, id length), the first value past the edge is refused.
import { randomBytes } from 'node:crypto';
import type { APIGatewayProxyEvent } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import {
  bodyOfSize,
  DEFAULT_SECRETS,
  jsonBody,
  MAX_BODY_BYTES,
  SECRETS,
  swMac,
  TOLERANCE_SECONDS,
  useHardening,
} from '../../support/hardening';

const h = useHardening();

const bogusB64 = () => randomBytes(32).toString('base64');
const bogusHex = () => randomBytes(32).toString('hex');

describe('several signatures in one header, only one valid', () => {
  it.each<{ name: string; header: (mac: string, body: Buffer) => string }>([
    { name: 'a bogus v1 then the valid one', header: (mac) => `v1,${bogusB64()} v1,${mac}` },
    { name: 'the valid one then a bogus v1', header: (mac) => `v1,${mac} v1,${bogusB64()}` },
    {
      name: 'the valid one among unknown versions and bogus v1s',
      header: (mac) => `v0,${bogusB64()} v1,${bogusB64()} v1a,${bogusB64()} v1,${mac} v2,${bogusB64()}`,
    },
    {
      name: 'a v1 over the same content with another secret, then the valid one',
      header: (mac, body) =>
        `v1,${swMac(SECRETS.swWrong, 'msg_hardening_1', String(h.now()), body)} v1,${mac}`,
    },
  ])('accepts webhook-signature with $name', async ({ header }) => {
    const body = jsonBody();
    await h.expectAccepted(await h.send(h.sw({ body, signature: (mac) => header(mac, body) })));
  });

  it('accepts a Stripe-Signature with a bogus v1= before the valid one', async () => {
    const event = h.stripe({ signature: (t, mac) => `t=${t},v1=${bogusHex()},v1=${mac}` });
    await h.expectAccepted(await h.send(event));
  });
});

describe('secret rotation: [current, previous]', () => {
  const rotating = {
    ...DEFAULT_SECRETS,
    'standard-webhooks': [SECRETS.sw, SECRETS.swPrevious],
    github: [SECRETS.github, SECRETS.githubPrevious],
    stripe: [SECRETS.stripe, SECRETS.stripePrevious],
  };

  it.each<{ name: string; event: () => APIGatewayProxyEvent }>([
    { name: 'standard-webhooks', event: () => h.sw({ secret: SECRETS.swPrevious }) },
    { name: 'github', event: () => h.github({ secret: SECRETS.githubPrevious }) },
    { name: 'stripe', event: () => h.stripe({ secret: SECRETS.stripePrevious }) },
  ])('accepts $name signed with the previous secret and logs secretIndex 1', async ({ event }) => {
    const sent = await h.send(event(), rotating);
    await h.expectAccepted(sent);
    expect(sent.logger.lines[0]!.attributes.secretIndex).toBe(1);
  });

  it('accepts a delivery signed with the current secret without a secretIndex', async () => {
    const sent = await h.send(h.sw(), rotating);
    await h.expectAccepted(sent);
    expect(sent.logger.lines[0]!.attributes.secretIndex).toBeUndefined();
  });

  it('still refuses a secret older than both', async () => {
    const sent = await h.send(h.sw({ secret: SECRETS.swWrong }), rotating);
    await h.expectRejected(sent, { status: 401, reason: 'bad_signature' });
  });
});

describe('bodies carried byte for byte', () => {
  it('accepts emoji and other multi-byte UTF-8', async () => {
    const body = jsonBody({ text: 'Zoë 🚀 — 東京 👩🏽‍💻' });
    expect(body.includes(Buffer.from('🚀'))).toBe(true);
    const envelope = await h.expectAccepted(await h.send(h.sw({ body })));
    expect(Buffer.from(envelope.data_base64 as string, 'base64').toString('utf8')).toContain('🚀');
  });

  it('accepts raw U+2028 and U+2029 inside a JSON string', async () => {
    const body = jsonBody({ text: 'line\u2028separator\u2029paragraph' });
    // JSON.stringify leaves them unescaped: the body holds the raw three-byte sequences.
    expect(body.includes(Buffer.from([0xe2, 0x80, 0xa8]))).toBe(true);
    expect(body.includes(Buffer.from([0xe2, 0x80, 0xa9]))).toBe(true);
    await h.expectAccepted(await h.send(h.sw({ body })));
  });

  it('accepts bytes that are not valid UTF-8 where the provider allows non-JSON (octet-stream)', async () => {
    const body = Buffer.concat([
      Buffer.from('{"type":"x","s":"'),
      Buffer.from([0xff, 0xfe, 0xc3, 0x28, 0xe2, 0x80, 0xed, 0xa0, 0x80]),
      Buffer.from('"}'),
    ]);
    expect(Buffer.from(body.toString('utf8')).equals(body)).toBe(false);
    const envelope = await h.expectAccepted(await h.send(h.sw({ provider: 'raw-bytes', body })));
    expect(envelope.datacontenttype).toBe('application/octet-stream');
  });

  it('accepts a content type with a charset parameter, and keeps it as sent for the destinations', async () => {
    const event = h.sw({ headers: { 'Content-Type': 'application/json; charset=UTF-8' } });
    const envelope = await h.expectAccepted(await h.send(event));
    expect(envelope.datacontenttype).toBe('application/json; charset=UTF-8');
  });

  it('keeps only the media type of a content type with characters a header cannot carry', async () => {
    const event = h.sw({ headers: { 'Content-Type': 'application/json; note=caf\u00e9' } });
    const envelope = await h.expectAccepted(await h.send(event));
    expect(envelope.datacontenttype).toBe('application/json');
  });
});

describe('edges: the last value accepted, and the first refused', () => {
  it('accepts a body of exactly maxBodyBytes', async () => {
    const body = bodyOfSize(MAX_BODY_BYTES);
    expect(body.length).toBe(MAX_BODY_BYTES);
    await h.expectAccepted(await h.send(h.sw({ body })));
  });

  it('refuses a body of maxBodyBytes + 1 with 413', async () => {
    const body = bodyOfSize(MAX_BODY_BYTES + 1);
    expect(body.length).toBe(MAX_BODY_BYTES + 1);
    await h.expectRejected(await h.send(h.sw({ body })), { status: 413, reason: 'body_too_large' });
  });

  it('accepts a GitHub body of exactly maxBodyBytes', async () => {
    await h.expectAccepted(await h.send(h.github({ body: bodyOfSize(MAX_BODY_BYTES) })));
  });

  it('refuses a GitHub body of maxBodyBytes + 1 with 413', async () => {
    const sent = await h.send(h.github({ body: bodyOfSize(MAX_BODY_BYTES + 1) }));
    await h.expectRejected(sent, { status: 413, reason: 'body_too_large' });
  });

  it('accepts a timestamp exactly the tolerance old', async () => {
    await h.expectAccepted(await h.send(h.sw({ timestamp: h.now() - TOLERANCE_SECONDS })));
  });

  it('accepts a timestamp exactly the tolerance ahead', async () => {
    await h.expectAccepted(await h.send(h.sw({ timestamp: h.now() + TOLERANCE_SECONDS })));
  });

  it('accepts an id of exactly 255 characters, and records it as the dedup key', async () => {
    const id = 'm'.repeat(255);
    const envelope = await h.expectAccepted(await h.send(h.sw({ id })));
    expect(envelope.dedupkey).toBe(id);
  });

  it('accepts an id using every allowed punctuation character (all but `.` and `,`)', async () => {
    const id = 'msg_!"#$%&\'()*+-/:;<=>?@[\\]^_`{|}~';
    const envelope = await h.expectAccepted(await h.send(h.sw({ id })));
    expect(envelope.dedupkey).toBe(id);
  });
});
