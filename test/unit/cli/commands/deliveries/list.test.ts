// What `deliveries list` prints under its table: the count, the next page, and, for a page read from the
// listing index, that the index is eventually consistent (a fresh delivery may not show yet).
import { describe, expect, it } from 'vitest';
import { listFooter } from '../../../../../cli/commands/deliveries/command';
import { INDEX_LAG_NOTE } from '../../../../../lambdas/adapters/dynamo-inbox-listing';

describe('deliveries list: the footer', () => {
  it('says the listing index may not show a delivery received or changed in the last second or two', () => {
    const lines = listFooter({ note: INDEX_LAG_NOTE, cursor: 'abc' }, 2, 'local');
    expect(lines[0]).toMatch(/^2 deliveries, newest first \(local\)/);
    expect(lines).toContain('More: the same command with --cursor abc');
    expect(lines.at(-1)).toMatch(
      /eventually consistent: a delivery received or changed in the last second or two may not show yet/,
    );
  });

  it('adds no note to a page that did not come from the index (a scan)', () => {
    expect(listFooter({}, 1, 'local')).toHaveLength(1);
  });
});
