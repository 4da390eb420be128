import { describe, expect, it } from 'vitest';
import {
  largestInlineBodyBytes,
  maximumMessageSizeOf,
  sqsMessageBytes,
  withDataref,
} from '../../../../../lambdas/core/destinations/sqs-message-size';
import { buildEnvelope, serializeEnvelope } from '../../../../../lambdas/core/envelope';

const envelope = (body: Buffer) =>
  buildEnvelope({
    provider: 'github',
    dedupKey: 'd-1',
    eventType: 'push',
    contentType: 'application/json',
    payloadSha256: 'ab'.repeat(32),
    body,
    receivedAtMs: 0,
  });

describe('sqsMessageBytes', () => {
  it('counts the body and each attribute’s name, type and value, as SQS does', () => {
    expect(sqsMessageBytes('héllo', {})).toBe(6);
    expect(sqsMessageBytes('x', { provider: 'github' })).toBe(1 + 8 + 6 + 6);
  });
});

describe('maximumMessageSizeOf', () => {
  it('reads MaximumMessageSize from a GetQueueAttributes answer, within SQS’s bounds', () => {
    expect(maximumMessageSizeOf({ MaximumMessageSize: '262144' })).toBe(262_144);
    expect(maximumMessageSizeOf({ MaximumMessageSize: '1048576' })).toBe(1_048_576);
    for (const odd of [undefined, {}, { MaximumMessageSize: 'big' }, { MaximumMessageSize: '512' }]) {
      expect(maximumMessageSizeOf(odd)).toBeUndefined();
    }
  });
});

describe('withDataref', () => {
  it('puts dataref where data_base64 stood, and changes nothing else', () => {
    const inline = envelope(Buffer.from('{"a":1}'));
    const moved = withDataref(inline, 's3://bucket/payloads/github/ab');
    const { data_base64: _inline, ...facts } = inline;
    expect(moved).toEqual({ ...facts, dataref: 's3://bucket/payloads/github/ab' });
    expect(Object.keys(moved).indexOf('dataref')).toBe(Object.keys(inline).indexOf('data_base64'));
  });
});

describe('largestInlineBodyBytes', () => {
  it('is a body whose inline envelope still fits the queue, within a few bytes of the largest', () => {
    const attributes = { provider: 'github' };
    const empty = sqsMessageBytes(serializeEnvelope({ ...envelope(Buffer.alloc(0)) }), attributes);
    const largest = largestInlineBodyBytes(262_144, empty);
    const fits = (n: number) =>
      sqsMessageBytes(serializeEnvelope(envelope(Buffer.alloc(n, 1))), attributes) <= 262_144;
    expect(fits(largest)).toBe(true);
    expect(fits(largest + 9)).toBe(false);
  });
});
