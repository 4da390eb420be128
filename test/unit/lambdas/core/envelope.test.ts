import { describe, expect, it } from 'vitest';
import { buildEnvelope, envelopeAttributes, serializeEnvelope } from '../../../../lambdas/core/envelope';

// Sender-chosen text that SQS refuses or that emulators choke on: an emoji (astral), U+FFFE (a
// non-character), a NUL, U+2028, and a lone surrogate.
const HOSTILE_TYPE = 'issues.🚀\uFFFE\u0000\u2028\uD800end';

const envelope = () =>
  buildEnvelope({
    provider: 'github',
    dedupKey: 'd-1',
    eventType: HOSTILE_TYPE,
    contentType: 'application/json',
    payloadSha256: 'a'.repeat(64),
    body: Buffer.from('{"x":"Zoë"}'),
    receivedAtMs: Date.UTC(2026, 10, 30),
  });

describe('the queue message for an envelope', () => {
  it('is plain ASCII JSON that parses back to exactly the same envelope', () => {
    const body = serializeEnvelope(envelope());
    expect(/^[\x20-\x7e]*$/.test(body)).toBe(true);
    expect(JSON.parse(body)).toEqual(envelope());
    expect((JSON.parse(body) as { type: string }).type).toBe(HOSTILE_TYPE);
  });

  it('puts only characters SQS accepts in the attributes, keeping the rest of the text', () => {
    const attributes = envelopeAttributes(envelope());
    const type = Object.values(attributes).find((value) => value.startsWith('issues.'));
    expect(type).toBe('issues.🚀\uFFFD\uFFFD\u2028\uFFFDend');
  });
});
