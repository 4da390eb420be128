import { Paddle } from '@paddle/paddle-node-sdk';
import { describe, expect, it } from 'vitest';
import { normalizeHeaders } from '../../../../../lambdas/core/headers';
import { paddle } from '../../../../../lambdas/core/schemes/paddle';
import { CONTEXT, describeSchemeContract, NOW, withJsonField } from '../../../../support/scheme-contract';

describeSchemeContract({
  scheme: paddle,
  signatureHeader: 'Paddle-Signature',
  withSignature: (value, signature) => `${value.split(';')[0]};h1=${signature}`,
  encoding: 'hex',
  unknownVersionsOnly: (value) => `${value.split(';')[0]};h2=${value.split('h1=')[1]}`,
  withExtraSignature: (value, bogus) => `${value};h1=${bogus}`,
  withSignedFields: (body, _timestamp, id) => withJsonField(body, 'notification_id', id),
});

// From paddle-node-sdk's own validator tests (webhooks-validator.node.test.ts), verbatim.
const SDK_VECTOR = {
  secret: 'VALID_SECRET',
  timestamp: 1698796800,
  body: '{"data": ["1", "2"]}',
  header: 'ts=1698796800;h1=a300428748dce5c70e4da19bffd60769591ea969c99dea3105d0ec9612cf43f9',
  rotatingBody: '{"data": "value"}',
  rotatingHeader:
    'ts=1698796800;h1=28981e941fae76e53db32f3d2a83cb69db41476595e84e1970a1b5d98f62b261;h1=28981e941fae76e53db32f3d2a83cb69db41476595e84e1970a1b5d98f62b261;h2=RANDOM_HASH',
};

const SECRET = paddle.generateSecret();
const notification = (overrides: Record<string, unknown> = {}) =>
  Buffer.from(
    JSON.stringify({
      event_id: 'evt_01hv8wptq8987qeep44cyrewp9',
      event_type: 'transaction.billed',
      occurred_at: '2024-04-12T10:18:47.635628Z',
      notification_id: 'ntf_01hv8wpts6fg0hhc1e5gf2rmxm',
      data: { id: 'txn_01hv8wnwpcw9ae9s3jh6a8kz0t', status: 'billed' },
      ...overrides,
    }),
  );
const verify = (body: Buffer | string, header: string, secrets = [SECRET], nowSeconds = NOW) =>
  paddle.verify(
    {
      body: Buffer.isBuffer(body) ? body : Buffer.from(body),
      headers: normalizeHeaders({ 'Paddle-Signature': header }),
    },
    secrets,
    { ...CONTEXT, nowSeconds },
  );
const header = (body: Buffer, timestamp = NOW, secret = SECRET) =>
  paddle.sign({ body, secret, timestamp, id: '' })['Paddle-Signature']!;

describe('paddle', () => {
  it("matches paddle-node-sdk's test vector (authentic, though that body has no notification_id)", () => {
    const { secret, timestamp, body } = SDK_VECTOR;
    expect(verify(body, SDK_VECTOR.header, [secret], timestamp)).toEqual({
      ok: false,
      reason: 'missing_event_id',
    });
    expect(verify(body, SDK_VECTOR.header, ['INVALID_VALID_SECRET'], timestamp)).toEqual({
      ok: false,
      reason: 'bad_signature',
    });
    expect(verify('{ "data": [ "1", "2" ]}', SDK_VECTOR.header, [secret], timestamp)).toEqual({
      ok: false,
      reason: 'bad_signature',
    });
    expect(header(Buffer.from(body), timestamp, secret)).toBe(SDK_VECTOR.header);
  });

  it("matches paddle-node-sdk's rotation vector, ignoring its unknown h2", () => {
    const { secret, timestamp } = SDK_VECTOR;
    expect(verify(SDK_VECTOR.rotatingBody, SDK_VECTOR.rotatingHeader, [secret], timestamp)).toEqual({
      ok: false,
      reason: 'missing_event_id',
    });
  });

  it('takes the dedup key from notification_id and the event type from event_type', () => {
    const body = notification();
    const outcome = verify(body, header(body));
    if (!outcome.ok) throw new Error(outcome.reason);
    expect(outcome.delivery.dedupKey).toBe('ntf_01hv8wpts6fg0hhc1e5gf2rmxm');
    expect(outcome.delivery.deliveryId).toBe('ntf_01hv8wpts6fg0hhc1e5gf2rmxm');
    expect(outcome.delivery.eventType).toBe('transaction.billed');
    expect(outcome.delivery.timestamp).toBe(NOW);
  });

  it.each([
    ['not JSON', Buffer.from('notification_id=ntf_1'), 'not_json'],
    ['without notification_id', notification({ notification_id: undefined }), 'missing_event_id'],
    ['with a numeric notification_id', notification({ notification_id: 42 }), 'missing_event_id'],
    [
      'with a notification_id holding a space',
      notification({ notification_id: 'ntf 1' }),
      'missing_event_id',
    ],
  ])('answers an authentic body %s with %s', (_name, body, reason) => {
    expect(verify(body, header(body))).toEqual({ ok: false, reason });
  });

  it.each([
    ['hello', 'malformed_timestamp'],
    ['1700000000000', 'malformed_timestamp'],
    ['1.7e9', 'malformed_timestamp'],
  ])('rejects ts=%s as %s', (ts, reason) => {
    const body = notification();
    expect(verify(body, header(body).replace(/^ts=\d+/, `ts=${ts}`))).toEqual({ ok: false, reason });
  });

  it('rejects stale, future and swapped timestamps', () => {
    const body = notification();
    expect(verify(body, header(body, NOW - 301))).toEqual({ ok: false, reason: 'stale_timestamp' });
    expect(verify(body, header(body, NOW + 301))).toEqual({ ok: false, reason: 'future_timestamp' });
    expect(verify(body, header(body).replace(/^ts=\d+/, `ts=${NOW - 5}`))).toEqual({
      ok: false,
      reason: 'bad_signature',
    });
  });

  it('rejects a header with two timestamps, or none', () => {
    const body = notification();
    expect(verify(body, `ts=${NOW - 1};${header(body)}`)).toEqual({
      ok: false,
      reason: 'malformed_timestamp',
    });
    expect(verify(body, header(body).replace(/^ts=\d+;/, ''))).toEqual({
      ok: false,
      reason: 'malformed_signature',
    });
  });

  it('rejects a header split with commas, Stripe-style', () => {
    const body = notification();
    expect(verify(body, header(body).replace(';', ','))).toEqual({
      ok: false,
      reason: 'malformed_timestamp',
    });
  });

  it('issues secrets in the pdl_ntfset_ format', () => {
    expect(paddle.generateSecret()).toMatch(/^pdl_ntfset_[0-9a-hjkmnp-tv-z]{26}_[A-Za-z0-9_-]{32}$/);
  });

  it('is accepted by @paddle/paddle-node-sdk (Webhooks.unmarshal and isSignatureValid)', async () => {
    // The SDK allows five seconds of age and only verifies: it has no signer to check the other way.
    const sdk = new Paddle('pdl_sdbx_apikey_for_tests_only');
    const body = notification({ event_type: 'webhook_inbox.cross_check' });
    const ours = header(body, Math.floor(Date.now() / 1000));
    expect(await sdk.webhooks.isSignatureValid(body.toString(), SECRET, ours)).toBe(true);
    const event = await sdk.webhooks.unmarshal(body.toString(), SECRET, ours);
    expect(event.notificationId).toBe('ntf_01hv8wpts6fg0hhc1e5gf2rmxm');
    expect(await sdk.webhooks.isSignatureValid(`${body.toString()} `, SECRET, ours)).toBe(false);
  });
});
