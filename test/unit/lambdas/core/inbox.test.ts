import { describe, expect, it } from 'vitest';
import { classifyExisting, type InboxRecord, newClaimRecord } from '../../../../lambdas/core/inbox';

const NOW = 1_700_000_000_000;
const record = (overrides: Partial<InboxRecord>): InboxRecord => ({
  ...newClaimRecord({
    provider: 'github',
    dedupKey: 'k',
    payloadSha256: 'aa',
    nowMs: NOW,
    leaseSeconds: 30,
    ttlSeconds: 3600,
    claimToken: 't',
  }),
  ...overrides,
});

describe('newClaimRecord', () => {
  it('starts claimed, with a lease and a TTL in epoch seconds', () => {
    const claim = record({});
    expect(claim).toMatchObject({
      pk: 'github#k',
      status: 'claimed',
      leaseUntil: NOW + 30_000,
      expiresAt: NOW / 1000 + 3600,
      attempts: 0,
    });
  });
});

describe('classifyExisting', () => {
  it('calls a different payload hash a conflict whatever the status', () => {
    for (const status of ['claimed', 'enqueued', 'processed'] as const) {
      expect(classifyExisting(record({ status }), 'bb').kind).toBe('conflict');
    }
  });

  it('calls a claim of the same bytes held by another invocation pending: it may not have sent yet', () => {
    expect(classifyExisting(record({ leaseUntil: NOW + 12_500 }), 'aa')).toMatchObject({ kind: 'pending' });
  });

  it('takes a claim carrying our own token as ours (an SDK retry of our applied put)', () => {
    expect(classifyExisting(record({}), 'aa', 't')).toEqual({ kind: 'claimed', claimToken: 't' });
  });

  it.each(['enqueued', 'processing', 'processed', 'failed', 'dead-lettered'] as const)(
    'calls a %s record with the same hash a duplicate',
    (status) => {
      expect(classifyExisting(record({ status }), 'aa').kind).toBe('duplicate');
    },
  );
});
