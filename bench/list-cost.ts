// Section: list cost. What one `deliveries list` reads from a table of 100,000 deliveries (dynalite, local):
// the whole-table Scan it made before the listing index, and the index's page (config/list-index.ts). The
// figure is items read, which is what DynamoDB bills by and the same on AWS; the times are dynalite's.
import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { parseConfig } from '../config';
import { createAwsClients } from '../lambdas/adapters/clients';
import { InboxListing, type ListFilter, type ListPage } from '../lambdas/adapters/dynamo-inbox-listing';
import type { InboxStatus } from '../lambdas/core/inbox';
import { startEmulators } from '../local/emulators';
import { provisionResources } from '../local/resources';
import { inboxRecord, writeRecords } from '../test/support/inbox-records';
import { type Column, defineSection, SectionAbort } from './lib/section';

const PROVIDERS = ['github', 'stripe', 'shopify'];
const HOUR = 3_600_000;
const LIMIT = 50;

interface CostRow extends Record<string, unknown> {
  call: string;
  records: number;
  scanRead: number;
  indexRead: number;
  scanUnits: number;
  indexUnits: number;
  scanMs: number;
  indexMs: number;
}

const CALLS: { call: string; filter: ListFilter }[] = [
  {
    call: '--status dead-lettered --since 2h',
    filter: { status: 'dead-lettered', sinceMs: -2 * HOUR, limit: LIMIT },
  },
  { call: '(recent: no filter)', filter: { limit: LIMIT } },
  { call: '--provider stripe', filter: { provider: 'stripe', limit: LIMIT } },
  {
    call: '--status processed --since 2h',
    filter: { status: 'processed', sinceMs: -2 * HOUR, limit: LIMIT },
  },
];

/** 1 in 50 dead-lettered, 1 in 100 failed, the rest processed; spread evenly over the last day. */
function statusOf(i: number): InboxStatus {
  return i % 50 === 7 ? 'dead-lettered' : i % 100 === 3 ? 'failed' : 'processed';
}

async function timed(call: () => Promise<ListPage>): Promise<{ page: ListPage; ms: number }> {
  const started = performance.now();
  const page = await call();
  return { page, ms: performance.now() - started };
}

const columns: Column<CostRow>[] = [
  { header: `deliveries list (limit ${LIMIT})`, cell: (r) => r.call },
  { header: 'records', cell: (r) => String(r.records), align: 'right' },
  { header: 'items read: Scan (before)', cell: (r) => r.scanRead.toLocaleString('en'), align: 'right' },
  { header: 'items read: index (after)', cell: (r) => r.indexRead.toLocaleString('en'), align: 'right' },
  { header: 'read units: Scan', cell: (r) => r.scanUnits.toLocaleString('en'), align: 'right' },
  { header: 'read units: index', cell: (r) => r.indexUnits.toLocaleString('en'), align: 'right' },
  { header: 'Scan ms', cell: (r) => r.scanMs.toFixed(0), align: 'right' },
  { header: 'index ms', cell: (r) => r.indexMs.toFixed(0), align: 'right' },
];

export default defineSection<CostRow>({
  name: 'list-cost',
  title: 'List cost: items read per deliveries list call, Scan versus the listing index',
  async run({ quick, log }) {
    const size = quick ? 10_000 : 100_000;
    const emulators = await startEmulators();
    const clients = createAwsClients(emulators.clientOptions);
    try {
      const id = `bench-list-${randomUUID().slice(0, 8)}`;
      const { tableName } = await provisionResources(clients, parseConfig({}), {
        tableName: `${id}-inbox`,
        queueName: `${id}-queue`,
        dlqName: `${id}-dlq`,
        bucketName: `${id}-payloads`,
      });
      const now = Date.now();
      const records = Array.from({ length: size }, (_, i) =>
        inboxRecord({
          provider: PROVIDERS[i % PROVIDERS.length] as string,
          dedupKey: randomUUID(),
          receivedMs: now - Math.floor((i * 24 * HOUR) / size),
          status: statusOf(i),
        }),
      );
      log(`list-cost: seeding ${size} records`);
      const seedStarted = performance.now();
      await writeRecords(clients.dynamodb, tableName, records, { concurrency: 16 });
      const seedSeconds = (performance.now() - seedStarted) / 1000;

      const listing = new InboxListing(clients.dynamodb, tableName, PROVIDERS);
      const rows: CostRow[] = [];
      for (const { call, filter: relative } of CALLS) {
        const filter = { ...relative, ...(relative.sinceMs ? { sinceMs: now + relative.sinceMs } : {}) };
        log(`list-cost: ${call}`);
        const scan = await timed(() => listing.scanList(filter));
        const index = await timed(() => listing.listPage(filter));
        const keys = (page: ListPage) => page.records.map((r) => r.pk).join();
        if (index.page.warning || keys(scan.page) !== keys(index.page)) {
          throw new SectionAbort(
            `${call}: the index's page differs from the Scan's (${index.page.warning ?? ''})`,
          );
        }
        rows.push({
          call,
          records: index.page.records.length,
          scanRead: scan.page.itemsRead,
          indexRead: index.page.itemsRead,
          scanUnits: scan.page.readUnits,
          indexUnits: index.page.readUnits,
          scanMs: scan.ms,
          indexMs: index.ms,
        });
      }
      return {
        columns,
        rows,
        notes: [
          `${size.toLocaleString('en')} records (${PROVIDERS.length} providers, 2% dead-lettered, 1% failed, over 24 h), ` +
            `seeded with BatchWriteItem in ${seedSeconds.toFixed(1)} s.`,
          "Items read: the Scan's ScannedCount (every item, whatever the filter), or the index queries' " +
            'ScannedCount plus the records got with BatchGetItem. Each page is checked to be the same records.',
          'Read units: the ConsumedCapacity dynalite reports for the same calls (by size, as DynamoDB ' +
            'bills reads; eventually consistent, as both paths read).',
          'Times are dynalite on this machine, not DynamoDB; the item counts are what DynamoDB would read.',
        ],
      };
    } finally {
      for (const client of Object.values(clients)) client.destroy();
      await emulators.stop();
    }
  },
});
