// Replay (cli/operations/replay-deliveries.ts) against the emulators through the real SDK clients: deliveries
// go in through the real verify handler, the processor runs them, and a replay sends them through the
// processor again with the same dedup key and `ctx.idempotencyKey`, or is refused while the delivery is in
// flight.

import { UpdateItemCommand } from '@aws-sdk/client-dynamodb';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import {
  archivedPayload,
  openReplayTarget,
  type ReplayTarget,
  replayMany,
  replayOne,
} from '../../../../cli/operations/replay-deliveries';
import type { Target } from '../../../../cli/shared/target-types';
import { parseConfig } from '../../../../config';
import { queueRetentionSeconds } from '../../../../config/retention';
import { DynamoInbox } from '../../../../lambdas/adapters/dynamo-inbox';
import { toAttributes } from '../../../../lambdas/adapters/inbox-item';
import { standardWebhooks } from '../../../../lambdas/core/schemes/standard-webhooks';
import { PermanentError } from '../../../../lambdas/events';
import { useEmulators } from '../../../support/emulators';
import {
  deliverSigned,
  drainQueue,
  effectCounter,
  eventSourceFor,
  processHandlerFor,
} from '../../../support/pipeline';
import { isReplayMark } from '../../../support/rendered-writes';

const PROVIDER = 'standard-webhooks';
const config = parseConfig({
  providers: { [PROVIDER]: { scheme: 'standard-webhooks' } },
  queue: { retrySchedule: [1] },
});
const ctx = useEmulators({ config });
const SECRET = standardWebhooks.generateSecret();

let resources: typeof ctx.resources;
/** The handler's runs: each one's `ctx.idempotencyKey`. */
let runs: string[];
let failing: boolean;
let opened: ReplayTarget;

beforeEach(async () => {
  resources = await ctx.provision();
  runs = [];
  failing = false;
  const target = {
    kind: 'local',
    config,
    description: 'emulators',
    ...resources,
    clients: async () => ctx.clients,
    close: () => undefined,
  } as unknown as Target;
  opened = await openReplayTarget(target);
});

const inbox = () => new DynamoInbox(ctx.clients.dynamodb, resources.tableName);
const pk = (id: string) => `${PROVIDER}#${id}`;

async function deliver(id: string, type = 'order.paid'): Promise<number> {
  const answer = await deliverSigned(ctx, resources, {
    config,
    provider: PROVIDER,
    secret: SECRET,
    body: JSON.stringify({ type, timestamp: '2026-12-01T09:00:00Z', data: { id } }),
    id,
  });
  return answer.statusCode;
}

async function processAll(): Promise<void> {
  const { handlers } = effectCounter(PROVIDER, (context) => {
    runs.push(context.idempotencyKey);
    if (failing) throw new PermanentError('downstream_rejected');
  });
  const processor = processHandlerFor(ctx, resources, handlers, { config });
  await drainQueue(ctx, resources, eventSourceFor(ctx, resources, processor.handler));
}

describe('a single replay', () => {
  it('runs the handler again with the same idempotency key, and records the replay', async () => {
    expect(await deliver('msg_one')).toBe(202);
    await processAll();
    expect(runs).toEqual([`${PROVIDER}:msg_one`]);

    const outcome = await replayOne(opened, PROVIDER, 'msg_one', {
      by: 'arn:aws:iam::123456789012:user/ops',
    });
    expect(outcome).toMatchObject({ kind: 'replayed', record: { status: 'enqueued', replays: 1 } });
    await processAll();

    expect(runs).toEqual([`${PROVIDER}:msg_one`, `${PROVIDER}:msg_one`]);
    expect(await inbox().get(pk('msg_one'))).toMatchObject({
      status: 'processed',
      replays: 1,
      lastReplayedBy: 'arn:aws:iam::123456789012:user/ops',
      lastReplayedAt: expect.any(String),
    });
  });

  it('is still processed once when SQS hands the replay out twice (the processor dedup holds)', async () => {
    expect(await deliver('msg_twice')).toBe(202);
    await processAll();
    expect(await replayOne(opened, PROVIDER, 'msg_twice')).toMatchObject({ kind: 'replayed' });
    // A second copy of the replayed message, as an at-least-once queue may deliver it.
    const [message] = await ctx.receiveAll(resources.queueUrl);
    expect(message).toBeDefined();
    await ctx.queueOps.sendRaw(resources.queueUrl, message!.body, message!.attributes);
    await ctx.queueOps.sendRaw(resources.queueUrl, message!.body, message!.attributes);
    await ctx.queueOps.delete(resources.queueUrl, message!.receiptHandle);
    await processAll();
    expect(runs).toEqual([`${PROVIDER}:msg_twice`, `${PROVIDER}:msg_twice`]);
  });

  it('changes nothing on a dry run', async () => {
    expect(await deliver('msg_dry')).toBe(202);
    await processAll();
    const before = await inbox().get(pk('msg_dry'));
    expect(await replayOne(opened, PROVIDER, 'msg_dry', { dryRun: true })).toMatchObject({
      kind: 'would_replay',
    });
    expect(await inbox().get(pk('msg_dry'))).toEqual(before);
    expect(await ctx.countMessages(resources.queueUrl)).toMatchObject({ visible: 0, delayed: 0 });
  });

  it('is refused while the delivery is in flight: queued and not yet processed, or under a live lease', async () => {
    expect(await deliver('msg_busy')).toBe(202);
    // Verified and queued: the record is claimed until the processor takes it.
    expect(await replayOne(opened, PROVIDER, 'msg_busy')).toMatchObject({
      kind: 'refused',
      reason: 'in_flight',
    });
    await processAll();
    // A worker holds the lease now (a live one, a minute long).
    const record = await inbox().get(pk('msg_busy'));
    await inbox().markReplayed(record!, { nowMs: Date.now(), strandedBeforeMs: 0 });
    const lease = await inbox().beginProcessing(
      pk('msg_busy'),
      {
        provider: PROVIDER,
        dedupKey: 'msg_busy',
        payloadSha256: record!.payloadSha256,
        expiresAt: record!.expiresAt,
      },
      {
        token: 'live-worker',
        messageId: 'm-live',
        receiveCount: 1,
        payloadSha256: record!.payloadSha256,
        eventType: 'order.paid',
        leaseMs: 60_000,
        nowMs: Date.now(),
      },
    );
    expect(lease.kind).toBe('leased');
    const held = await inbox().get(pk('msg_busy'));
    // The write holds the rule too: a replay that read the record before the lease was taken is refused.
    expect(await inbox().markReplayed(record!, { nowMs: Date.now(), strandedBeforeMs: 0 })).toBe(false);
    expect(await replayOne(opened, PROVIDER, 'msg_busy')).toMatchObject({
      kind: 'refused',
      reason: 'in_flight',
    });
    expect(await inbox().get(pk('msg_busy'))).toEqual(held);
    expect((await ctx.countMessages(resources.queueUrl)).visible).toBe(0);
  });

  it('replays a stranded failed record (no change for longer than the main queue keeps a message), and refuses a recent one', async () => {
    expect(await deliver('msg_stranded')).toBe(202);
    expect(await deliver('msg_waiting')).toBe(202);
    await processAll();
    // As the processor leaves a record it could not mark on its last receive: failed, its message gone to
    // the DLQ (here purged). The first failed longer ago than the main queue's retention, the second now.
    const retentionMs = queueRetentionSeconds(config) * 1000;
    const setFailed = (id: string, atMs: number) =>
      ctx.clients.dynamodb.send(
        new UpdateItemCommand({
          TableName: resources.tableName,
          Key: toAttributes({ pk: pk(id) }),
          UpdateExpression: 'SET #status = :failed, failedAt = :at, receivedAt = :at REMOVE enqueuedAt',
          ExpressionAttributeNames: { '#status': 'status' },
          ExpressionAttributeValues: toAttributes({
            ':failed': 'failed',
            ':at': new Date(atMs).toISOString(),
          }),
        }),
      );
    await setFailed('msg_stranded', Date.now() - retentionMs - 60_000);
    await setFailed('msg_waiting', Date.now() - 60_000);
    runs = [];

    expect(await replayOne(opened, PROVIDER, 'msg_waiting')).toMatchObject({
      kind: 'refused',
      reason: 'in_flight',
    });
    expect((await ctx.countMessages(resources.queueUrl)).visible).toBe(0);

    // The write holds the rule too: a stranded read, then a failure mark after all, is refused.
    const seen = await inbox().get(pk('msg_stranded'));
    const cutoff = Date.now() - retentionMs;
    const markFailedAt = (atMs: number) =>
      ctx.clients.dynamodb.send(
        new UpdateItemCommand({
          TableName: resources.tableName,
          Key: toAttributes({ pk: pk('msg_stranded') }),
          UpdateExpression: 'SET failedAt = :at',
          ExpressionAttributeValues: toAttributes({ ':at': new Date(atMs).toISOString() }),
        }),
      );
    await markFailedAt(Date.now() - 1_000);
    expect(await inbox().markReplayed(seen!, { nowMs: Date.now(), strandedBeforeMs: cutoff })).toBe(false);
    await markFailedAt(Date.now() - retentionMs - 60_000);

    expect(await replayOne(opened, PROVIDER, 'msg_stranded')).toMatchObject({ kind: 'replayed' });
    await processAll();
    expect(await inbox().get(pk('msg_stranded'))).toMatchObject({ status: 'processed', replays: 1 });
    expect(await inbox().get(pk('msg_waiting'))).toMatchObject({ status: 'failed' });
    expect(runs).toEqual([expect.stringContaining('msg_stranded')]);
  });

  it('refuses an expired record as not_found, though DynamoDB has not deleted it yet, and sends nothing', async () => {
    expect(await deliver('msg_expired')).toBe(202);
    await processAll();
    const seen = await inbox().get(pk('msg_expired'));
    await ctx.clients.dynamodb.send(
      new UpdateItemCommand({
        TableName: resources.tableName,
        Key: toAttributes({ pk: pk('msg_expired') }),
        UpdateExpression: 'SET expiresAt = :past',
        ExpressionAttributeValues: toAttributes({ ':past': Math.floor(Date.now() / 1000) - 60 }),
      }),
    );
    expect(await replayOne(opened, PROVIDER, 'msg_expired')).toMatchObject({
      kind: 'refused',
      reason: 'not_found',
    });
    // The write holds it too: a replay that read the record while it lived does not revive it.
    expect(await inbox().markReplayed(seen!, { nowMs: Date.now(), strandedBeforeMs: 0 })).toBe(false);
    expect((await inbox().get(pk('msg_expired')))?.status).toBe('processed');
    expect((await ctx.countMessages(resources.queueUrl)).visible).toBe(0);
  });

  it("refuses bytes that are not the record's, and sends nothing", async () => {
    expect(await deliver('msg_tampered')).toBe(202);
    await processAll();
    await ctx.clients.dynamodb.send(
      new UpdateItemCommand({
        TableName: resources.tableName,
        Key: toAttributes({ pk: pk('msg_tampered') }),
        UpdateExpression: 'SET archiveBody = :other',
        ExpressionAttributeValues: { ':other': { B: Buffer.from('{"type":"order.refunded"}') } },
      }),
    );
    expect(await replayOne(opened, PROVIDER, 'msg_tampered')).toMatchObject({
      kind: 'refused',
      reason: 'archive_mismatch',
    });
    expect((await inbox().get(pk('msg_tampered')))?.status).toBe('processed');
    expect((await ctx.countMessages(resources.queueUrl)).visible).toBe(0);
  });

  it('recovers a dead letter whose DLQ message was purged', async () => {
    failing = true;
    expect(await deliver('msg_purged')).toBe(202);
    await processAll();
    expect((await inbox().get(pk('msg_purged')))?.status).toBe('dead-lettered');
    await ctx.queueOps.purge(resources.dlqUrl);
    expect((await ctx.countMessages(resources.dlqUrl)).visible).toBe(0);
    // The provider's own redelivery is a duplicate for the whole dedup window: it cannot bring it back.
    expect(await deliver('msg_purged')).toBe(200);

    failing = false;
    expect(await replayOne(opened, PROVIDER, 'msg_purged')).toMatchObject({ kind: 'replayed' });
    await processAll();
    expect((await inbox().get(pk('msg_purged')))?.status).toBe('processed');
    expect(runs).toEqual([`${PROVIDER}:msg_purged`, `${PROVIDER}:msg_purged`]);
  });

  it("moves a replayed dead letter out of the listing index's dead-letter partition", async () => {
    failing = true;
    expect(await deliver('msg_listed')).toBe(202);
    await processAll();
    const listed = () =>
      new DynamoInbox(ctx.clients.dynamodb, resources.tableName, { providers: [PROVIDER] }).listPage({
        provider: PROVIDER,
        status: 'dead-lettered',
        limit: 10,
      });
    expect((await listed()).records.map((r) => r.dedupKey)).toEqual(['msg_listed']);
    expect(await replayOne(opened, PROVIDER, 'msg_listed')).toMatchObject({ kind: 'replayed' });
    expect((await listed()).records).toEqual([]);
  });

  it('puts the record back as it was when the replay cannot be sent, lease included', async () => {
    expect(await deliver('msg_unsent')).toBe(202);
    await processAll();
    // A worker that died under its lease: `processing`, the lease lapsed. Replayable, and after a failed
    // send it must still be leasable by the next receive (its lapsed leaseUntil kept).
    await ctx.clients.dynamodb.send(
      new UpdateItemCommand({
        TableName: resources.tableName,
        Key: toAttributes({ pk: pk('msg_unsent') }),
        UpdateExpression: 'SET #status = :processing, leaseUntil = :lapsed',
        ExpressionAttributeNames: { '#status': 'status' },
        ExpressionAttributeValues: toAttributes({ ':processing': 'processing', ':lapsed': 1 }),
      }),
    );
    const before = await inbox().get(pk('msg_unsent'));
    const unsendable: ReplayTarget = {
      ...opened,
      queue: Object.assign(Object.create(opened.queue), {
        send: async () => {
          throw new Error('queue unreachable');
        },
      }),
    };
    await expect(replayOne(unsendable, PROVIDER, 'msg_unsent')).rejects.toThrow('queue unreachable');
    expect(await inbox().get(pk('msg_unsent'))).toEqual(before);
  });

  it('runs each copy of a delivery that gives up once: two copies do not take turns until SQS moves both', async () => {
    failing = true;
    expect(await deliver('msg_copies')).toBe(202);
    await processAll();
    expect(runs).toHaveLength(1);
    // A replay while the dead letter is still in the DLQ, then that dead letter moved back by hand: two
    // live copies of one delivery on the main queue, each failing for good.
    expect(await replayOne(opened, PROVIDER, 'msg_copies')).toMatchObject({ kind: 'replayed' });
    const [dead] = await ctx.queueOps.receive(resources.dlqUrl, { maxMessages: 1 });
    expect(dead).toBeDefined();
    await ctx.queueOps.sendRaw(resources.queueUrl, dead!.body, dead!.attributes);
    await ctx.queueOps.delete(resources.dlqUrl, dead!.receiptHandle);
    await processAll();
    // Each copy ran once and was then drained to the DLQ on its later receives.
    expect(runs).toHaveLength(3);
    expect((await inbox().get(pk('msg_copies')))?.status).toBe('dead-lettered');
    expect((await ctx.countMessages(resources.dlqUrl)).visible).toBe(2);
  });

  it("names the body's payloads/ object, never the archive's, when the body no longer travels inline", async () => {
    const body = JSON.stringify({ type: 'order.paid', data: { id: 'msg_big', pad: 'x'.repeat(4000) } });
    const answer = await deliverSigned(ctx, resources, {
      config,
      provider: PROVIDER,
      secret: SECRET,
      body,
      id: 'msg_big',
    });
    expect(answer.statusCode).toBe(202);
    await processAll();
    expect((await inbox().get(pk('msg_big')))?.archiveRef).toContain('/archive/');
    // The operator's config now sends bodies over 1 KiB through S3: the processor may read payloads/ only.
    const lowered = { ...config, inlineLimitBytes: 1024 };
    const target = { ...opened.target, config: lowered } as Target;
    expect(await replayOne({ ...opened, target }, PROVIDER, 'msg_big')).toMatchObject({ kind: 'replayed' });
    const [message] = await ctx.queueOps.receive(resources.queueUrl, { maxMessages: 1 });
    expect(JSON.parse(message!.body).dataref).toMatch(new RegExp(`^s3://${resources.bucketName}/payloads/`));
  });

  it('sends its message when the SDK retries a replay mark that applied and whose answer was lost', async () => {
    expect(await deliver('msg_retried')).toBe(202);
    await processAll();
    const real = ctx.clients.dynamodb;
    // The mark is applied, then sent again, as the SDK resends a request whose answer timed out.
    const retrying = Object.create(real) as typeof real;
    retrying.send = (async (command: { input?: Record<string, unknown> }) => {
      if (command.input && isReplayMark(command.input)) await real.send(command as never);
      return real.send(command as never);
    }) as typeof real.send;
    const target = {
      ...opened.target,
      clients: async () => ({ ...ctx.clients, dynamodb: retrying }),
    } as Target;
    expect(await replayOne(await openReplayTarget(target), PROVIDER, 'msg_retried')).toMatchObject({
      kind: 'replayed',
    });
    await processAll();
    expect(runs).toEqual([`${PROVIDER}:msg_retried`, `${PROVIDER}:msg_retried`]);
    expect((await inbox().get(pk('msg_retried')))?.status).toBe('processed');
  });

  it("is refused while a worker holds a live lease, even on an operator's clock minutes ahead", async () => {
    expect(await deliver('msg_skewed')).toBe(202);
    await processAll();
    const record = (await inbox().get(pk('msg_skewed')))!;
    const nowMs = Date.now();
    const lease = await inbox().beginProcessing(
      record.pk,
      {
        provider: PROVIDER,
        dedupKey: 'msg_skewed',
        payloadSha256: record.payloadSha256,
        expiresAt: record.expiresAt,
      },
      {
        token: 'live-worker',
        messageId: 'msg-redelivered',
        receiveCount: 1,
        payloadSha256: record.payloadSha256,
        eventType: record.eventType ?? 'order.paid',
        leaseMs: 60_000,
        nowMs,
      },
    );
    // A processed record is not leased again; make it the worker's live lease, as a replayed copy's is.
    expect(lease.kind).toBe('processed');
    await ctx.clients.dynamodb.send(
      new UpdateItemCommand({
        TableName: resources.tableName,
        Key: toAttributes({ pk: record.pk }),
        UpdateExpression: 'SET #status = :processing, processingToken = :token, leaseUntil = :until',
        ExpressionAttributeNames: { '#status': 'status' },
        ExpressionAttributeValues: toAttributes({
          ':processing': 'processing',
          ':token': 'live-worker',
          ':until': nowMs + 60_000,
        }),
      }),
    );
    const skewed = vi.spyOn(Date, 'now').mockImplementation(() => nowMs + 120_000);
    try {
      expect(await replayOne(opened, PROVIDER, 'msg_skewed')).toMatchObject({
        kind: 'refused',
        reason: 'in_flight',
      });
    } finally {
      skewed.mockRestore();
    }
    expect(await inbox().markProcessed(record.pk, 'live-worker', Date.now())).toBe(true);
  });

  it('says not_found for a key the inbox does not know', async () => {
    expect(await replayOne(opened, PROVIDER, 'msg_never')).toEqual({
      kind: 'refused',
      reason: 'not_found',
      record: undefined,
    });
  });
});

describe('archivedPayload', () => {
  it('gives the archived bytes, reading the whole record when handed a partial one', async () => {
    expect(await deliver('msg_reveal')).toBe(202);
    await processAll();
    const record = await inbox().get(pk('msg_reveal'));
    const bytes = await archivedPayload(opened.target, record!);
    expect(JSON.parse(bytes!.toString())).toMatchObject({ data: { id: 'msg_reveal' } });
    const { archiveBody: _projectedAway, ...partial } = record!;
    expect(await archivedPayload(opened.target, partial)).toEqual(bytes);
    expect(await archivedPayload(opened.target, { ...partial, pk: pk('msg_gone') })).toBeUndefined();
  });
});

describe('a filtered replay', () => {
  it('replays what the filter matches and counts what it refuses', async () => {
    for (const id of ['msg_a', 'msg_b', 'msg_c']) expect(await deliver(id)).toBe(202);
    await processAll();
    failing = true;
    expect(await deliver('msg_dead')).toBe(202);
    await processAll();
    failing = false;
    runs = [];
    expect(await deliver('msg_queued')).toBe(202); // claimed, not yet processed: in flight

    const progress: [number, number][] = [];
    const processed = await replayMany(
      opened,
      { provider: PROVIDER, status: 'processed', sinceMs: Date.now() - 3_600_000 },
      { onProgress: (done, total) => progress.push([done, total]) },
    );
    expect(processed).toMatchObject({ matched: 3, replayed: 3, refused: {}, dryRun: false });
    expect(processed.deliveries.map((d) => [d.dedupKey, d.outcome]).sort()).toEqual([
      ['msg_a', 'replayed'],
      ['msg_b', 'replayed'],
      ['msg_c', 'replayed'],
    ]);
    expect(progress.at(-1)).toEqual([3, 3]);

    const everything = await replayMany(opened, { sinceMs: Date.now() - 3_600_000 }, { dryRun: true });
    // The three just replayed are enqueued again, and msg_queued is claimed: four in flight, one dead letter.
    expect(everything).toMatchObject({ matched: 5, replayed: 1, refused: { in_flight: 4 }, dryRun: true });
    // A dry run names what it would replay and what it would refuse, and why.
    expect(everything.deliveries.find((d) => d.dedupKey === 'msg_dead')).toEqual({
      provider: PROVIDER,
      dedupKey: 'msg_dead',
      inboxStatus: 'dead-lettered',
      outcome: 'would_replay',
    });
    expect(everything.deliveries.find((d) => d.dedupKey === 'msg_queued')).toMatchObject({
      outcome: 'refused',
      reason: 'in_flight',
    });

    await processAll();
    expect(runs.sort()).toEqual(['msg_a', 'msg_b', 'msg_c', 'msg_queued'].map((id) => `${PROVIDER}:${id}`));
  });

  it('leaves out what was received after --until', async () => {
    expect(await deliver('msg_early')).toBe(202);
    await processAll();
    const untilMs = Date.now() + 1;
    await new Promise((resolve) => setTimeout(resolve, 5));
    expect(await deliver('msg_late')).toBe(202);
    await processAll();
    const summary = await replayMany(opened, { sinceMs: 0, untilMs }, { dryRun: true });
    expect(summary).toMatchObject({ matched: 1, replayed: 1 });
  });
});
