// The listing index against dynalite through the real SDK client: records enter and leave the attention
// partitions as the processor's transitions change their status, pages come back newest first and each
// record once across shards and days, the lookups by key prefix and delivery id, the scan a table without
// the index falls back to, and that a listing reads about its page, not the table.
import { randomUUID } from 'node:crypto';
import { CreateTableCommand, QueryCommand, waitUntilTableExists } from '@aws-sdk/client-dynamodb';
import { beforeAll, describe, expect, it } from 'vitest';
import { attentionPartition, LIST_INDEX, LIST_SHARDS, listShard } from '../../../config/list-index';
import { DynamoInbox } from '../../../lambdas/adapters/dynamo-inbox';
import { InvalidCursorError, type ListFilter } from '../../../lambdas/adapters/dynamo-inbox-listing';
import { INBOX_STATUSES, type InboxRecord, inboxKey, newClaimRecord } from '../../../lambdas/core/inbox';
import { useEmulators } from '../../support/emulators';
import { inboxRecord, writeRecords } from '../../support/inbox-records';

const env = useEmulators();

const HOUR = 3_600_000;
const T0 = Date.UTC(2026, 0, 15, 12, 0, 0);
const PROVIDERS = ['github', 'stripe', 'zoom'];

const keys = (records: InboxRecord[]) => records.map((r) => r.pk);
/** The order listings promise: newest received first, the table key breaking ties. */
const newestFirst = (records: InboxRecord[]) =>
  [...records].sort((a, b) =>
    a.receivedAt === b.receivedAt ? (a.pk < b.pk ? 1 : -1) : a.receivedAt < b.receivedAt ? 1 : -1,
  );

async function freshInbox(): Promise<DynamoInbox> {
  const { tableName } = await env.provision();
  return new DynamoInbox(env.clients.dynamodb, tableName, { providers: PROVIDERS });
}

/** Every page of a listing, by its cursor. */
async function allPages(inbox: DynamoInbox, filter: ListFilter) {
  const pages: InboxRecord[][] = [];
  let cursor: string | undefined;
  do {
    const page = await inbox.listPage({ ...filter, ...(cursor === undefined ? {} : { cursor }) });
    expect(page.warning).toBeUndefined();
    pages.push(page.records);
    cursor = page.cursor;
  } while (cursor !== undefined && pages.length < 100);
  return pages;
}

describe('the attention partitions follow the status', () => {
  let inbox: DynamoInbox;
  let tableName: string;
  beforeAll(async () => {
    tableName = (await env.provision()).tableName;
    // The clock the records are written with: at the real time, their day-long TTL would have passed.
    inbox = new DynamoInbox(env.clients.dynamodb, tableName, { providers: PROVIDERS, now: () => T0 });
  });

  /** The table keys the index holds in this provider's attention partitions for `status`. */
  async function inAttention(status: 'failed' | 'dead-lettered'): Promise<string[]> {
    const found: string[] = [];
    for (let shard = 0; shard < LIST_SHARDS; shard++) {
      const { Items } = await env.clients.dynamodb.send(
        new QueryCommand({
          TableName: tableName,
          IndexName: LIST_INDEX.name,
          KeyConditionExpression: 'listKey = :k',
          ExpressionAttributeValues: { ':k': { S: attentionPartition('github', status, shard) } },
        }),
      );
      found.push(...(Items ?? []).map((item) => item.pk?.S ?? ''));
    }
    return found;
  }

  it('puts a failed or dead-lettered record in its attention partition and takes it out again', async () => {
    const dedupKey = randomUUID();
    const pk = inboxKey('github', dedupKey);
    const claim = {
      provider: 'github',
      dedupKey,
      deliveryId: 'd-1',
      eventType: 'push',
      payloadSha256: 'b'.repeat(64),
      nowMs: T0,
      leaseSeconds: 30,
      ttlSeconds: 86_400,
      claimToken: 'c',
    };
    expect((await inbox.claim(claim)).kind).toBe('claimed');
    // Listed from the claim on, before the processor has touched it.
    expect((await inbox.listPage({ provider: 'github', limit: 10 })).records).toMatchObject([
      { pk, status: 'claimed' },
    ]);
    const seed = { ...newClaimRecord(claim) };
    const lease = (token: string, nowMs: number) => ({
      token,
      messageId: 'm-1',
      receiveCount: 1,
      payloadSha256: claim.payloadSha256,
      eventType: 'push',
      leaseMs: 60_000,
      nowMs,
    });
    const failedPage = () => inbox.listPage({ provider: 'github', status: 'failed', limit: 10 });

    expect((await inbox.beginProcessing(pk, seed, lease('p1', T0 + 1))).kind).toBe('leased');
    expect(await inbox.markFailed(pk, 'p1', 'handler_error', T0 + 2)).toBe(true);
    expect(await inAttention('failed')).toEqual([pk]);
    expect(keys((await failedPage()).records)).toEqual([pk]);

    // The retry takes it out of the attention partition, and processing it keeps it out.
    expect((await inbox.beginProcessing(pk, seed, lease('p2', T0 + 3))).kind).toBe('leased');
    expect(await inAttention('failed')).toEqual([]);
    expect(await inbox.markProcessed(pk, 'p2', T0 + 4)).toBe(true);
    expect(await inAttention('failed')).toEqual([]);
    expect((await failedPage()).records).toEqual([]);
    expect(keys((await inbox.listPage({ provider: 'github', limit: 10 })).records)).toEqual([pk]);
  });

  it('moves a dead letter back home when it is requeued', async () => {
    const dedupKey = randomUUID();
    const pk = inboxKey('github', dedupKey);
    const record = { ...inboxRecord({ provider: 'github', dedupKey, receivedMs: T0, status: 'processing' }) };
    await writeRecords(env.clients.dynamodb, tableName, [{ ...record, processingToken: 'p' }]);
    await inbox.markDeadLettered(pk, 'p', { errorCode: 'handler_error', messageId: 'm', nowMs: T0 + 1 });
    expect(await inAttention('dead-lettered')).toEqual([pk]);
    expect(keys((await inbox.listPage({ status: 'dead-lettered', limit: 10 })).records)).toEqual([pk]);

    expect(await inbox.markRequeued(pk, T0 + 2, T0 + 2)).toBe(true);
    expect(await inAttention('dead-lettered')).toEqual([]);
    const everything = await inbox.listPage({ limit: 10 });
    expect(everything.records.filter((r) => r.pk === pk).map((r) => r.status)).toEqual(['enqueued']);
  });

  it('keeps the index keys off the record it returns', async () => {
    const [record] = (await inbox.listPage({ limit: 1 })).records;
    expect(record).toBeDefined();
    expect(Object.keys(record ?? {})).not.toContain(LIST_INDEX.partitionKey);
    expect(Object.keys(record ?? {})).not.toContain(LIST_INDEX.sortKey);
  });
});

describe('paging', () => {
  let inbox: DynamoInbox;
  let records: InboxRecord[];
  beforeAll(async () => {
    inbox = await freshInbox();
    // Three days, three providers, every status, and ties: several records received in the same ms.
    records = Array.from({ length: 90 }, (_, i) =>
      inboxRecord({
        provider: PROVIDERS[i % 3] as string,
        dedupKey: `key-${String(i).padStart(3, '0')}`,
        receivedMs: T0 - Math.floor(i / 3) * 2 * HOUR - (i % 2),
        status: INBOX_STATUSES[i % INBOX_STATUSES.length] as InboxRecord['status'],
      }),
    );
    await writeRecords(env.clients.dynamodb, (inbox as unknown as { tableName: string }).tableName, records);
  });

  it('spreads the records over every shard', () => {
    expect(new Set(records.map((r) => listShard(r.pk))).size).toBe(LIST_SHARDS);
  });

  it('returns each record once, newest first, page after page', async () => {
    const pages = await allPages(inbox, { limit: 7 });
    expect(pages.slice(0, -1).every((page) => page.length === 7)).toBe(true);
    expect(keys(pages.flat())).toEqual(keys(newestFirst(records)));
  });

  it('filters by provider, by status, and by both, across pages', async () => {
    const expect_ = (filter: Omit<ListFilter, 'limit'>, wanted: InboxRecord[]) =>
      allPages(inbox, { ...filter, limit: 4 }).then((pages) =>
        expect(keys(pages.flat())).toEqual(keys(newestFirst(wanted))),
      );
    await expect_(
      { provider: 'stripe' },
      records.filter((r) => r.provider === 'stripe'),
    );
    await expect_(
      { status: 'dead-lettered' },
      records.filter((r) => r.status === 'dead-lettered'),
    );
    await expect_(
      { status: 'processed' },
      records.filter((r) => r.status === 'processed'),
    );
    await expect_(
      { provider: 'zoom', status: 'failed' },
      records.filter((r) => r.provider === 'zoom' && r.status === 'failed'),
    );
  });

  it('keeps to since and until, both inclusive', async () => {
    const sinceMs = T0 - 30 * HOUR;
    const untilMs = T0 - 10 * HOUR;
    const inside = records.filter((r) => {
      const at = Date.parse(r.receivedAt);
      return at >= sinceMs && at <= untilMs;
    });
    expect(inside.length).toBeGreaterThan(10);
    expect(inside.some((r) => Date.parse(r.receivedAt) === untilMs)).toBe(true);
    const pages = await allPages(inbox, { sinceMs, untilMs, limit: 5 });
    expect(keys(pages.flat())).toEqual(keys(newestFirst(inside)));
    expect(await inbox.listPage({ sinceMs: untilMs, untilMs: sinceMs, limit: 5 })).toEqual({
      records: [],
      itemsRead: 0,
      readUnits: 0,
    });
  });

  it('refuses a cursor it did not make', async () => {
    await expect(inbox.listPage({ limit: 5, cursor: 'not-a-cursor' })).rejects.toBeInstanceOf(
      InvalidCursorError,
    );
  });
});

describe('lookups', () => {
  let inbox: DynamoInbox;
  beforeAll(async () => {
    inbox = await freshInbox();
    await writeRecords(env.clients.dynamodb, (inbox as unknown as { tableName: string }).tableName, [
      inboxRecord({ provider: 'github', dedupKey: 'abcdef-1', receivedMs: T0, status: 'processed' }),
      inboxRecord({ provider: 'github', dedupKey: 'abcdef-2', receivedMs: T0 + 1, status: 'failed' }),
      inboxRecord({ provider: 'github', dedupKey: 'abcxyz-1', receivedMs: T0 + 2, status: 'processed' }),
      // The prefix inside a key, not at its start.
      inboxRecord({ provider: 'github', dedupKey: 'zz-abcdef-9', receivedMs: T0 + 9, status: 'processed' }),
      inboxRecord({ provider: 'stripe', dedupKey: 'abcdef-3', receivedMs: T0 + 3, status: 'processed' }),
      inboxRecord({
        provider: 'stripe',
        dedupKey: 'evt_9',
        receivedMs: T0,
        status: 'processed',
        deliveryId: 'D9',
      }),
      inboxRecord({
        provider: 'zoom',
        dedupKey: 'z-9',
        receivedMs: T0 + 5,
        status: 'dead-lettered',
        deliveryId: 'D9',
      }),
    ]);
  });

  it('finds by dedup-key prefix within one provider, newest first', async () => {
    expect(keys(await inbox.findByPrefix('github', 'abcdef', 10))).toEqual([
      'github#abcdef-2',
      'github#abcdef-1',
    ]);
    expect(keys(await inbox.findByPrefix('github', 'abcxyz', 10))).toEqual(['github#abcxyz-1']);
    expect(keys(await inbox.findByPrefix('github', 'abcdef', 1))).toEqual(['github#abcdef-2']);
    expect(await inbox.findByPrefix('github', 'nothing', 10)).toEqual([]);
  });

  it('finds by delivery id, in one provider or in all', async () => {
    expect(keys(await inbox.findByDeliveryId('D9'))).toEqual(['zoom#z-9', 'stripe#evt_9']);
    expect(keys(await inbox.findByDeliveryId('D9', 'stripe'))).toEqual(['stripe#evt_9']);
  });
});

describe('cost', () => {
  it('reads on the order of the page, not the table', async () => {
    const inbox = await freshInbox();
    const table = (inbox as unknown as { tableName: string }).tableName;
    // 3,000 records over 2 days; 1 in 20 dead-lettered, 1 in 50 failed.
    const records = Array.from({ length: 3_000 }, (_, i) =>
      inboxRecord({
        provider: PROVIDERS[i % 3] as string,
        dedupKey: `k${i}`,
        receivedMs: T0 - i * 60_000,
        status: i % 20 === 0 ? 'dead-lettered' : i % 50 === 0 ? 'failed' : 'processed',
      }),
    );
    await writeRecords(env.clients.dynamodb, table, records);
    const limit = 20;
    const calls: ListFilter[] = [
      { status: 'dead-lettered', sinceMs: T0 - 24 * HOUR, limit },
      { provider: 'github', limit },
      { limit },
    ];
    for (const filter of calls) {
      const page = await inbox.listPage(filter);
      expect(page.records).toHaveLength(limit);
      // The page's records got, a first page from each partition (12 to 36 of them here), and refills of
      // the partitions the page came from: a few times the page, on a table 150 times larger.
      expect(page.itemsRead, JSON.stringify(filter)).toBeLessThanOrEqual(4 * limit);
    }
  });
});

describe('a table without the index', () => {
  it('is scanned, with a warning, and still pages and finds prefixes', async () => {
    const tableName = `no-index-${randomUUID().slice(0, 8)}`;
    await env.clients.dynamodb.send(
      new CreateTableCommand({
        TableName: tableName,
        AttributeDefinitions: [{ AttributeName: 'pk', AttributeType: 'S' }],
        KeySchema: [{ AttributeName: 'pk', KeyType: 'HASH' }],
        BillingMode: 'PAY_PER_REQUEST',
      }),
    );
    await waitUntilTableExists({ client: env.clients.dynamodb, maxWaitTime: 30 }, { TableName: tableName });
    const records = Array.from({ length: 5 }, (_, i) =>
      inboxRecord({ provider: 'github', dedupKey: `old-key-${i}`, receivedMs: T0 + i, status: 'processed' }),
    );
    await writeRecords(env.clients.dynamodb, tableName, records, { index: false });
    const inbox = new DynamoInbox(env.clients.dynamodb, tableName, { providers: PROVIDERS });

    const first = await inbox.listPage({ limit: 3 });
    expect(first.warning).toMatch(/no list index/);
    expect(first.itemsRead).toBe(5);
    const second = await inbox.listPage({ limit: 3, cursor: first.cursor });
    expect(second.cursor).toBeUndefined();
    expect(keys([...first.records, ...second.records])).toEqual(keys(newestFirst(records)));
    expect(keys(await inbox.findByPrefix('github', 'old-key-3', 10))).toEqual(['github#old-key-3']);
  });
});

describe('expired records', () => {
  it('leaves a record whose expiresAt has passed out of pages and lookups, though DynamoDB still returns it', async () => {
    const { tableName } = await env.provision();
    const now = Date.now();
    const live = inboxRecord({
      provider: 'github',
      dedupKey: 'live-1',
      receivedMs: now - HOUR,
      status: 'dead-lettered',
    });
    const expired = {
      ...inboxRecord({
        provider: 'github',
        dedupKey: 'expired-1',
        receivedMs: now - 2 * HOUR,
        status: 'dead-lettered',
      }),
      deliveryId: 'd-expired',
      expiresAt: Math.floor(now / 1000) - 60,
    };
    const reader = new DynamoInbox(env.clients.dynamodb, tableName, { providers: PROVIDERS });
    await writeRecords(env.clients.dynamodb, tableName, [live, expired]);
    // Still there for a plain read: TTL deletes it up to days later.
    expect((await reader.get(expired.pk))?.dedupKey).toBe('expired-1');
    expect(keys((await reader.listPage({ limit: 10 })).records)).toEqual([live.pk]);
    expect(keys((await reader.listPage({ status: 'dead-lettered', limit: 10 })).records)).toEqual([live.pk]);
    expect(await reader.findByPrefix('github', 'expired', 10)).toEqual([]);
    expect(await reader.findByDeliveryId('d-expired')).toEqual([]);
    expect(keys((await reader.listPage({ limit: 10, scan: true })).records)).toEqual([live.pk]);
  });
});
