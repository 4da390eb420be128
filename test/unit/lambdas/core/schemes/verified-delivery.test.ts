// How a delivery's event type is read and checked: the sources a scheme names, in order, and the token
// rule applied to whichever one answers.
import { describe, expect, it } from 'vitest';
import {
  type EventTypeSource,
  VerifiedDelivery,
} from '../../../../../lambdas/core/schemes/verified-delivery';

const delivery = (
  source: EventTypeSource,
  headers: Record<string, string | string[]> = {},
  body: unknown = {},
) =>
  new VerifiedDelivery(
    Buffer.from(JSON.stringify(body)),
    'body-sha256',
    source,
    headers,
    undefined,
    undefined,
    0,
  );

const LINEAR: EventTypeSource = { firstOf: [{ header: 'linear-event' }, { jsonPath: ['type'] }] };

describe('VerifiedDelivery.readEventType', () => {
  it('reads the first source that names a type', () => {
    expect(delivery(LINEAR, { 'linear-event': 'Issue' }, { type: 'Comment' }).readEventType()).toEqual({
      ok: true,
      value: 'Issue',
    });
    expect(delivery(LINEAR, {}, { type: 'Comment' }).readEventType()).toEqual({ ok: true, value: 'Comment' });
    expect(delivery(LINEAR, { 'linear-event': '' }, { type: 'Comment' }).readEventType()).toEqual({
      ok: true,
      value: 'Comment',
    });
  });

  it('refuses a bad header instead of falling through to the body', () => {
    expect(delivery(LINEAR, { 'linear-event': 'Issue\u009b' }, { type: 'Comment' }).readEventType()).toEqual({
      ok: false,
      reason: 'bad_event_type',
    });
    expect(
      delivery(LINEAR, { 'linear-event': ['Issue', 'Issue'] }, { type: 'Comment' }).readEventType(),
    ).toEqual({ ok: false, reason: 'repeated_header' });
  });

  it('has no type, rather than a bad one, when the body does not say or is not JSON', () => {
    const source = { jsonPath: ['type'] };
    expect(delivery(source, {}, { type: 42 }).readEventType()).toEqual({ ok: true, value: undefined });
    const notJson = new VerifiedDelivery(
      Buffer.from('a=b'),
      'body-sha256',
      source,
      {},
      undefined,
      undefined,
      0,
    );
    expect(notJson.readEventType()).toEqual({ ok: true, value: undefined });
  });

  it.each([
    ['the longest allowed (256)', 'a'.repeat(256), true],
    ['one over (257)', 'a'.repeat(257), false],
    ['a Slack command', '/deploy', true],
    ['a Shopify topic', 'customers/data_request', true],
    ['a leading @', '@cmd', false],
    ['a leading -', '-x', false],
    ['a quote', 'a"b', false],
    ['a tab', 'a\tb', false],
  ])('with %s: %s', (_name, type, ok) => {
    const read = delivery({ jsonPath: ['type'] }, {}, { type }).readEventType();
    expect(read.ok).toBe(ok);
    expect(delivery({ jsonPath: ['type'] }, {}, { type }).eventType).toBe(ok ? type : undefined);
  });
});
