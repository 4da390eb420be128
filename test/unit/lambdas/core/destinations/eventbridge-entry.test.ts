// The PutEvents entry for a delivery: its Source, DetailType and Detail, EventBridge's own size formula,
// and where the entry stops carrying the event and carries an S3 reference instead.
import { describe, expect, it } from 'vitest';
import {
  entrySize,
  eventBridgeDetailType,
  eventBridgeEntry,
  fitsOneEntry,
  MAX_DETAIL_DEPTH,
  MAX_ENTRY_BYTES,
} from '../../../../../lambdas/core/destinations/eventbridge-entry';
import { outboundDelivery } from '../../../../support/outbound-delivery';

const BUS = 'arn:aws:events:eu-west-1:123456789012:event-bus/partner-events';

const detailOf = (delivery = outboundDelivery(), ref?: string) =>
  JSON.parse(eventBridgeEntry(delivery, BUS, ref).Detail) as Record<string, unknown>;

describe('the entry for a delivery', () => {
  it('names the provider in Source, the event type in DetailType, the bus, and the receive time', () => {
    const entry = eventBridgeEntry(outboundDelivery(), BUS);
    expect(entry).toMatchObject({
      EventBusName: BUS,
      Source: 'webhook-inbox.github',
      DetailType: 'pull_request',
      Time: new Date(Date.UTC(2026, 10, 30, 12, 0, 0, 250)),
    });
  });

  it('carries the parsed event and the delivery facts in Detail', () => {
    const delivery = outboundDelivery({ occurredAtMs: Date.UTC(2026, 10, 30, 11, 59, 58) });
    expect(detailOf(delivery)).toEqual({
      event: { action: 'opened', number: 7 },
      delivery: {
        provider: 'github',
        eventType: 'pull_request',
        dedupKey: 'f1e2d3c4-0000-4000-8000-000000000001',
        deliveryId: 'f1e2d3c4-0000-4000-8000-000000000001',
        receivedAt: '2026-11-30T12:00:00.250Z',
        occurredAt: '2026-11-30T11:59:58.000Z',
        payloadSha256: delivery.envelope.payloadsha256,
        payloadBytes: delivery.body.length,
        webhookId: delivery.webhookId,
        contentType: 'application/json',
      },
    });
  });

  it('leaves out the delivery id and occurrence time the provider did not give', () => {
    const facts = detailOf(outboundDelivery({ deliveryId: undefined })).delivery as Record<string, unknown>;
    expect(Object.keys(facts)).not.toContain('deliveryId');
    expect(Object.keys(facts)).not.toContain('occurredAt');
  });

  it('puts the body JSON in verbatim, so integers past 2^53 reach the consumer unrounded', () => {
    const body = '{ "id": 9007199254740993,\n  "amount": -9223372036854775808 }';
    const { Detail } = eventBridgeEntry(outboundDelivery({ body }), BUS);
    expect(Detail.startsWith(`{"event":${body},"delivery":{`)).toBe(true);
    expect(() => JSON.parse(Detail)).not.toThrow();
  });

  it.each([
    ['a Slack form', 'payload=%7B%22type%22%3A%22block_actions%22%7D'],
    ['bytes that are not UTF-8', Buffer.from([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xff, 0x22, 0x7d])],
    ['an empty body', ''],
    ['an integer past int64, which PutEvents refuses', '{"id": 9223372036854775808}'],
    ['an integer below int64', '[-9223372036854775809]'],
    [
      `nesting past ${MAX_DETAIL_DEPTH} levels with the Detail's own`,
      `${'['.repeat(1100)}${']'.repeat(1100)}`,
    ],
  ])('sends %s as body_base64 instead of event', (_, body) => {
    const delivery = outboundDelivery({ body });
    const detail = detailOf(delivery);
    expect(detail.body_base64).toBe(delivery.body.toString('base64'));
    expect(detail).not.toHaveProperty('event');
    expect(detail.delivery).toMatchObject({ payloadBytes: delivery.body.length });
  });

  it.each([
    ['digits of a fraction or an exponent', '{"x": 1.23456789012345678901234, "y": 2e400000000000000000000}'],
    ['digits inside strings', '{"big": "99999999999999999999999", "q": "\\"12345678901234567890123\\""}'],
    ['nesting that just fits', `${'['.repeat(MAX_DETAIL_DEPTH - 1)}${']'.repeat(MAX_DETAIL_DEPTH - 1)}`],
  ])('keeps JSON whose %s are within the limits as event', (_, body) => {
    expect(detailOf(outboundDelivery({ body }))).toHaveProperty('event');
  });

  it('with a reference, carries eventRef and the facts instead of the body', () => {
    const detail = detailOf(outboundDelivery(), 's3://payloads/payloads/github/abc');
    expect(detail.eventRef).toBe('s3://payloads/payloads/github/abc');
    expect(detail).not.toHaveProperty('event');
    expect(detail).not.toHaveProperty('body_base64');
    expect(detail.delivery).toMatchObject({ provider: 'github', eventType: 'pull_request' });
  });
});

describe('the DetailType', () => {
  it('is the event type when it is 1 to 128 characters', () => {
    const type = `x${'.a'.repeat(63)}z`;
    expect(type).toHaveLength(128);
    expect(eventBridgeDetailType(type)).toBe(type);
  });

  it('cuts a longer type to 127 characters and a mark, the exact type staying in the detail', () => {
    const type = 'a'.repeat(200);
    const delivery = outboundDelivery({ eventType: type });
    const entry = eventBridgeEntry(delivery, BUS);
    expect(entry.DetailType).toBe(`${'a'.repeat(127)}\u2026`);
    expect(entry.DetailType).toHaveLength(128);
    expect((JSON.parse(entry.Detail) as { delivery: { eventType: string } }).delivery.eventType).toBe(type);
  });

  it('never cuts between the halves of a surrogate pair', () => {
    const type = `${'a'.repeat(126)}🚀${'b'.repeat(10)}`;
    const cut = eventBridgeDetailType(type);
    expect(cut).toBe(`${'a'.repeat(126)}\u2026`);
    expect(Buffer.from(cut, 'utf8').toString('utf8')).toBe(cut);
  });

  it('is "unknown" for an empty type, and has no control characters or lone surrogates', () => {
    expect(eventBridgeDetailType('')).toBe('unknown');
    expect(eventBridgeDetailType('a\u0000b\u007f\uD800c🚀')).toBe('a\uFFFDb\uFFFD\uFFFDc🚀');
  });
});

describe('the entry size', () => {
  it('is 14 for a Time plus the UTF-8 bytes of Source, DetailType, Detail and Resources, not the bus', () => {
    const entry = { Source: 'a', DetailType: 'ü', Detail: '{"k":"€"}', Resources: ['arn:x', 'é'] };
    expect(entrySize(entry)).toBe(1 + 2 + 11 + 5 + 2);
    expect(entrySize({ ...entry, Time: new Date(0) })).toBe(14 + 21);
    expect(entrySize(eventBridgeEntry(outboundDelivery(), BUS))).toBe(
      entrySize(eventBridgeEntry(outboundDelivery(), 'a-much-longer-bus-name-that-is-not-counted')),
    );
  });

  it('counts a real entry as its fields encode in UTF-8', () => {
    const entry = eventBridgeEntry(outboundDelivery({ body: '{"name":"Zoë 🚀"}' }), BUS);
    const bytes = (text: string) => new TextEncoder().encode(text).length;
    expect(entrySize(entry)).toBe(14 + bytes(entry.Source) + bytes(entry.DetailType) + bytes(entry.Detail));
  });

  it('fits at exactly 256 KiB and not one byte more', () => {
    const padded = (n: number) => outboundDelivery({ body: `{"p":"${'x'.repeat(n)}"}` });
    // Measured with a body of as many digits in payloadBytes as the one at the limit.
    const overhead = entrySize(eventBridgeEntry(padded(200_000), BUS)) - 200_000;
    const atLimit = eventBridgeEntry(padded(MAX_ENTRY_BYTES - overhead), BUS);
    expect(MAX_ENTRY_BYTES).toBe(262_144);
    expect(entrySize(atLimit)).toBe(262_144);
    expect(fitsOneEntry(atLimit)).toBe(true);
    const over = padded(MAX_ENTRY_BYTES - overhead + 1);
    expect(fitsOneEntry(eventBridgeEntry(over, BUS))).toBe(false);
    expect(fitsOneEntry(eventBridgeEntry(over, BUS, 's3://payloads/payloads/github/abc'))).toBe(true);
  });
});
