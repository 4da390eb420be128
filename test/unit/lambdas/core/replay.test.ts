// Whether a delivery may be replayed now (core/replay.ts): only once nothing will move it on by itself.
import { describe, expect, it } from 'vitest';
import { forwardAttribute } from '../../../../lambdas/core/destinations/forward-state';
import { type InboxRecord, OPERATOR_LEASE_MARGIN_MS } from '../../../../lambdas/core/inbox';
import { replayDecision } from '../../../../lambdas/core/replay';

const NOW = Date.UTC(2026, 11, 1, 12);
const base: InboxRecord = {
  pk: 'stripe#evt_1',
  provider: 'stripe',
  dedupKey: 'evt_1',
  payloadSha256: 'ab'.repeat(32),
  status: 'processed',
  receivedAt: new Date(NOW - 60_000).toISOString(),
  attempts: 0,
  expiresAt: NOW / 1000 + 86_400,
  archiveBody: Buffer.from('{}').toString('base64'),
};
/** The main queue's retention: 4 days. */
const RETENTION_MS = 4 * 86_400_000;
const decide = (changes: Partial<InboxRecord>) => replayDecision({ ...base, ...changes }, NOW, RETENTION_MS);
const ago = (ms: number) => new Date(NOW - ms).toISOString();

describe('replayDecision', () => {
  it('replays processed and dead-lettered deliveries, and processing ones whose lease lapsed', () => {
    expect(decide({})).toEqual({ kind: 'replayable' });
    expect(decide({ status: 'dead-lettered' })).toEqual({ kind: 'replayable' });
    // Lapsed by more than an operator's clock may be off (OPERATOR_LEASE_MARGIN_MS); just lapsed is not yet.
    expect(decide({ status: 'processing', leaseUntil: NOW - OPERATOR_LEASE_MARGIN_MS - 1 })).toEqual({
      kind: 'replayable',
    });
    expect(decide({ status: 'processing', leaseUntil: NOW - 1 })).toEqual({
      kind: 'refused',
      reason: 'in_flight',
    });
    expect(decide({ archiveBody: undefined, archiveRef: 's3://bucket/archive/stripe/ab' })).toEqual({
      kind: 'replayable',
    });
  });

  it('refuses what is in flight: claimed, enqueued, failed, under a live lease, or a destination still retrying', () => {
    for (const status of ['claimed', 'enqueued', 'failed'] as const)
      expect(decide({ status })).toEqual({ kind: 'refused', reason: 'in_flight' });
    expect(decide({ status: 'processing', leaseUntil: NOW + 1 })).toEqual({
      kind: 'refused',
      reason: 'in_flight',
    });
    const retrying = JSON.stringify({ destination: 'crm', state: 'retrying', attempts: 2, webhookId: 'w' });
    expect(
      replayDecision({ ...base, [forwardAttribute('crm')]: retrying } as InboxRecord, NOW, RETENTION_MS),
    ).toEqual({
      kind: 'refused',
      reason: 'in_flight',
    });
    const delivered = JSON.stringify({ destination: 'crm', state: 'delivered', attempts: 1, webhookId: 'w' });
    expect(
      replayDecision({ ...base, [forwardAttribute('crm')]: delivered } as InboxRecord, NOW, RETENTION_MS),
    ).toEqual({
      kind: 'replayable',
    });
  });

  it('says not_found and not_archived', () => {
    expect(replayDecision(undefined, NOW, RETENTION_MS)).toEqual({ kind: 'refused', reason: 'not_found' });
    // Expired, though TTL has not deleted it yet: gone. The last second of its life it still is one.
    expect(decide({ expiresAt: NOW / 1000 - 1 })).toEqual({ kind: 'refused', reason: 'not_found' });
    expect(decide({ expiresAt: NOW / 1000 })).toEqual({ kind: 'replayable' });
    expect(decide({ archiveBody: undefined })).toEqual({ kind: 'refused', reason: 'not_archived' });
  });

  it('replays a stranded record: failed, claimed or enqueued with no change for longer than the queue keeps a message', () => {
    const old = ago(RETENTION_MS + 1);
    expect(decide({ status: 'failed', receivedAt: old, failedAt: old })).toEqual({ kind: 'replayable' });
    expect(decide({ status: 'claimed', receivedAt: old })).toEqual({ kind: 'replayable' });
    expect(decide({ status: 'enqueued', receivedAt: old, enqueuedAt: old })).toEqual({ kind: 'replayable' });
    // A failure older than the retention, but the record is judged by its latest transition.
    expect(decide({ status: 'failed', receivedAt: old })).toEqual({ kind: 'replayable' });
  });

  it('refuses a failed record whose last failure, enqueue, redrive or replay is within the retention', () => {
    const old = ago(RETENTION_MS + 1);
    const recent = ago(RETENTION_MS - 1);
    for (const latest of ['failedAt', 'enqueuedAt', 'redrivenAt', 'lastReplayedAt', 'receivedAt'] as const) {
      expect(decide({ status: 'failed', receivedAt: old, failedAt: old, [latest]: recent })).toEqual({
        kind: 'refused',
        reason: 'in_flight',
      });
    }
    // A live processing lease is never stranded, however old the record.
    expect(decide({ status: 'processing', receivedAt: old, leaseUntil: NOW + 1 })).toEqual({
      kind: 'refused',
      reason: 'in_flight',
    });
  });
});
