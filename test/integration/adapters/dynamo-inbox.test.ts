// DynamoInbox against dynalite through the real SDK client: every conditional write of the claim protocol
// and the processor's lease, including races and dependency failures.
import { randomUUID } from 'node:crypto';
import { ConditionalCheckFailedException, PutItemCommand } from '@aws-sdk/client-dynamodb';
import { beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createAwsClients } from '../../../lambdas/adapters/clients';
import { DynamoInbox } from '../../../lambdas/adapters/dynamo-inbox';
import { toInboxItem } from '../../../lambdas/adapters/inbox-item';
import { DependencyError } from '../../../lambdas/core/errors';
import {
  type InboxRecord,
  inboxKey,
  type LeaseRequest,
  type NewClaim,
  newClaimRecord,
  OPERATOR_LEASE_MARGIN_MS,
} from '../../../lambdas/core/inbox';
import { useEmulators } from '../../support/emulators';
import { attemptFaultForTest, faultForTest, startOutageSwitch } from '../../support/faults';

const env = useEmulators();

const T0 = Date.UTC(2026, 0, 15, 12, 0, 0);
const LEASE_SECONDS = 30;
const TTL_SECONDS = 7 * 86_400;
const PROCESSING_LEASE_MS = 60_000;

let inbox: DynamoInbox;
let tableName: string;
/** A dedup key per test, so tests sharing the file's table never meet. */
let dedupKey: string;
let PK: string;

beforeAll(() => {
  tableName = env.resources.tableName;
  inbox = new DynamoInbox(env.clients.dynamodb, tableName);
});

beforeEach(() => {
  dedupKey = randomUUID();
  PK = inboxKey('github', dedupKey);
});

function newClaim(overrides: Partial<NewClaim> = {}): NewClaim {
  return {
    provider: 'github',
    dedupKey,
    deliveryId: 'gh-1',
    eventType: 'push',
    payloadSha256: 'a'.repeat(64),
    nowMs: T0,
    leaseSeconds: LEASE_SECONDS,
    ttlSeconds: TTL_SECONDS,
    claimToken: randomUUID(),
    ...overrides,
  };
}

function seedOf(claim: NewClaim) {
  const record = newClaimRecord(claim);
  return {
    provider: record.provider,
    dedupKey: record.dedupKey,
    payloadSha256: record.payloadSha256,
    eventType: record.eventType,
    deliveryId: record.deliveryId,
    expiresAt: record.expiresAt,
  };
}

async function putRecord(record: InboxRecord, table = tableName): Promise<void> {
  await env.clients.dynamodb.send(new PutItemCommand({ TableName: table, Item: toInboxItem(record) }));
}

/**
 * The next `times` PutItems fail their condition although the table has no record: what the claim sees
 * when the record vanishes between its put and its read.
 */
function failPutsAsIfTaken(times: number): void {
  const _fault = faultForTest(env.clients.dynamodb, {
    commands: 'PutItemCommand',
    times,
    error: () => new ConditionalCheckFailedException({ message: 'injected', $metadata: {} }),
  });
}

/** The next call of `command` is applied by dynalite and its answer lost: the SDK retries it. */
function loseNextAnswer(command: 'PutItemCommand' | 'UpdateItemCommand') {
  const lost = attemptFaultForTest(env.clients.dynamodb, {
    commands: command,
    fault: 'lost-answer',
    times: 1,
  });
  return lost;
}

/** A claimed record, as the verify Lambda leaves it once the message is sent: no mark follows. */
async function enqueued(claim = newClaim()): Promise<NewClaim> {
  expect((await inbox.claim(claim)).kind).toBe('claimed');
  return claim;
}

/** A record the processor has taken: what ends a claim's "in flight" answers. */
async function taken(claim = newClaim()): Promise<NewClaim> {
  await enqueued(claim);
  expect((await inbox.beginProcessing(PK, seedOf(claim), lease('p1', claim.nowMs + 5))).kind).toBe('leased');
  return claim;
}

describe('claim', () => {
  it('claims a key nobody has seen and stores the new claim record', async () => {
    const claim = newClaim();
    expect(await inbox.claim(claim)).toEqual({ kind: 'claimed', claimToken: claim.claimToken });
    expect(await inbox.get(PK)).toEqual(newClaimRecord(claim));
  });

  it('answers duplicate for the same key and payload once the processor has taken the first delivery', async () => {
    await taken();
    const outcome = await inbox.claim(newClaim({ nowMs: T0 + 1_000 }));
    expect(outcome.kind).toBe('duplicate');
    expect(outcome.kind === 'duplicate' && outcome.existing.status).toBe('processing');
  });

  it('answers pending while a live claim of the same bytes is held by another invocation (it may not have sent)', async () => {
    const first = newClaim();
    await inbox.claim(first);
    const outcome = await inbox.claim(newClaim({ nowMs: T0 + 10_000 }));
    expect(outcome).toMatchObject({ kind: 'pending', existing: { claimToken: first.claimToken } });
    expect(await inbox.get(PK)).toEqual(newClaimRecord(first));
  });

  it('answers conflict for the same key with a different payload and leaves the first record untouched', async () => {
    const first = newClaim();
    await inbox.claim(first);
    const outcome = await inbox.claim(newClaim({ payloadSha256: 'b'.repeat(64), nowMs: T0 + 1_000 }));
    expect(outcome.kind).toBe('conflict');
    expect(await inbox.get(PK)).toEqual(newClaimRecord(first));
  });

  it('claims again a record whose TTL has passed but which DynamoDB has not deleted yet', async () => {
    const old = newClaimRecord(newClaim({ nowMs: T0 - TTL_SECONDS * 1000 - 1_000 }));
    await putRecord({ ...old, status: 'processed', processedAt: new Date(T0 - 1e6).toISOString() });
    const claim = newClaim();
    expect((await inbox.claim(claim)).kind).toBe('claimed');
    expect(await inbox.get(PK)).toEqual(newClaimRecord(claim));
  });

  it('does not claim a record whose expiresAt is this very second', async () => {
    await putRecord({ ...newClaimRecord(newClaim()), status: 'enqueued', expiresAt: Math.floor(T0 / 1000) });
    expect((await inbox.claim(newClaim())).kind).toBe('duplicate');
  });

  it('claims again once the first claim lease has lapsed (the first Lambda died before marking)', async () => {
    await inbox.claim(newClaim());
    const retry = newClaim({ nowMs: T0 + LEASE_SECONDS * 1000 + 1 });
    expect(await inbox.claim(retry)).toEqual({ kind: 'claimed', claimToken: retry.claimToken });
  });

  it('does not take over a record the processor has taken, even long after the claim lease', async () => {
    await taken();
    expect((await inbox.claim(newClaim({ nowMs: T0 + 3_600_000 }))).kind).toBe('duplicate');
  });

  it('lets exactly one of 50 concurrent claims on the same key win', async () => {
    const claims = Array.from({ length: 50 }, () => newClaim());
    const outcomes = await Promise.all(claims.map((claim) => inbox.claim(claim)));
    const winners = outcomes.filter((outcome) => outcome.kind === 'claimed');
    expect(winners).toHaveLength(1);
    expect(outcomes.filter((outcome) => outcome.kind === 'pending')).toHaveLength(49);
    expect((await inbox.get(PK))?.claimToken).toBe(winners[0]?.kind === 'claimed' && winners[0].claimToken);
  });

  it('claims after all when the record vanishes between the failed put and the read', async () => {
    failPutsAsIfTaken(1);
    const claim = newClaim();
    expect(await inbox.claim(claim)).toEqual({ kind: 'claimed', claimToken: claim.claimToken });
  });

  it('answers in_flight, retry in 1 s, when the record vanishes twice', async () => {
    failPutsAsIfTaken(2);
    const outcome = await inbox.claim(newClaim());
    expect(outcome).toMatchObject({ kind: 'in_flight', retryAfterSeconds: 1 });
    expect(outcome.kind === 'in_flight' && outcome.existing.claimToken).toBeUndefined();
    expect(await inbox.get(PK)).toBeUndefined();
  });
});

describe('release', () => {
  it('release lapses our claim at once and keeps the record, so only the same bytes retake it', async () => {
    const claim = newClaim();
    await inbox.claim(claim);
    await inbox.release(PK, claim.claimToken);
    expect(await inbox.get(PK)).toEqual({ ...newClaimRecord(claim), leaseUntil: 0 });
    const other = newClaim({ nowMs: T0 + 10, payloadSha256: 'b'.repeat(64) });
    expect((await inbox.claim(other)).kind).toBe('conflict');
    const retry = newClaim({ nowMs: T0 + 10 });
    expect(await inbox.claim(retry)).toEqual({ kind: 'claimed', claimToken: retry.claimToken });
  });

  it('release with another token leaves the claim in place, silently', async () => {
    const claim = newClaim();
    await inbox.claim(claim);
    await expect(inbox.release(PK, randomUUID())).resolves.toBeUndefined();
    expect(await inbox.get(PK)).toEqual(newClaimRecord(claim));
  });

  it('release never deletes a record the processor has taken, even with the right token', async () => {
    const claim = await taken();
    await inbox.release(PK, claim.claimToken);
    expect((await inbox.get(PK))?.status).toBe('processing');
  });
});

describe('claim: our own write, retried by the SDK', () => {
  it('takes a claim whose put was applied and whose answer was lost as ours, not as in flight', async () => {
    const lost = loseNextAnswer('PutItemCommand');
    const claim = newClaim();
    expect(await inbox.claim(claim)).toEqual({ kind: 'claimed', claimToken: claim.claimToken });
    expect(lost.failures).toBe(1);
    expect(await inbox.get(PK)).toEqual(newClaimRecord(claim));
  });

  it('still answers pending to another invocation holding a live claim of the same bytes', async () => {
    await inbox.claim(newClaim());
    expect((await inbox.claim(newClaim({ nowMs: T0 + 1000 }))).kind).toBe('pending');
  });

  it('lets a lapsed claim be retaken by the same bytes only: other bytes under the same id are a conflict', async () => {
    const first = newClaim();
    await inbox.claim(first);
    const later = T0 + LEASE_SECONDS * 1000 + 1;
    const other = newClaim({ nowMs: later, payloadSha256: 'b'.repeat(64) });
    expect((await inbox.claim(other)).kind).toBe('conflict');
    expect(await inbox.get(PK)).toEqual(newClaimRecord(first));
    const same = newClaim({ nowMs: later });
    expect((await inbox.claim(same)).kind).toBe('claimed');
  });

  it('lets a lapsed claim be retaken under the same event type only: another type is a conflict', async () => {
    const first = newClaim();
    await inbox.claim(first);
    const later = T0 + LEASE_SECONDS * 1000 + 1;
    for (const eventType of ['pull_request', undefined]) {
      const renamed = newClaim({ nowMs: later, eventType });
      expect(await inbox.claim(renamed)).toMatchObject({ kind: 'conflict', conflict: 'event_type' });
    }
    expect(await inbox.get(PK)).toEqual(newClaimRecord(first));
  });

  it('lets an untyped lapsed claim be retaken untyped, and not under a type', async () => {
    const first = newClaim({ eventType: undefined });
    await inbox.claim(first);
    const later = T0 + LEASE_SECONDS * 1000 + 1;
    expect((await inbox.claim(newClaim({ nowMs: later, eventType: 'push' }))).kind).toBe('conflict');
    expect((await inbox.claim(newClaim({ nowMs: later, eventType: undefined }))).kind).toBe('claimed');
  });
});

/** One receive of one message, as the processor asks for its lease. */
function lease(token: string, nowMs: number, overrides: Partial<LeaseRequest> = {}): LeaseRequest {
  return {
    token,
    messageId: 'msg-1',
    receiveCount: 1,
    payloadSha256: 'a'.repeat(64),
    eventType: 'push',
    leaseMs: PROCESSING_LEASE_MS,
    nowMs,
    ...overrides,
  };
}

describe('processing lease', () => {
  it('beginProcessing on an enqueued record takes the lease for this message and receive', async () => {
    const claim = await enqueued();
    expect(await inbox.beginProcessing(PK, seedOf(claim), lease('p1', T0 + 100))).toEqual({
      kind: 'leased',
      forwarded: false,
    });
    expect(await inbox.get(PK)).toMatchObject({
      status: 'processing',
      processingToken: 'p1',
      leaseUntil: T0 + 100 + PROCESSING_LEASE_MS,
      leaseMessageId: 'msg-1',
      leaseReceiveCount: 1,
      messageId: 'msg-1',
      receivedAt: new Date(T0).toISOString(),
    });
  });

  it('beginProcessing recreates a record TTL already deleted, from the message facts', async () => {
    const claim = newClaim();
    expect((await inbox.beginProcessing(PK, seedOf(claim), lease('p1', T0))).kind).toBe('leased');
    expect(await inbox.get(PK)).toEqual({
      ...seedOf(claim),
      pk: PK,
      status: 'processing',
      processingToken: 'p1',
      leaseUntil: T0 + PROCESSING_LEASE_MS,
      leaseMessageId: 'msg-1',
      leaseReceiveCount: 1,
      messageId: 'msg-1',
      receivedAt: new Date(T0).toISOString(),
      attempts: 0,
    });
  });

  it('beginProcessing on a processed record is refused as processed', async () => {
    const claim = await enqueued();
    await inbox.beginProcessing(PK, seedOf(claim), lease('p1', T0 + 100));
    expect(await inbox.markProcessed(PK, 'p1', T0 + 200)).toBe(true);
    const outcome = await inbox.beginProcessing(
      PK,
      seedOf(claim),
      lease('p2', T0 + 300, { messageId: 'msg-2' }),
    );
    expect(outcome).toMatchObject({
      kind: 'processed',
      existing: { status: 'processed', processedAt: new Date(T0 + 200).toISOString() },
    });
  });

  it('beginProcessing for another message of the same delivery waits for a live lease, for its remainder', async () => {
    const claim = await enqueued();
    await inbox.beginProcessing(PK, seedOf(claim), lease('p1', T0 + 100));
    const outcome = await inbox.beginProcessing(
      PK,
      seedOf(claim),
      lease('p2', T0 + 200, { messageId: 'msg-2' }),
    );
    expect(outcome).toMatchObject({
      kind: 'held',
      retryAfterMs: PROCESSING_LEASE_MS - 100,
      existing: { status: 'processing', processingToken: 'p1' },
    });
  });

  it.each([1, 2])(
    'beginProcessing respects a live lease of the same message handed out again (receive %i): SQS may deliver it twice at once',
    async (receiveCount) => {
      const claim = await enqueued();
      await inbox.beginProcessing(PK, seedOf(claim), lease('p1', T0 + 100));
      const outcome = await inbox.beginProcessing(PK, seedOf(claim), lease('p2', T0 + 200, { receiveCount }));
      expect(outcome).toMatchObject({ kind: 'held', retryAfterMs: PROCESSING_LEASE_MS - 100 });
      expect(await inbox.get(PK)).toMatchObject({ processingToken: 'p1', leaseReceiveCount: 1 });
    },
  );

  it('beginProcessing whose applied update was retried by the SDK after the answer was lost is leased, not held', async () => {
    const claim = await enqueued();
    const lost = loseNextAnswer('UpdateItemCommand');
    expect(await inbox.beginProcessing(PK, seedOf(claim), lease('p1', T0 + 100))).toEqual({
      kind: 'leased',
      forwarded: false,
    });
    expect(lost.failures).toBe(1);
    expect((await inbox.get(PK))?.processingToken).toBe('p1');
  });

  it('beginProcessing with other bytes than the record holds is a conflict and changes nothing', async () => {
    const claim = await enqueued();
    const before = await inbox.get(PK);
    const outcome = await inbox.beginProcessing(
      PK,
      seedOf(claim),
      lease('p1', T0 + 100, { payloadSha256: 'b'.repeat(64), messageId: 'msg-2' }),
    );
    expect(outcome.kind).toBe('conflict');
    expect(await inbox.get(PK)).toEqual(before);
  });

  it('beginProcessing for the same bytes under another event type is a conflict and changes nothing', async () => {
    const claim = await enqueued();
    const before = await inbox.get(PK);
    for (const eventType of ['pull_request', 'unknown']) {
      const outcome = await inbox.beginProcessing(
        PK,
        { ...seedOf(claim), eventType },
        lease('p1', T0 + 100, { eventType, messageId: 'msg-2' }),
      );
      expect(outcome).toMatchObject({ kind: 'conflict', conflict: 'event_type' });
    }
    expect(await inbox.get(PK)).toEqual(before);
  });

  it('beginProcessing of an untyped message takes an untyped record', async () => {
    const claim = await enqueued(newClaim({ eventType: undefined }));
    const untyped = lease('p1', T0 + 100, { eventType: 'unknown' });
    expect(await inbox.beginProcessing(PK, { ...seedOf(claim), eventType: 'unknown' }, untyped)).toEqual({
      kind: 'leased',
      forwarded: false,
    });
  });

  it('beginProcessing after the other worker lease lapsed takes over', async () => {
    const claim = await enqueued();
    await inbox.beginProcessing(PK, seedOf(claim), lease('p1', T0 + 100));
    const later = T0 + 100 + PROCESSING_LEASE_MS + 1;
    const outcome = await inbox.beginProcessing(
      PK,
      seedOf(claim),
      lease('p2', later, { messageId: 'msg-2' }),
    );
    expect(outcome.kind).toBe('leased');
    expect((await inbox.get(PK))?.processingToken).toBe('p2');
  });

  it('markProcessed with a token whose lease was taken over returns false', async () => {
    const claim = await enqueued();
    await inbox.beginProcessing(PK, seedOf(claim), lease('p1', T0));
    await inbox.beginProcessing(
      PK,
      seedOf(claim),
      lease('p2', T0 + PROCESSING_LEASE_MS + 1, { messageId: 'm2' }),
    );
    expect(await inbox.markProcessed(PK, 'p1', T0 + PROCESSING_LEASE_MS + 2)).toBe(false);
    expect(await inbox.get(PK)).toMatchObject({ status: 'processing', processingToken: 'p2' });
  });

  it('markProcessed with our token records processedAt, drops the lease and keeps the token', async () => {
    const claim = await enqueued();
    await inbox.beginProcessing(PK, seedOf(claim), lease('p1', T0));
    expect(await inbox.markProcessed(PK, 'p1', T0 + 50)).toBe(true);
    const record = await inbox.get(PK);
    expect(record).toMatchObject({
      status: 'processed',
      processedAt: new Date(T0 + 50).toISOString(),
      processingToken: 'p1',
    });
    expect(record?.leaseUntil).toBeUndefined();
  });

  it('markProcessed whose applied update was retried by the SDK after the answer was lost still answers true', async () => {
    const claim = await enqueued();
    await inbox.beginProcessing(PK, seedOf(claim), lease('p1', T0));
    const lost = loseNextAnswer('UpdateItemCommand');
    expect(await inbox.markProcessed(PK, 'p1', T0 + 50)).toBe(true);
    expect(lost.failures).toBe(1);
    expect((await inbox.get(PK))?.status).toBe('processed');
  });

  it('markFailed counts attempts, records the error code and frees the lease for the next receive', async () => {
    const claim = await enqueued();
    await inbox.beginProcessing(PK, seedOf(claim), lease('p1', T0));
    expect(await inbox.markFailed(PK, 'p1', 'timeout', T0 + 10)).toBe(true);
    expect(await inbox.get(PK)).toMatchObject({ status: 'failed', attempts: 1, lastErrorCode: 'timeout' });
    expect(
      (await inbox.beginProcessing(PK, seedOf(claim), lease('p2', T0 + 20, { receiveCount: 2 }))).kind,
    ).toBe('leased');
    expect(await inbox.markFailed(PK, 'p2', 'http_500', T0 + 30)).toBe(true);
    const record = await inbox.get(PK);
    expect(record).toMatchObject({ status: 'failed', attempts: 2, lastErrorCode: 'http_500' });
    expect(record?.processingToken).toBeUndefined();
  });

  it('markForwarded, under our lease, makes the next lease say the copies were sent; another token is refused', async () => {
    const claim = await enqueued();
    await inbox.beginProcessing(PK, seedOf(claim), lease('p1', T0));
    expect(await inbox.markForwarded(PK, 'other', T0 + 5)).toBe(false);
    expect(await inbox.markForwarded(PK, 'p1', T0 + 5)).toBe(true);
    expect(await inbox.markFailed(PK, 'p1', 'timeout', T0 + 10)).toBe(true);
    expect(await inbox.beginProcessing(PK, seedOf(claim), lease('p2', T0 + 20, { receiveCount: 2 }))).toEqual(
      {
        kind: 'leased',
        forwarded: true,
      },
    );
    expect((await inbox.get(PK))?.forwardedAt).toBe(new Date(T0 + 5).toISOString());
  });

  it('releaseLease lapses our unused lease at once, counts nothing, and lets the next receive take it', async () => {
    const claim = await enqueued();
    await inbox.beginProcessing(PK, seedOf(claim), lease('p1', T0));
    expect(await inbox.releaseLease(PK, 'p1')).toBe(true);
    const record = await inbox.get(PK);
    expect(record).toMatchObject({ status: 'processing', attempts: 0, leaseUntil: 0 });
    expect(record?.processingToken).toBeUndefined();
    expect(record?.lastErrorCode).toBeUndefined();
    // Within what would have been the first lease: only a released one lets the second worker in.
    expect((await inbox.beginProcessing(PK, seedOf(claim), lease('p2', T0 + 10))).kind).toBe('leased');
  });

  it("releaseLease with another worker's token changes nothing", async () => {
    const claim = await enqueued();
    await inbox.beginProcessing(PK, seedOf(claim), lease('p1', T0));
    expect(await inbox.releaseLease(PK, 'other')).toBe(false);
    expect(await inbox.get(PK)).toMatchObject({
      processingToken: 'p1',
      leaseUntil: T0 + PROCESSING_LEASE_MS,
    });
  });

  it('markFailed with a stale token changes nothing', async () => {
    const claim = await enqueued();
    await inbox.beginProcessing(PK, seedOf(claim), lease('p1', T0));
    expect(await inbox.markFailed(PK, 'other', 'timeout', T0 + 10)).toBe(false);
    expect(await inbox.get(PK)).toMatchObject({ status: 'processing', attempts: 0 });
  });

  it('markDeadLettered under our lease names the message and frees the lease; the same message then drains', async () => {
    const claim = await enqueued();
    await inbox.beginProcessing(PK, seedOf(claim), lease('p1', T0));
    const mark = { errorCode: 'schema_mismatch', messageId: 'msg-1', nowMs: T0 + 10 };
    expect(await inbox.markDeadLettered(PK, 'p1', mark)).toBe(true);
    const record = await inbox.get(PK);
    expect(record).toMatchObject({
      status: 'dead-lettered',
      lastErrorCode: 'schema_mismatch',
      deadLetterMessageId: 'msg-1',
      deadLetteredAt: new Date(T0 + 10).toISOString(),
      attempts: 1,
    });
    expect(record?.processingToken).toBeUndefined();
    const again = await inbox.beginProcessing(PK, seedOf(claim), lease('p2', T0 + 20, { receiveCount: 2 }));
    expect(again.kind).toBe('draining');
    // A redriven copy is a new message: it is processed.
    const redriven = await inbox.beginProcessing(
      PK,
      seedOf(claim),
      lease('p3', T0 + 30, { messageId: 'msg-9' }),
    );
    expect(redriven.kind).toBe('leased');
  });

  it('markDeadLettered without our lease changes nothing and never creates a record', async () => {
    const claim = await enqueued();
    await inbox.beginProcessing(PK, seedOf(claim), lease('p1', T0));
    const mark = { errorCode: 'schema_mismatch', messageId: 'msg-1', nowMs: T0 + 10 };
    expect(await inbox.markDeadLettered(PK, 'other', mark)).toBe(false);
    expect((await inbox.get(PK))?.status).toBe('processing');
    const absent = inboxKey('github', randomUUID());
    expect(await inbox.markDeadLettered(absent, 'p1', mark)).toBe(false);
    expect(await inbox.get(absent)).toBeUndefined();
  });

  it('markDeadLettered whose applied update was retried by the SDK after the answer was lost answers true', async () => {
    const claim = await enqueued();
    await inbox.beginProcessing(PK, seedOf(claim), lease('p1', T0));
    const lost = loseNextAnswer('UpdateItemCommand');
    const mark = { errorCode: 'schema_mismatch', messageId: 'msg-1', nowMs: T0 + 10 };
    expect(await inbox.markDeadLettered(PK, 'p1', mark)).toBe(true);
    expect(lost.failures).toBe(1);
  });

  const deadLettered = async (atMs: number) => {
    const claim = await enqueued();
    await inbox.beginProcessing(PK, seedOf(claim), lease('p1', atMs));
    await inbox.markDeadLettered(PK, 'p1', { errorCode: 'schema_mismatch', messageId: 'msg-1', nowMs: atMs });
    return claim;
  };

  it('markRequeued makes a record dead-lettered before the move enqueued and processable again', async () => {
    const claim = await deadLettered(T0 + 10);
    expect(await inbox.markRequeued(PK, T0 + 30, T0 + 20)).toBe(true);
    expect((await inbox.get(PK))?.status).toBe('enqueued');
    const again = await inbox.beginProcessing(
      PK,
      seedOf(claim),
      lease('p2', T0 + 40, { messageId: 'msg-9' }),
    );
    expect(again.kind).toBe('leased');
  });

  it('markRequeued leaves a record dead-lettered after the move began (the moved copy failed again) alone', async () => {
    await deadLettered(T0 + 50);
    expect(await inbox.markRequeued(PK, T0 + 60, T0 + 20)).toBe(false);
    expect((await inbox.get(PK))?.status).toBe('dead-lettered');
  });

  it('markRequeued leaves a processed record processed, so a redriven copy is skipped', async () => {
    const claim = await enqueued();
    await inbox.beginProcessing(PK, seedOf(claim), lease('p1', T0));
    await inbox.markProcessed(PK, 'p1', T0 + 10);
    expect(await inbox.markRequeued(PK, T0 + 20, T0 + 20)).toBe(false);
    expect((await inbox.get(PK))?.status).toBe('processed');
  });

  it('markRequeued leaves a live processing lease with its holder, whose mark then still applies', async () => {
    const claim = await enqueued();
    await inbox.beginProcessing(PK, seedOf(claim), lease('p1', T0));
    expect(await inbox.markRequeued(PK, T0 + 10, T0 + 10)).toBe(false);
    expect(await inbox.get(PK)).toMatchObject({ status: 'processing', processingToken: 'p1' });
    expect(await inbox.markProcessed(PK, 'p1', T0 + 20)).toBe(true);
  });

  it('markRequeued takes back a lapsed processing lease (a worker that timed out on a poison message)', async () => {
    const claim = await enqueued();
    await inbox.beginProcessing(PK, seedOf(claim), lease('p1', T0));
    // On the operator's clock a lease counts as lapsed only well past its end (OPERATOR_LEASE_MARGIN_MS):
    // just lapsed, the record is left to the processor, whose own lease takes it over.
    const justLapsed = T0 + PROCESSING_LEASE_MS + 1;
    expect(await inbox.markRequeued(PK, justLapsed, justLapsed)).toBe(false);
    const later = justLapsed + OPERATOR_LEASE_MARGIN_MS;
    expect(await inbox.markRequeued(PK, later, later)).toBe(true);
    const record = await inbox.get(PK);
    expect(record?.status).toBe('enqueued');
    expect(record?.processingToken).toBeUndefined();
  });

  it('markRequeued makes a failed record enqueued again', async () => {
    const claim = await enqueued();
    await inbox.beginProcessing(PK, seedOf(claim), lease('p1', T0));
    expect(await inbox.markFailed(PK, 'p1', 'http_500', T0 + 10)).toBe(true);
    expect(await inbox.markRequeued(PK, T0 + 20, T0 + 20)).toBe(true);
    expect((await inbox.get(PK))?.status).toBe('enqueued');
  });

  it('markRequeued never creates a record', async () => {
    expect(await inbox.markRequeued(PK, T0, T0)).toBe(false);
    expect(await inbox.get(PK)).toBeUndefined();
  });
});

describe('list', () => {
  let listTable: string;
  let listInbox: DynamoInbox;
  beforeEach(async () => {
    // Listing reads the whole table: give each test an empty one.
    listTable = (await env.provision()).tableName;
    // The records' own clock: at the real time their TTL would have passed, and listings leave them out.
    listInbox = new DynamoInbox(env.clients.dynamodb, listTable, { now: () => T0 });
  });

  it('filters by provider, status and since, newest first, up to the limit', async () => {
    const at = (minutes: number) => T0 + minutes * 60_000;
    const records = [
      { provider: 'github', dedupKey: 'g1', minutes: 1, status: 'processed' },
      { provider: 'github', dedupKey: 'g2', minutes: 5, status: 'failed' },
      { provider: 'github', dedupKey: 'g3', minutes: 3, status: 'processed' },
      { provider: 'github', dedupKey: 'g4', minutes: -10, status: 'processed' },
      { provider: 'stripe', dedupKey: 's1', minutes: 4, status: 'processed' },
    ] as const;
    for (const r of records) {
      const claim = newClaim({ provider: r.provider, dedupKey: r.dedupKey, nowMs: at(r.minutes) });
      await putRecord({ ...newClaimRecord(claim), status: r.status }, listTable);
    }
    const keys = (list: InboxRecord[]) => list.map((record) => record.dedupKey);

    expect(keys(await listInbox.list({ limit: 10 }))).toEqual(['g2', 's1', 'g3', 'g1', 'g4']);
    expect(keys(await listInbox.list({ provider: 'github', limit: 10 }))).toEqual(['g2', 'g3', 'g1', 'g4']);
    expect(keys(await listInbox.list({ provider: 'github', status: 'processed', limit: 10 }))).toEqual([
      'g3',
      'g1',
      'g4',
    ]);
    expect(keys(await listInbox.list({ sinceMs: at(0), limit: 10 }))).toEqual(['g2', 's1', 'g3', 'g1']);
    expect(keys(await listInbox.list({ limit: 2 }))).toEqual(['g2', 's1']);
  });

  it('reads every page of a table larger than one Scan page and still returns the newest', async () => {
    // ~1.2 MB of items: DynamoDB (and dynalite) stop a Scan page at 1 MB.
    const filler = 'x'.repeat(60_000);
    await Promise.all(
      Array.from({ length: 20 }, (_, i) => {
        const record = newClaimRecord(newClaim({ dedupKey: `k${i}`, nowMs: T0 + i * 1000 }));
        return putRecord({ ...record, lastErrorCode: filler }, listTable);
      }),
    );
    const newest = await listInbox.list({ limit: 3 });
    expect(newest.map((record) => record.dedupKey)).toEqual(['k19', 'k18', 'k17']);
  });
});

describe('dependency failures', () => {
  it('turns an SDK failure on every operation into DependencyError(dynamodb, <Op>)', async () => {
    const claim = newClaim();
    await inbox.claim(claim);
    const fault = faultForTest(env.clients.dynamodb, {
      commands: ['PutItemCommand', 'GetItemCommand', 'UpdateItemCommand', 'ScanCommand'],
    });
    const failures = {
      PutItem: inbox.claim(newClaim()),
      GetItem: inbox.get(PK),
      UpdateItem: inbox.markProcessed(PK, 'p', T0),
      Scan: inbox.list({ limit: 1 }),
    };
    for (const [operation, call] of Object.entries(failures)) {
      const error = await call.then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(DependencyError);
      expect(error).toMatchObject({ dependency: 'dynamodb', operation });
    }
    fault.remove();
    expect(await inbox.get(PK)).toEqual(newClaimRecord(claim));
  });

  it('reports an unreachable DynamoDB as DependencyError and works again when it is back', async () => {
    const outage = await startOutageSwitch(env.emulators.endpoints.dynamodb);
    const clients = createAwsClients({ dynamodb: outage.endpoint, credentials: env.emulators.credentials });
    try {
      const viaSwitch = new DynamoInbox(clients.dynamodb, tableName);
      outage.down();
      await expect(viaSwitch.claim(newClaim())).rejects.toMatchObject({
        name: 'DependencyError',
        dependency: 'dynamodb',
        operation: 'PutItem',
      });
      outage.up();
      expect((await viaSwitch.claim(newClaim())).kind).toBe('claimed');
    } finally {
      clients.dynamodb.destroy();
      await outage.close();
    }
  });
});

describe('attempt log', () => {
  const at = (ms: number) => new Date(ms).toISOString();

  it('two transient failures then a give-up leave three entries in order, each with its code and receive', async () => {
    const claim = await enqueued();
    await inbox.beginProcessing(PK, seedOf(claim), lease('p1', T0));
    expect(await inbox.markFailed(PK, 'p1', 'timeout', T0 + 10, 1)).toBe(true);
    await inbox.beginProcessing(PK, seedOf(claim), lease('p2', T0 + 20, { receiveCount: 2 }));
    expect(await inbox.markFailed(PK, 'p2', 'http_500', T0 + 30, 2)).toBe(true);
    expect((await inbox.get(PK))?.failedAt).toBe(at(T0 + 30));
    await inbox.beginProcessing(PK, seedOf(claim), lease('p3', T0 + 40, { receiveCount: 3 }));
    const mark = { errorCode: 'http_502', messageId: 'msg-1', nowMs: T0 + 50, receiveCount: 3 };
    expect(await inbox.markDeadLettered(PK, 'p3', mark)).toBe(true);
    expect((await inbox.get(PK))?.attemptLog).toEqual([
      `${at(T0 + 10)}|timeout|1|failed`,
      `${at(T0 + 30)}|http_500|2|failed`,
      `${at(T0 + 50)}|http_502|3|dead-lettered`,
    ]);
  });

  it('keeps the last 20 attempts across trips through the queue: the lease trims the oldest', async () => {
    const claim = await enqueued();
    for (let i = 1; i <= 23; i++) {
      const nowMs = T0 + i * 100;
      await inbox.beginProcessing(PK, seedOf(claim), lease(`p${i}`, nowMs, { receiveCount: i }));
      expect(await inbox.markFailed(PK, `p${i}`, `code_${i}`, nowMs + 1, i)).toBe(true);
    }
    const log = (await inbox.get(PK))?.attemptLog ?? [];
    expect(log).toHaveLength(20);
    expect(log[0]).toBe(`${at(T0 + 400 + 1)}|code_4|4|failed`);
    expect(log[19]).toBe(`${at(T0 + 2300 + 1)}|code_23|23|failed`);
  });

  it('a redrive and a replay keep the log: it is history', async () => {
    const claim = await enqueued();
    await inbox.beginProcessing(PK, seedOf(claim), lease('p1', T0));
    await inbox.markDeadLettered(PK, 'p1', { errorCode: 'timeout', messageId: 'msg-1', nowMs: T0 + 10 });
    expect(await inbox.markRequeued(PK, T0 + 20, T0 + 15)).toBe(true);
    await inbox.beginProcessing(PK, seedOf(claim), lease('p2', T0 + 30, { messageId: 'msg-2' }));
    await inbox.markDeadLettered(PK, 'p2', { errorCode: 'http_500', messageId: 'msg-2', nowMs: T0 + 40 });
    const record = await inbox.get(PK);
    expect(await inbox.markReplayed(record!, { nowMs: T0 + 50, strandedBeforeMs: 0 })).toBe(true);
    expect((await inbox.get(PK))?.attemptLog).toEqual([
      `${at(T0 + 10)}|timeout||dead-lettered`,
      `${at(T0 + 40)}|http_500||dead-lettered`,
    ]);
  });
});
