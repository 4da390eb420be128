import { describe, expect, it } from 'vitest';
import { buildEnvelope, type EnvelopeInput, serializeEnvelope } from '../../../../lambdas/core/envelope';
import { parseEnvelope } from '../../../../lambdas/core/envelope-schema';

const input = (overrides: Partial<EnvelopeInput> = {}): EnvelopeInput => ({
  provider: 'github',
  dedupKey: 'd-1',
  deliveryId: 'delivery-1',
  eventType: 'push',
  contentType: 'application/json',
  payloadSha256: 'a'.repeat(64),
  body: Buffer.from('{"x":1}'),
  receivedAtMs: Date.UTC(2026, 10, 30),
  occurredAtMs: Date.UTC(2026, 10, 29),
  ...overrides,
});

/** A message as the verify Lambda writes it, with `change` applied to its JSON. */
const message = (change: (json: Record<string, unknown>) => void, overrides?: Partial<EnvelopeInput>) => {
  const json = JSON.parse(serializeEnvelope(buildEnvelope(input(overrides)))) as Record<string, unknown>;
  change(json);
  return JSON.stringify(json);
};

describe('parseEnvelope', () => {
  it('reads back what the verify Lambda writes, inline or by reference', () => {
    expect(parseEnvelope(serializeEnvelope(buildEnvelope(input())))).toEqual(buildEnvelope(input()));
    const byRef = buildEnvelope(
      input({ dataref: 's3://bucket/payloads/github/aaa', occurredAtMs: undefined }),
    );
    expect(parseEnvelope(serializeEnvelope(byRef))).toEqual(byRef);
  });

  it('drops fields the envelope does not define', () => {
    expect(parseEnvelope(message((json) => Object.assign(json, { extra: 'x' })))).toEqual(
      buildEnvelope(input()),
    );
  });

  it.each<[string, (json: Record<string, unknown>) => void]>([
    ['another specversion', (json) => Object.assign(json, { specversion: '0.3' })],
    ['an empty id', (json) => Object.assign(json, { id: '' })],
    ['an id that is not {provider}:{dedupkey}', (json) => Object.assign(json, { id: 'github:other' })],
    ['a source outside webhook-inbox/', (json) => Object.assign(json, { source: 'elsewhere/github' })],
    ['an empty type', (json) => Object.assign(json, { type: '' })],
    ['a time that is not ISO 8601', (json) => Object.assign(json, { time: 'yesterday' })],
    ['an empty content type', (json) => Object.assign(json, { datacontenttype: '' })],
    ['data_base64 that is not base64', (json) => Object.assign(json, { data_base64: 'not base64!' })],
    ['both data_base64 and dataref', (json) => Object.assign(json, { dataref: 's3://bucket/key' })],
    ['neither data_base64 nor dataref', (json) => delete json.data_base64],
    [
      'a dataref that is not s3://',
      (json) => Object.assign(json, { dataref: 'https://x' }, { data_base64: undefined }),
    ],
    ['an empty provider', (json) => Object.assign(json, { provider: '' })],
    ['an empty dedupkey', (json) => Object.assign(json, { dedupkey: '' })],
    ['a deliveryid that is not a string', (json) => Object.assign(json, { deliveryid: 7 })],
    ['an occurredat that is not ISO 8601', (json) => Object.assign(json, { occurredat: '29 Nov' })],
    [
      'a sha-256 that is not 64 lowercase hex digits',
      (json) => Object.assign(json, { payloadsha256: 'A'.repeat(64) }),
    ],
    ['a negative byte count', (json) => Object.assign(json, { payloadbytes: -1 })],
    ['a fractional byte count', (json) => Object.assign(json, { payloadbytes: 1.5 })],
  ])('rejects %s', (_, change) => {
    expect(parseEnvelope(message(change))).toBeUndefined();
  });

  it('rejects a body that is not JSON', () => {
    expect(parseEnvelope('{"specversion":')).toBeUndefined();
  });
});
