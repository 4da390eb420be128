import { describe, expect, it } from 'vitest';
import {
  constantTimeEqual,
  prefixedSignature,
  signedEventId,
  stringAt,
  valueAt,
} from '../../../../../lambdas/core/schemes/primitives';

const HEX_32 = 'ab'.repeat(32);

describe('shared scheme primitives', () => {
  it('compares buffers of different lengths as unequal instead of throwing', () => {
    expect(constantTimeEqual(Buffer.from('abc'), Buffer.from('abcd'))).toBe(false);
    expect(constantTimeEqual(Buffer.from('abcd'), Buffer.from('abcd'))).toBe(true);
  });

  it.each([
    ['the expected version', 'v0=', `v0=${HEX_32}`, 'ok'],
    ['another version tag', 'v0=', `v1=${HEX_32}`, 'no_supported_signature'],
    ['an algorithm tag', 'sha256=', `sha1=${'ab'.repeat(20)}`, 'no_supported_signature'],
    ['no tag at all', 'v0=', HEX_32, 'malformed_signature'],
    ['the tag with a garbled digest', 'v0=', 'v0=xyz', 'malformed_signature'],
    ['no prefix expected', '', HEX_32, 'ok'],
  ])('reads a prefixed signature with %s', (_name, prefix, value, expected) => {
    const parsed = prefixedSignature(value, prefix, 'hex', 32);
    expect(parsed.ok ? 'ok' : parsed.reason).toBe(expected);
  });

  it('does not take a bare base64 signature ending in = for a version tag', () => {
    const bare = Buffer.alloc(32, 0x41).toString('base64');
    expect(bare).toMatch(/^[A-Za-z0-9]+=$/);
    const parsed = prefixedSignature(bare, 'sha256=', 'base64', 32);
    expect(parsed.ok ? 'ok' : parsed.reason).toBe('malformed_signature');
  });

  it('reads an event id from a signed JSON body, or says why not', () => {
    expect(signedEventId(Buffer.from('{"a":{"id":"evt_1"}}'), ['a', 'id'])).toEqual({
      ok: true,
      value: { id: 'evt_1', json: { a: { id: 'evt_1' } } },
    });
    expect(signedEventId(Buffer.from('{"a":'), ['a'])).toEqual({ ok: false, reason: 'not_json' });
    expect(signedEventId(Buffer.from('{"a":""}'), ['a'])).toEqual({ ok: false, reason: 'missing_event_id' });
    expect(signedEventId(Buffer.from('{"a":"x".}'), ['a'])).toEqual({ ok: false, reason: 'not_json' });
  });

  it('walks objects but not arrays or primitives', () => {
    expect(valueAt({ a: [{ b: 1 }] }, ['a', '0', 'b'])).toBeUndefined();
    expect(valueAt({ a: { b: 0 } }, ['a', 'b'])).toBe(0);
    expect(valueAt('text', ['length'])).toBeUndefined();
    expect(stringAt({ a: 5 }, ['a'])).toBeUndefined();
  });
});
