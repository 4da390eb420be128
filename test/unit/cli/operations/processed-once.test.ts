// The selftest's "processed exactly once" check against scripted inbox reads: a record that is processed
// and stays so passes; one that is processed again (a later processedAt) or that needed failed attempts
// fails, though its status says `processed` every time.
import { describe, expect, it } from 'vitest';
import { checkProcessedOnce } from '../../../../cli/operations/processed-once';
import type { InboxRecord } from '../../../../lambdas/core/inbox';

const TIMING = { waitMs: 1_000, settleMs: 1, pollMs: 1 };

const record = (fields: Partial<InboxRecord> = {}): InboxRecord => ({
  pk: 'stripe#evt_1',
  provider: 'stripe',
  dedupKey: 'evt_1',
  payloadSha256: 'a'.repeat(64),
  status: 'processed',
  receivedAt: '2026-01-01T00:00:00.000Z',
  processedAt: '2026-01-01T00:00:00.200Z',
  attempts: 0,
  expiresAt: 1_800_000_000,
  ...fields,
});

/** A reader that answers each read with the next record, repeating the last one. */
function reads(...records: (InboxRecord | undefined)[]) {
  let count = 0;
  const read = async () => records[Math.min(count++, records.length - 1)];
  return { read, count: () => count };
}

describe('checkProcessedOnce', () => {
  it('passes a record that is processed and unchanged after the settle period', async () => {
    const inbox = reads(record({ status: 'enqueued', processedAt: undefined }), record(), record());
    const outcome = await checkProcessedOnce(inbox.read, TIMING);
    expect(outcome.result).toBe('pass');
    expect(outcome.got).toMatch(/^processed once/);
    expect(inbox.count()).toBe(3); // the settle re-read happened
  });

  it('fails a record that is processed again after it was first seen processed (processedAt changes)', async () => {
    const inbox = reads(record(), record({ processedAt: '2026-01-01T00:00:01.700Z' }));
    const outcome = await checkProcessedOnce(inbox.read, TIMING);
    expect(outcome).toEqual({
      result: 'fail',
      got: 'processed, then processed again (processedAt 2026-01-01T00:00:00.200Z → 2026-01-01T00:00:01.700Z)',
    });
  });

  it('fails a record that a new processing has leased again after it was processed', async () => {
    const inbox = reads(record(), record({ processingToken: 'second-worker' }));
    expect(await checkProcessedOnce(inbox.read, TIMING)).toMatchObject({
      result: 'fail',
      got: 'processed, then processed again (a new processing token)',
    });
  });

  it('fails a record processed only after a failed attempt', async () => {
    const inbox = reads(record({ attempts: 1, lastErrorCode: 'handler_error' }));
    expect(await checkProcessedOnce(inbox.read, TIMING)).toEqual({
      result: 'fail',
      got: 'processed after 1 failed attempt(s) (handler_error)',
    });
  });

  it('fails a dead-lettered record, and one never processed within the wait', async () => {
    const dead = reads(record({ status: 'dead-lettered', lastErrorCode: 'schema_mismatch' }));
    expect(await checkProcessedOnce(dead.read, TIMING)).toEqual({
      result: 'fail',
      got: 'dead-lettered: schema_mismatch',
    });
    const stuck = reads(record({ status: 'enqueued', processedAt: undefined }));
    expect(await checkProcessedOnce(stuck.read, { ...TIMING, waitMs: 20 })).toMatchObject({
      result: 'fail',
      got: 'enqueued after 0.02s',
    });
  });
});
