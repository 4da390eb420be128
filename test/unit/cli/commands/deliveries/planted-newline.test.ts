// A planted field with a newline in it: in `deliveries list` each delivery is one line of the table, so a
// raw newline in a cell prints a second line that reads as a row the inbox never held.
import { stripVTControlCharacters } from 'node:util';
import { describe, expect, it } from 'vitest';
import { listTable } from '../../../../../cli/commands/deliveries/command';
import type { InboxRecord } from '../../../../../lambdas/core/inbox';

const planted = {
  pk: 'github#key',
  provider: 'github',
  dedupKey: 'key',
  status: 'failed',
  eventType: 'push\n2026-12-02 07:00:00  github  FAKE-ROW  processed',
  payloadSha256: 'a'.repeat(64),
  receivedAt: '2026-12-01T00:00:00.000Z',
  attempts: 1,
  expiresAt: 1_900_000_000,
} as unknown as InboxRecord;

describe('deliveries list: a planted newline', () => {
  it('keeps one delivery on one line of the table', () => {
    const lines = stripVTControlCharacters(listTable([planted])).split('\n');
    // Top border, head, one row, bottom border.
    expect(lines).toHaveLength(4);
    expect(lines.filter((line) => line.includes('FAKE-ROW'))).toHaveLength(1);
  });
});
