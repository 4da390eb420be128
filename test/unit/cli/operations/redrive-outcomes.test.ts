// What `dlq redrive` says became of a moved delivery, read from its inbox record: only a give-up newer than
// the one moved counts as dead-lettered again; the old one is still pending.
import { describe, expect, it } from 'vitest';
import {
  describeRedriveOutcome,
  describeRedriveSummary,
  followRedriven,
  redriveResult,
  summarizeRedrive,
} from '../../../../cli/operations/redrive-outcomes';
import type { InboxRecord } from '../../../../lambdas/core/inbox';

const SINCE = Date.parse('2026-12-01T10:00:00Z');
const record = (fields: Partial<InboxRecord>): InboxRecord =>
  ({
    pk: 'mobazha#ord_1',
    status: 'enqueued',
    receivedAt: '2026-12-01T09:00:00Z',
    attempts: 1,
    ...fields,
  }) as InboxRecord;

describe('redriveResult', () => {
  it('is processed once the record is', () => {
    expect(redriveResult(record({ status: 'processed' }), 'm-old', SINCE)).toBe('processed');
  });

  it('is dead-lettered again for a give-up of another message than the one moved', () => {
    const again = record({
      status: 'dead-lettered',
      deadLetterMessageId: 'm-new',
      deadLetteredAt: '2026-12-01T09:59:59Z',
    });
    expect(redriveResult(again, 'm-old', SINCE)).toBe('dead-lettered');
  });

  it('is dead-lettered again for a give-up marked after the redrive started', () => {
    const again = record({
      status: 'dead-lettered',
      deadLetterMessageId: 'm-old',
      deadLetteredAt: '2026-12-01T10:00:01Z',
    });
    expect(redriveResult(again, 'm-old', SINCE)).toBe('dead-lettered');
  });

  it('is still pending while the record shows the old give-up, or is on its way', () => {
    const old = record({
      status: 'dead-lettered',
      deadLetterMessageId: 'm-old',
      deadLetteredAt: '2026-12-01T09:00:00Z',
    });
    expect(redriveResult(old, 'm-old', SINCE)).toBe('pending');
    for (const status of ['enqueued', 'processing', 'failed'] as const)
      expect(redriveResult(record({ status }), 'm-old', SINCE)).toBe('pending');
    expect(redriveResult(undefined, 'm-old', SINCE)).toBe('no_record');
  });
});

describe('followRedriven', () => {
  it('reads each record until none is pending, and says what happened to each', async () => {
    const reads: Record<string, InboxRecord[]> = {
      'mobazha#a': [record({ status: 'enqueued' }), record({ status: 'processed' })],
      'mobazha#b': [
        record({
          status: 'dead-lettered',
          deadLetterMessageId: 'b-new',
          lastErrorCode: 'downstream_rejected',
        }),
      ],
    };
    const outcomes = await followRedriven(
      async (pk) => (reads[pk]?.length === 1 ? reads[pk][0] : reads[pk]?.shift()),
      [
        {
          messageId: 'a-old',
          provider: 'mobazha',
          dedupKey: 'a',
          receiveCount: 3,
          payloadLocation: 'inline',
        },
        {
          messageId: 'b-old',
          provider: 'mobazha',
          dedupKey: 'b',
          receiveCount: 3,
          payloadLocation: 'inline',
        },
      ],
      SINCE,
      { timeoutMs: 5_000, pollMs: 1 },
    );
    expect(outcomes.map((o) => [o.dedupKey, o.result, o.errorCode])).toEqual([
      ['a', 'processed', undefined],
      ['b', 'dead-lettered', 'downstream_rejected'],
    ]);
    expect(describeRedriveOutcome(outcomes[1] as (typeof outcomes)[number], '60s')).toBe(
      'dead-lettered again (downstream_rejected)',
    );
    expect(describeRedriveSummary(summarizeRedrive(outcomes))).toBe(
      '1 processed, 1 dead-lettered again, 0 still pending',
    );
  });

  it('stops when the wait runs out, leaving what is not done pending', async () => {
    const outcomes = await followRedriven(
      async () => record({ status: 'failed', lastErrorCode: 'http_503' }),
      [{ messageId: 'x', provider: 'mobazha', dedupKey: 'x', receiveCount: 1, payloadLocation: 'inline' }],
      SINCE,
      { timeoutMs: 0, pollMs: 1 },
    );
    expect(outcomes[0]).toMatchObject({ result: 'pending', inboxStatus: 'failed' });
    expect(describeRedriveOutcome(outcomes[0] as (typeof outcomes)[number], '60s')).toBe(
      'still pending after 60s (failed: http_503, retried on the schedule)',
    );
  });
});
