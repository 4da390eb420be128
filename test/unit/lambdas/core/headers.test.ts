import { describe, expect, it } from 'vitest';
import { normalizeHeaders } from '../../../../lambdas/core/headers';

describe('normalizeHeaders', () => {
  it('lowercases names', () => {
    expect(normalizeHeaders({ 'X-Hub-Signature-256': 'a' })).toEqual({ 'x-hub-signature-256': 'a' });
  });

  it('keeps every copy of a repeated header from multiValueHeaders, which single headers would hide', () => {
    expect(normalizeHeaders({ 'X-Sig': 'b' }, { 'X-Sig': ['a', 'b'] })).toEqual({ 'x-sig': ['a', 'b'] });
  });

  it('merges names that differ only in case instead of letting one overwrite the other', () => {
    expect(normalizeHeaders({ 'X-Sig': 'a', 'x-sig': 'b' })).toEqual({ 'x-sig': ['a', 'b'] });
  });

  it('skips null values', () => {
    expect(normalizeHeaders({ a: null, b: 'x' }, null)).toEqual({ b: 'x' });
  });
});
