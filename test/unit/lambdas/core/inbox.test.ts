import { describe, expect, it } from 'vitest';
import {
  classifyExisting,
  classifyLeaseRefusal,
  type InboxRecord,
  type LeaseRequest,
  newClaimRecord,
  sameEventType,
} from '../../../../lambdas/core/inbox';

const NOW = 1_700_000_000_000;
const record = (overrides: Partial<InboxRecord>): InboxRecord => ({
  ...newClaimRecord({
    provider: 'github',
    dedupKey: 'k',
    eventType: 'push',
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

/** A later delivery of the same bytes and type, from another invocation unless a token is given. */
const incoming = (overrides: { payloadSha256?: string; eventType?: string; claimToken?: string } = {}) => ({
  payloadSha256: 'aa',
  eventType: 'push',
  ...overrides,
});

describe('classifyExisting', () => {
  it('calls a different payload hash a conflict whatever the status', () => {
    for (const status of ['claimed', 'enqueued', 'processed'] as const) {
      expect(classifyExisting(record({ status }), incoming({ payloadSha256: 'bb' }))).toMatchObject({
        kind: 'conflict',
        conflict: 'payload',
      });
    }
  });

  it.each(['claimed', 'enqueued', 'processing', 'processed', 'failed', 'dead-lettered'] as const)(
    'calls the same bytes under another event type a conflict on a %s record, never pending or a duplicate',
    (status) => {
      // GitHub and Shopify name the type in an unsigned header: a replay can rename the event.
      expect(classifyExisting(record({ status }), incoming({ eventType: 'pull_request' }))).toMatchObject({
        kind: 'conflict',
        conflict: 'event_type',
      });
    },
  );

  it('calls a type added to, or dropped from, an untyped or typed record a conflict', () => {
    expect(classifyExisting(record({ eventType: undefined }), incoming()).kind).toBe('conflict');
    expect(classifyExisting(record({}), incoming({ eventType: undefined })).kind).toBe('conflict');
  });

  it('takes no type and `unknown` (what the processor seeds a record it recreates with) as one', () => {
    const seeded = record({ status: 'processed', eventType: 'unknown' });
    expect(classifyExisting(seeded, incoming({ eventType: undefined })).kind).toBe('duplicate');
    expect(sameEventType(undefined, 'unknown')).toBe(true);
    expect(sameEventType('push', 'Push')).toBe(false);
  });

  it('calls a claim of the same bytes held by another invocation pending: it may not have sent yet', () => {
    expect(classifyExisting(record({ leaseUntil: NOW + 12_500 }), incoming())).toMatchObject({
      kind: 'pending',
    });
  });

  it('takes a claim carrying our own token as ours (an SDK retry of our applied put)', () => {
    expect(classifyExisting(record({}), incoming({ claimToken: 't' }))).toEqual({
      kind: 'claimed',
      claimToken: 't',
    });
  });

  it.each(['enqueued', 'processing', 'processed', 'failed', 'dead-lettered'] as const)(
    'calls a %s record with the same hash and type a duplicate',
    (status) => {
      expect(classifyExisting(record({ status }), incoming()).kind).toBe('duplicate');
    },
  );
});

describe('classifyLeaseRefusal', () => {
  const lease = (overrides: Partial<LeaseRequest> = {}): LeaseRequest => ({
    token: 'p',
    messageId: 'm',
    receiveCount: 1,
    payloadSha256: 'aa',
    eventType: 'push',
    leaseMs: 30_000,
    nowMs: NOW,
    ...overrides,
  });

  it('refuses a message of another event type than the record as a conflict, even once processed', () => {
    for (const status of ['claimed', 'processing', 'processed'] as const) {
      expect(classifyLeaseRefusal(record({ status }), lease({ eventType: 'pull_request' }))).toMatchObject({
        kind: 'conflict',
        conflict: 'event_type',
      });
    }
  });

  it('skips a processed record of the same bytes and type, and calls other bytes a payload conflict', () => {
    expect(classifyLeaseRefusal(record({ status: 'processed' }), lease()).kind).toBe('processed');
    expect(classifyLeaseRefusal(record({}), lease({ payloadSha256: 'bb' }))).toMatchObject({
      conflict: 'payload',
    });
  });
});
