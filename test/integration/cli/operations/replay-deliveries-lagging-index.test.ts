// Replay over a listing index as DynamoDB runs it: eventually consistent (test/support/lagging-index.ts),
// so the index, and an eventually consistent read of the table, may still show a dead letter that was
// replayed and processed since. A replay decides on the record the table holds (a consistent read, and
// the conditional mark), never on the listing's copy: a filtered replay re-checks each candidate's status
// when its turn comes, and a dry run by key prefix says what a real run would do.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { lookUpDelivery } from '../../../../cli/operations/delivery-lookup';
import {
  matchingRecords,
  openReplayTarget,
  type ReplayTarget,
  replayMany,
  replayOne,
} from '../../../../cli/operations/replay-deliveries';
import type { Target } from '../../../../cli/shared/target-types';
import { parseConfig } from '../../../../config';
import { DynamoInbox } from '../../../../lambdas/adapters/dynamo-inbox';
import type { InboxRecord } from '../../../../lambdas/core/inbox';
import { standardWebhooks } from '../../../../lambdas/core/schemes/standard-webhooks';
import { PermanentError } from '../../../../lambdas/events';
import { useEmulators } from '../../../support/emulators';
import { type LaggingIndex, lagIndex } from '../../../support/lagging-index';
import {
  deliverSigned,
  drainQueue,
  effectCounter,
  eventSourceFor,
  processHandlerFor,
} from '../../../support/pipeline';

const PROVIDER = 'standard-webhooks';
const config = parseConfig({
  providers: { [PROVIDER]: { scheme: 'standard-webhooks' } },
  queue: { retrySchedule: [1] },
});
const ctx = useEmulators({ config });
const SECRET = standardWebhooks.generateSecret();

let resources: typeof ctx.resources;
let runs: string[];
let failing: boolean;
let opened: ReplayTarget;
let lag: LaggingIndex;

beforeEach(async () => {
  resources = await ctx.provision();
  runs = [];
  failing = false;
  // On the file's one client, so the pipeline's writes and the replay's reads all go through the double.
  lag = lagIndex(ctx.clients.dynamodb, { tableName: resources.tableName, staleTableReads: true });
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

afterEach(async () => {
  await lag.remove();
});

const inbox = () => new DynamoInbox(ctx.clients.dynamodb, resources.tableName);
const pk = (id: string) => `${PROVIDER}#${id}`;
const deadLettered = {
  provider: PROVIDER,
  status: 'dead-lettered' as const,
  sinceMs: Date.now() - 3_600_000,
};

async function deliver(id: string): Promise<void> {
  const answer = await deliverSigned(ctx, resources, {
    config,
    provider: PROVIDER,
    secret: SECRET,
    body: JSON.stringify({ type: 'order.paid', timestamp: '2026-12-01T09:00:00Z', data: { id } }),
    id,
  });
  expect(answer.statusCode).toBe(202);
}

async function processAll(): Promise<void> {
  const { handlers } = effectCounter(PROVIDER, (context) => {
    runs.push(context.idempotencyKey);
    if (failing) throw new PermanentError('downstream_rejected');
  });
  const processor = processHandlerFor(ctx, resources, handlers, { config });
  await drainQueue(ctx, resources, eventSourceFor(ctx, resources, processor.handler));
}

/** Two dead letters; then, with the index frozen, the first replayed and processed. */
async function oneRecoveredWhileTheIndexLags(): Promise<void> {
  failing = true;
  await deliver('msg_recovered');
  await deliver('msg_dead');
  await processAll();
  failing = false;
  lag.freeze();
  expect(await replayOne(opened, PROVIDER, 'msg_recovered')).toMatchObject({ kind: 'replayed' });
  await processAll();
  expect((await inbox().get(pk('msg_recovered')))?.status).toBe('processed');
  runs = [];
}

describe('replay over a lagging listing index', () => {
  it('does not replay again, under --status dead-lettered, a dead letter processed since that the index still lists', async () => {
    await oneRecoveredWhileTheIndexLags();
    const summary = await replayMany(opened, deadLettered);
    expect(summary.deliveries.filter((d) => d.outcome === 'replayed').map((d) => d.dedupKey)).toEqual([
      'msg_dead',
    ]);
    await processAll();
    expect(runs).toEqual([`${PROVIDER}:msg_dead`]);
    expect((await inbox().get(pk('msg_recovered')))?.replays).toBe(1);
  });

  it('re-checks each candidate against the table when its turn comes: one whose status changed after the listing is refused', async () => {
    failing = true;
    await deliver('msg_recovered');
    await deliver('msg_dead');
    await processAll();
    failing = false;
    // The candidates as the listing named them, before the first was replayed and processed.
    const listed: InboxRecord[] = await matchingRecords(opened.inbox, deadLettered);
    expect(listed.map((r) => r.dedupKey).sort()).toEqual(['msg_dead', 'msg_recovered']);
    expect(await replayOne(opened, PROVIDER, 'msg_recovered')).toMatchObject({ kind: 'replayed' });
    await processAll();
    runs = [];
    const stale: ReplayTarget = {
      ...opened,
      inbox: Object.assign(Object.create(opened.inbox), {
        listPage: async () => ({ records: listed, itemsRead: 0, readUnits: 0 }),
      }),
    };
    const summary = await replayMany(stale, deadLettered);
    expect(summary).toMatchObject({ matched: 2, replayed: 1, refused: { status_changed: 1 } });
    expect(summary.deliveries.find((d) => d.dedupKey === 'msg_recovered')).toMatchObject({
      outcome: 'refused',
      reason: 'status_changed',
      inboxStatus: 'processed',
    });
    await processAll();
    expect(runs).toEqual([`${PROVIDER}:msg_dead`]);
  });

  it("judges a dry run by key prefix on the table's record: a dead letter replayed since is in flight, not replayable", async () => {
    failing = true;
    await deliver('msg_prefixed_1');
    await processAll();
    failing = false;
    lag.freeze();
    // Replayed and not processed yet: enqueued in the table; the index and a lagging read say dead-lettered.
    expect(await replayOne(opened, PROVIDER, 'msg_prefixed_1')).toMatchObject({ kind: 'replayed' });
    const lookup = await lookUpDelivery(opened.inbox, PROVIDER, 'msg_prefixed');
    expect(lookup).toMatchObject({ kind: 'found', record: { status: 'enqueued' } });
    const record = lookup.kind === 'found' ? lookup.record : undefined;
    expect(await replayOne(opened, PROVIDER, 'msg_prefixed_1', { dryRun: true, record })).toMatchObject({
      kind: 'refused',
      reason: 'in_flight',
    });
  });
});
