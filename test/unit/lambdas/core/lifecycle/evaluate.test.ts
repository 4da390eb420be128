// The in-memory evaluation against DynamoDB's documented semantics, where an emulator may not say.
import { describe, expect, it } from 'vitest';
import { holds } from '../../../../../lambdas/core/lifecycle/evaluate';
import { lt } from '../../../../../lambdas/core/lifecycle/expression';

describe('holds', () => {
  it('orders strings by their UTF-8 bytes, as DynamoDB collates them', () => {
    // U+FF61 is EF BD A1 in UTF-8, U+1F600 is F0 9F 98 80: the emoji is the greater. UTF-16 code units
    // (JavaScript's `<`) put the emoji's high surrogate 0xD83D below 0xFF61 and say the opposite.
    expect(holds(lt('name', '\u{1F600}'), { name: '\uFF61' })).toBe(true);
    expect(holds(lt('name', '\uFF61'), { name: '\u{1F600}' })).toBe(false);
  });
});
