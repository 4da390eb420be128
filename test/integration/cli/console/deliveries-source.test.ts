// The console's Dead letters read against dynalite: dead letters and the stranded failed deliveries (given
// up without a mark, core/replay.ts), read from the attention partitions; a failed delivery still waiting
// for its retry is not listed; and over a lagging index (test/support/lagging-index.ts), only what the
// table still holds dead-lettered.
import { describe, expect, it } from 'vitest';
import { groupDeadLetters } from '../../../../cli/console/console-operations';
import { DeliveriesSource } from '../../../../cli/console/deliveries-source';
import { deadLettersPage } from '../../../../cli/console/pages';
import { createAwsClients } from '../../../../lambdas/adapters/clients';
import { DynamoInbox } from '../../../../lambdas/adapters/dynamo-inbox';
import { useEmulators } from '../../../support/emulators';
import { inboxRecord, writeRecords } from '../../../support/inbox-records';
import { lagIndex } from '../../../support/lagging-index';

const env = useEmulators();

const DAY = 86_400_000;
const NOW = Date.UTC(2026, 11, 1, 12);
const RETENTION_MS = 4 * DAY;

describe('console: dead letters and stranded deliveries', () => {
  it('lists a failed delivery quiet for longer than the queue retention as stranded, not a recent one', async () => {
    const { tableName } = await env.provision();
    const inbox = new DynamoInbox(env.clients.dynamodb, tableName, { providers: ['github'] });
    const live = { expiresAt: Math.floor(NOW / 1000) + 30 * 86_400 };
    const at = (ms: number) => new Date(ms).toISOString();
    const failed = (dedupKey: string, failedAtMs: number) => ({
      ...inboxRecord({ provider: 'github', dedupKey, receivedMs: NOW - 6 * DAY, status: 'failed' }),
      ...live,
      failedAt: at(failedAtMs),
      lastErrorCode: 'timeout',
    });
    const stranded = failed('stranded', NOW - 5 * DAY);
    // Received long ago, but its last failure is recent: its message is still on the main queue.
    const waiting = failed('waiting', NOW - DAY);
    const dead = {
      ...inboxRecord({
        provider: 'github',
        dedupKey: 'dead',
        receivedMs: NOW - DAY,
        status: 'dead-lettered',
      }),
      ...live,
      deadLetteredAt: at(NOW - DAY + 1000),
      lastErrorCode: 'timeout',
    };
    await writeRecords(env.clients.dynamodb, tableName, [stranded, waiting, dead]);

    const source = new DeliveriesSource(inbox, ['github']);
    expect((await source.stranded(NOW, RETENTION_MS)).map((r) => r.dedupKey)).toEqual(['stranded']);

    const groups = groupDeadLetters([
      ...(await source.deadLettered()),
      ...(await source.stranded(NOW, RETENTION_MS)),
    ]);
    expect(groups).toMatchObject([{ provider: 'github', errorCode: 'timeout', count: 2 }]);
    const html = deadLettersPage(
      { target: 't', token: 't', readOnly: false },
      groups,
      {
        name: 'dlq',
        visible: 1,
        inFlight: 0,
      },
      NOW,
    );
    expect(html).toContain('1 dead-lettered delivery in the inbox index, 1 stranded');
    expect(html).toContain('value="github#stranded"');
    expect(html).not.toContain('github#waiting');
  });

  it('says an expired record is not there, though DynamoDB still returns it', async () => {
    const { tableName } = await env.provision();
    const inbox = new DynamoInbox(env.clients.dynamodb, tableName, { providers: ['github'] });
    const record = {
      ...inboxRecord({ provider: 'github', dedupKey: 'gone', receivedMs: NOW - DAY, status: 'processed' }),
      expiresAt: Math.floor(NOW / 1000) - 1,
    };
    await writeRecords(env.clients.dynamodb, tableName, [record]);
    const source = new DeliveriesSource(inbox, ['github']);
    expect(await inbox.get(record.pk)).toBeDefined();
    expect(await source.get('github', 'gone', NOW)).toBeUndefined();
    expect(await source.get('github', 'gone', NOW - DAY)).toMatchObject({ dedupKey: 'gone' });
  });
});

describe('console: the dead letters over a lagging listing index', () => {
  it('does not offer to redrive a dead letter the table holds enqueued, though the index and a lagging read still say dead-lettered', async () => {
    const { tableName } = await env.provision();
    const client = createAwsClients(env.emulators.clientOptions).dynamodb;
    const lag = lagIndex(client, { tableName, staleTableReads: true });
    try {
      const inbox = new DynamoInbox(client, tableName, { providers: ['github'] });
      const dead = (dedupKey: string) => ({
        ...inboxRecord({ provider: 'github', dedupKey, receivedMs: NOW - DAY, status: 'dead-lettered' }),
        expiresAt: Math.floor(NOW / 1000) + 30 * 86_400,
        lastErrorCode: 'timeout',
      });
      await writeRecords(client, tableName, [dead('redriven'), dead('still-dead')]);
      lag.freeze();
      // Redriven: its DLQ message moved back, the record marked enqueued (markRequeued).
      expect(await inbox.markRequeued('github#redriven', NOW, NOW)).toBe(true);

      const source = new DeliveriesSource(inbox, ['github']);
      expect((await source.deadLettered()).map((r) => r.dedupKey)).toEqual(['still-dead']);
      const html = deadLettersPage(
        { target: 't', token: 't', readOnly: false },
        groupDeadLetters(await source.deadLettered()),
        { name: 'dlq', visible: 1, inFlight: 0 },
        NOW,
      );
      expect(html).not.toContain('github#redriven');
      expect(html).toMatch(/eventually consistent/);
      // The deliveries page shows it with the table's status, and says the index may lag.
      const page = await source.page({ provider: 'github', limit: 10 });
      expect(page.records.map((r) => [r.dedupKey, r.status]).sort()).toEqual([
        ['redriven', 'enqueued'],
        ['still-dead', 'dead-lettered'],
      ]);
      expect(page.note).toMatch(/eventually consistent/);
    } finally {
      await lag.remove();
      client.destroy();
    }
  });
});
