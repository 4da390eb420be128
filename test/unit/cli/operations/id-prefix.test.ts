// Ids given as prefixes: a unique one finds its item, too short a one says the minimum, an ambiguous one
// lists its matches, all as usage errors.
import { describe, expect, it } from 'vitest';
import { byIdPrefix, MIN_PREFIX_CHARS } from '../../../../cli/operations/id-prefix';
import { UsageError } from '../../../../cli/shared/output';

const ids = [
  '3f2a9c1e-0000-4000-8000-000000000001',
  '3f2a9c1e-0000-4000-8000-000000000002',
  '7b6d5e4f-0000-4000-8000-000000000003',
];
const find = (wanted: string) => byIdPrefix(ids, (id) => id, wanted, 'message id');

describe('byIdPrefix', () => {
  it('finds an id given whole, or by a unique prefix (a shortened table cell too)', () => {
    expect(find(ids[1] as string)).toBe(ids[1]);
    expect(find('7b6d5e')).toBe(ids[2]);
    expect(find('7b6d5e4f-00…')).toBe(ids[2]);
    expect(find('aaaaaaaa')).toBeUndefined();
  });

  it(`refuses a prefix under ${MIN_PREFIX_CHARS} characters, saying the minimum`, () => {
    expect(() => find('7b6d5')).toThrow(UsageError);
    expect(() => find('7b6d5')).toThrow(`at least ${MIN_PREFIX_CHARS} characters (it has 5)`);
  });

  it('refuses an ambiguous prefix, listing the ids it matches', () => {
    expect(() => find('3f2a9c1e')).toThrow(UsageError);
    expect(() => find('3f2a9c1e')).toThrow(
      `"3f2a9c1e" matches 2 message ids: ${ids[0]}, ${ids[1]}; give more`,
    );
  });
});
