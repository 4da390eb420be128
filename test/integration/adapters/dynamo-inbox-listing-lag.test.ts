// The listing as DynamoDB runs it: its index is eventually consistent (test/support/lagging-index.ts), so
// an entry may be missing, sit in the partition of a status the record has left, or in two partitions at
// once, and an eventually consistent read of the table may return an older record. Whatever the index
// says, a listing shows each delivery once, with the status the table holds, and a status filter keeps
// only what the table holds in that status.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createAwsClients } from '../../../lambdas/adapters/clients';
import { DynamoInbox } from '../../../lambdas/adapters/dynamo-inbox';
import { INBOX_STATUSES, type InboxRecord, type InboxStatus } from '../../../lambdas/core/inbox';
import { useEmulators } from '../../support/emulators';
import { inboxRecord, writeRecords } from '../../support/inbox-records';
import { type LaggingIndex, type LaggingIndexOptions, lagIndex } from '../../support/lagging-index';

const env = useEmulators();

const T0 = Date.UTC(2026, 0, 15, 12, 0, 0);
const PROVIDERS = ['github', 'stripe'];

let lag: LaggingIndex;
let client: ReturnType<typeof createAwsClients>['dynamodb'];
let tableName: string;
let inbox: DynamoInbox;

async function setUp(options: Omit<LaggingIndexOptions, 'tableName'> = {}) {
  tableName = (await env.provision()).tableName;
  client = createAwsClients(env.emulators.clientOptions).dynamodb;
  lag = lagIndex(client, { tableName, staleTableReads: true, ...options });
  inbox = new DynamoInbox(client, tableName, { providers: PROVIDERS, now: () => T0 });
}

afterEach(async () => {
  await lag?.remove();
  client?.destroy();
});

const record = (dedupKey: string, status: InboxStatus, minutesAgo = 0, provider = 'github') =>
  inboxRecord({ provider, dedupKey, receivedMs: T0 - minutesAgo * 60_000, status });
/** The record rewritten in another status: its index key moves where the status is failed or dead-lettered. */
const write = (...records: InboxRecord[]) => writeRecords(client, tableName, records);
const keys = (records: InboxRecord[]) => records.map((r) => r.pk);

describe('a listing over a lagging index', () => {
  beforeEach(() => setUp());

  it('leaves out of --status dead-lettered a delivery the table holds processed, though the index and a lagging replica still say dead-lettered', async () => {
    await write(record('a', 'dead-lettered', 2), record('b', 'dead-lettered', 1));
    lag.freeze();
    await write(record('a', 'processed', 2));
    const page = await inbox.listPage({ status: 'dead-lettered', limit: 10 });
    expect(keys(page.records)).toEqual(['github#b']);
  });

  it('shows the status the table holds, not the one a lagging replica returns', async () => {
    await write(record('a', 'dead-lettered'));
    lag.freeze();
    await write(record('a', 'enqueued'));
    const page = await inbox.listPage({ limit: 10 });
    expect(page.records.map((r) => [r.pk, r.status])).toEqual([['github#a', 'enqueued']]);
  });

  it('lists a delivery the index holds in two partitions once, with the status the table holds', async () => {
    await write(record('a', 'failed'));
    lag.freeze('both');
    await write(record('a', 'processed'));
    const page = await inbox.listPage({ provider: 'github', limit: 10 });
    expect(page.records.map((r) => [r.pk, r.status])).toEqual([['github#a', 'processed']]);
  });

  it('finds by key prefix the record the table holds', async () => {
    await write(record('abcdef-1', 'dead-lettered'));
    lag.freeze();
    await write(record('abcdef-1', 'enqueued'));
    expect((await inbox.findByPrefix('github', 'abcdef', 10)).map((r) => r.status)).toEqual(['enqueued']);
  });

  it('says on a page read from the index that the index may lag, and nothing on a scan', async () => {
    await write(record('a', 'processed'));
    expect((await inbox.listPage({ limit: 10 })).note).toMatch(/eventually consistent/);
    expect((await inbox.listPage({ limit: 10, scan: true })).note).toBeUndefined();
  });
});

describe('a listing over a lagging index, searched', () => {
  // Seeded: a failure names its seed, and the same seed runs the same way again.
  for (const seed of [1, 2, 3]) {
    it(`never shows a status the table does not hold, nor a delivery twice (seed ${seed})`, async () => {
      await setUp({ maxLagWrites: 6, seed });
      let random = seed;
      const next = (n: number) => {
        random = (random * 1_103_515_245 + 12_345) % 2 ** 31;
        return random % n;
      };
      const ids = Array.from({ length: 12 }, (_, i) => `k${i}`);
      for (let step = 0; step < 24; step++) {
        const id = ids[next(ids.length)] as string;
        const status = INBOX_STATUSES[next(INBOX_STATUSES.length)] as InboxStatus;
        await write(record(id, status, ids.indexOf(id), 'github'));
        const filter =
          step % 2 === 0 ? undefined : (INBOX_STATUSES[next(INBOX_STATUSES.length)] as InboxStatus);
        const page = await inbox.listPage({ limit: 50, ...(filter ? { status: filter } : {}) });
        expect(new Set(keys(page.records)).size).toBe(page.records.length);
        for (const listed of page.records) {
          const truth = await inbox.get(listed.pk);
          expect(listed.status, `seed ${seed} step ${step} ${listed.pk}`).toBe(truth?.status);
          if (filter) expect(listed.status).toBe(filter);
        }
      }
    });
  }
});
