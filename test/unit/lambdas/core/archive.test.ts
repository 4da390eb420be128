// Where the archive keeps a delivery's bytes (core/archive.ts), from the envelope alone.
import { describe, expect, it } from 'vitest';
import { parseConfig } from '../../../../config';
import { archivePlan } from '../../../../lambdas/core/archive';
import { buildEnvelope } from '../../../../lambdas/core/envelope';

const NOW = Date.UTC(2026, 11, 1, 12);
const config = parseConfig({ providers: { stripe: { scheme: 'stripe' } }, archive: { inlineMaxBytes: 10 } });
const envelope = (body: string, dataref?: string) =>
  buildEnvelope({
    provider: 'stripe',
    dedupKey: 'evt_1',
    eventType: 'charge.succeeded',
    contentType: 'application/json; charset=utf-8',
    payloadSha256: 'ab'.repeat(32),
    body: Buffer.from(body),
    dataref,
    receivedAtMs: NOW - 1000,
    occurredAtMs: NOW - 5000,
  });

describe('archivePlan', () => {
  it('keeps a body up to inlineMaxBytes inline, with the envelope facts a replay needs', () => {
    expect(archivePlan(config, envelope('0123456789'), NOW)).toEqual({
      kind: 'with_lease',
      facts: {
        archivedAt: new Date(NOW).toISOString(),
        archiveContentType: 'application/json; charset=utf-8',
        occurredAt: new Date(NOW - 5000).toISOString(),
        archiveBody: Buffer.from('0123456789').toString('base64'),
      },
    });
  });

  it('gives a larger inline body an object of its own, and reuses the object a dataref names', () => {
    expect(archivePlan(config, envelope('0123456789a'), NOW)).toMatchObject({
      kind: 'object',
      key: `archive/stripe/${'ab'.repeat(32)}`,
    });
    expect(archivePlan(config, envelope('x', 's3://b/payloads/stripe/ab'), NOW)).toMatchObject({
      kind: 'with_lease',
      facts: { archiveRef: 's3://b/payloads/stripe/ab' },
    });
  });

  it('archives nothing with retention 0', () => {
    const off = parseConfig({ providers: { stripe: { scheme: 'stripe' } }, archive: { retentionDays: 0 } });
    expect(archivePlan(off, envelope('{}'), NOW)).toBeUndefined();
  });
});
