// What `deliveries show` prints of the attempt log: one row per attempt, oldest first, with its code,
// the SQS receive and what followed.
import { describe, expect, it } from 'vitest';
import { attemptRows } from '../../../../../cli/commands/deliveries/command';

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
