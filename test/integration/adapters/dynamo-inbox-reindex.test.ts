// reindexInbox against dynalite: records written before the listing index (no index keys) are listed
// once reindexed, each in the partition of its status; a record that already has its keys is left alone.
import { describe, expect, it } from 'vitest';
import { DynamoInbox } from '../../../lambdas/adapters/dynamo-inbox';
import { reindexInbox } from '../../../lambdas/adapters/dynamo-inbox-reindex';
import { useEmulators } from '../../support/emulators';
import { inboxRecord, writeRecords } from '../../support/inbox-records';

const env = useEmulators();
const T0 = Date.UTC(2026, 0, 15, 12, 0, 0);

describe('reindexInbox', () => {
  it('gives old records their index keys, so the listing finds them in their status', async () => {
    const { tableName } = await env.provision();
    const inbox = new DynamoInbox(env.clients.dynamodb, tableName, { providers: ['github'] });
    const old = [
      inboxRecord({ provider: 'github', dedupKey: 'old-1', receivedMs: T0, status: 'processed' }),
      inboxRecord({ provider: 'github', dedupKey: 'old-2', receivedMs: T0 + 1, status: 'dead-lettered' }),
    ];
    const current = inboxRecord({
      provider: 'github',
      dedupKey: 'new-1',
      receivedMs: T0 + 2,
      status: 'failed',
    });
    await writeRecords(env.clients.dynamodb, tableName, old, { index: false });
    await writeRecords(env.clients.dynamodb, tableName, [current]);
    const keys = async (filter: Parameters<DynamoInbox['listPage']>[0]) =>
      (await inbox.listPage(filter)).records.map((r) => r.dedupKey);
    expect(await keys({ limit: 10 })).toEqual(['new-1']);

    expect(await reindexInbox(env.clients.dynamodb, tableName)).toEqual({
      scanned: 3,
      indexed: 2,
      skipped: 0,
    });
    expect(await keys({ limit: 10 })).toEqual(['new-1', 'old-2', 'old-1']);
    expect(await keys({ status: 'dead-lettered', limit: 10 })).toEqual(['old-2']);
    // Nothing left to do.
    expect(await reindexInbox(env.clients.dynamodb, tableName)).toEqual({
      scanned: 3,
      indexed: 0,
      skipped: 0,
    });
  });
});
