// What `deliveries show` prints of the attempt log: one row per attempt, oldest first, with its code,
// the SQS receive and what followed.
import { stripVTControlCharacters } from 'node:util';
import { describe, expect, it } from 'vitest';
import { attemptRows, showDetails } from '../../../../../cli/commands/deliveries/command';
import type { InboxRecord } from '../../../../../lambdas/core/inbox';

describe('deliveries show: attempts', () => {
  it('lists each logged attempt in time order with its code, receive and outcome', () => {
    const rows = attemptRows({
      attemptLog: [
        '2026-12-01T10:00:30.000Z|http_500|2|failed',
        '2026-12-01T10:00:01.000Z|timeout|1|failed',
        '2026-12-01T10:01:30.000Z|http_502||dead-lettered',
      ],
    });
    expect(rows.map((row) => row.slice(1))).toEqual([
      ['timeout', '1', 'retried'],
      ['http_500', '2', 'retried'],
      ['http_502', '-', 'dead-lettered'],
    ]);
    expect(rows[0]?.[0]).toContain('2026-12-01 10:00:01');
  });

  it('prints no rows for a record written before the log', () => {
    expect(attemptRows({})).toEqual([]);
  });
});

describe('deliveries show: the forward', () => {
  it('says the copies were queued for the destinations, not that the delivery was forwarded', () => {
    // CI's terminal may be coloured; the labels are then wrapped in dim codes.
    const out = stripVTControlCharacters(
      showDetails({
        pk: 'github#k',
        provider: 'github',
        dedupKey: 'k',
        status: 'processed',
        receivedAt: '2026-12-01T10:00:00.000Z',
        forwardedAt: '2026-12-01T10:00:01.000Z',
        attempts: 0,
        expiresAt: 1_900_000_000,
      } as InboxRecord),
    );
    expect(out).toMatch(/queued for destinations\s+│?\s*2026-12-01 10:00:01/);
    expect(out).not.toMatch(/^\W*forwarded\b/m);
  });
});
