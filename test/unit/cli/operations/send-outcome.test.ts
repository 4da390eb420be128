// `send` waiting for the outcome: each failed attempt is told once, from the record's attempt log, even
// when the retry ran between two reads and the record was never seen `failed`.
import { describe, expect, it } from 'vitest';
import { describeProgress, waitForOutcome } from '../../../../cli/operations/send-outcome';
import type { InboxRecord } from '../../../../lambdas/core/inbox';

const record = (fields: Partial<InboxRecord>) =>
  ({ pk: 'p#k', provider: 'p', dedupKey: 'k', ...fields }) as InboxRecord;

function reads(...records: InboxRecord[]) {
  let n = 0;
  return async () => records[Math.min(n++, records.length - 1)];
}

const FAILED = '2026-12-02T07:00:01.000Z|demo_transient_failure|1|failed';

describe('waitForOutcome', () => {
  it('tells a failed attempt that was retried between two reads, before the outcome', async () => {
    const told: string[] = [];
    const outcome = await waitForOutcome(
      reads(
        record({ status: 'processing' }),
        record({
          status: 'processed',
          attempts: 1,
          lastErrorCode: 'demo_transient_failure',
          attemptLog: [FAILED],
        }),
      ),
      { timeoutMs: 10_000, pollMs: 0 },
      (attempt, n) => told.push(describeProgress(attempt, n)),
    );
    expect(told).toEqual([
      'failed (demo_transient_failure), 1 failed attempt so far; retried on the schedule',
    ]);
    expect(outcome).toMatchObject({ result: 'processed', attempts: 1 });
  });

  it('tells each failed attempt once however often the record is read', async () => {
    const second = '2026-12-02T07:00:03.000Z|http_500|2|failed';
    const told: number[] = [];
    await waitForOutcome(
      reads(
        record({ status: 'failed', attempts: 1, attemptLog: [FAILED] }),
        record({ status: 'failed', attempts: 1, attemptLog: [FAILED] }),
        record({ status: 'failed', attempts: 2, attemptLog: [FAILED, second] }),
        record({
          status: 'dead-lettered',
          attempts: 3,
          attemptLog: [FAILED, second, '2026-12-02T07:00:09.000Z|http_500|3|dead-lettered'],
        }),
      ),
      { timeoutMs: 10_000, pollMs: 0 },
      (_attempt, n) => told.push(n),
    );
    expect(told).toEqual([1, 2]);
  });
});
