// The trends' read against dynalite: one listing of the index over the window, every status and every
// provider's partitions, nothing received before the window or after now, stopped at the cap with the
// newest kept, and the read's own counts (index entries and records, read units) for the page's cost line.
import { describe, expect, it } from 'vitest';
import { DeliveriesSource } from '../../../../cli/console/deliveries-source';
import { readTrends } from '../../../../cli/console/trends-read';
import { DynamoInbox } from '../../../../lambdas/adapters/dynamo-inbox';
import type { InboxStatus } from '../../../../lambdas/core/inbox';
import { useEmulators } from '../../../support/emulators';
import { inboxRecord, writeRecords } from '../../../support/inbox-records';

const env = useEmulators();

const HOUR = 3_600_000;
/** 2026-12-01 12:30 UTC: the 24-hour window starts at 2026-11-30 13:00. */
const NOW = Date.UTC(2026, 11, 1, 12, 30);
const STATUSES: InboxStatus[] = ['processed', 'failed', 'dead-lettered', 'enqueued'];

async function seeded() {
  const { tableName } = await env.provision();
  const providers = ['github', 'stripe'];
  const inbox = new DynamoInbox(env.clients.dynamodb, tableName, { providers });
  // One delivery an hour, 30 hours back, alternating providers and cycling through the statuses; and one
  // from a skewed clock, after now.
  const records = Array.from({ length: 30 }, (_, k) =>
    inboxRecord({
      provider: providers[k % 2] as string,
      dedupKey: `k${k}`,
      receivedMs: NOW - k * HOUR - 60_000,
      status: STATUSES[k % 4] as InboxStatus,
    }),
  );
  records.push(
    inboxRecord({ provider: 'github', dedupKey: 'future', receivedMs: NOW + HOUR, status: 'processed' }),
  );
  await writeRecords(env.clients.dynamodb, tableName, records);
  return new DeliveriesSource(inbox, providers);
}

describe('console: the trends read', () => {
  it('reads every delivery of the window, in every status, and none outside it', async () => {
    const source = await seeded();
    const view = await readTrends(source, '24h', NOW);
    if ('error' in view) throw new Error(view.error);
    // k = 0..23 are received after 13:00 yesterday (k = 23 at 13:29); k = 24, at 12:29, is not.
    const { trends } = view;
    expect(trends.counted).toBe(24);
    expect(trends.unreadBeforeMs).toBeUndefined();
    expect(trends.deliveries.rows.map((r) => r.name)).toEqual(['github', 'stripe']);
    const total = (o: keyof typeof trends.deliveries.received) =>
      trends.deliveries.received[o].reduce((a, b) => a + b, 0);
    expect([total('processed'), total('failed'), total('dead-lettered'), total('in progress')]).toEqual([
      6, 6, 6, 6,
    ]);
    expect(view.itemsRead).toBeGreaterThanOrEqual(48);
    expect(view.readUnits).toBeGreaterThan(0);
  });

  it('stops at the cap, keeping the newest, and says where it stopped', async () => {
    const source = await seeded();
    const read = await source.windowRecords({ sinceMs: NOW - 24 * HOUR, untilMs: NOW, cap: 10 });
    expect(read.truncated).toBe(true);
    expect(read.records.map((r) => r.dedupKey)).toEqual(Array.from({ length: 10 }, (_, k) => `k${k}`));
    const view = await readTrends(source, '24h', NOW, undefined, 10);
    expect(view).toMatchObject({ trends: { counted: 10, unreadBeforeMs: NOW - 9 * HOUR - 60_000 } });
  });

  it('reads one provider only when the page is filtered to it', async () => {
    const source = await seeded();
    const read = await source.windowRecords({
      provider: 'stripe',
      sinceMs: NOW - 7 * 24 * HOUR,
      untilMs: NOW,
      cap: 100,
    });
    expect(read.truncated).toBe(false);
    expect(read.records).toHaveLength(15);
    expect(new Set(read.records.map((r) => r.provider))).toEqual(new Set(['stripe']));
  });
});
