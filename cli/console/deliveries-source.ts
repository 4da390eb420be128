// The console's reads of the inbox's listing index (never of the DLQ: a ReceiveMessage peek raises every
// message's receive count and hides it from other readers): pages with DynamoInbox.listPage, keys with
// findByPrefix and findByDeliveryId. The index is eventually consistent; the records it names are read
// from the table consistently (dynamo-inbox-listing.ts), so a status shown, and what the Dead letters page
// offers to redrive, is the table's; what the index may not have yet, a page says (its `note`).
import type { DynamoInbox } from '../../lambdas/adapters/dynamo-inbox';
import { INDEX_LAG_NOTE, MIN_KEY_PREFIX } from '../../lambdas/adapters/dynamo-inbox-listing';
import { type InboxRecord, type InboxStatus, isExpired } from '../../lambdas/core/inbox';
import { isStranded, strandedBeforeMs } from '../../lambdas/core/replay';

export interface DeliveryQuery {
  provider?: string;
  status?: InboxStatus;
  sinceMs?: number;
  untilMs?: number;
  /** A dedup key, a prefix of one (6 characters or more), or a delivery id. */
  search?: string;
  cursor?: string;
  limit: number;
}

export interface DeliveryPage {
  records: InboxRecord[];
  /** The next page's cursor; undefined on the last page. */
  cursor?: string;
  /** Set when the page came from the listing index, which lags the table (INDEX_LAG_NOTE). */
  note?: string;
}

/** What a page read from the listing index says under its table (dynamo-inbox-listing.ts). */
export { INDEX_LAG_NOTE };

/** The listing's own minimum for a key prefix (dynamo-inbox-listing.ts), as `deliveries show` applies it. */
export const MIN_PREFIX = MIN_KEY_PREFIX;
/** The Dead letters page groups at most this many. */
const DEAD_LETTER_LIMIT = 10_000;

function withinTime(record: InboxRecord, query: Pick<DeliveryQuery, 'sinceMs' | 'untilMs'>): boolean {
  const at = Date.parse(record.receivedAt);
  return (
    (query.sinceMs === undefined || at >= query.sinceMs) &&
    (query.untilMs === undefined || at <= query.untilMs)
  );
}

export class DeliveriesSource {
  constructor(
    private readonly inbox: DynamoInbox,
    private readonly providers: readonly string[],
  ) {}

  /** The record, or undefined when there is none or its lifetime is over (core/inbox.ts isExpired). */
  async get(provider: string, dedupKey: string, nowMs = Date.now()): Promise<InboxRecord | undefined> {
    const record = await this.inbox.get(`${provider}#${dedupKey}`);
    return record && !isExpired(record, nowMs) ? record : undefined;
  }

  async page(query: DeliveryQuery): Promise<DeliveryPage> {
    if (query.search !== undefined && query.search !== '') return this.search(query);
    const { records, cursor, note } = await this.inbox.listPage({
      provider: query.provider,
      status: query.status,
      sinceMs: query.sinceMs,
      untilMs: query.untilMs,
      limit: query.limit,
      cursor: query.cursor,
    });
    return { records, ...(cursor === undefined ? {} : { cursor }), ...(note === undefined ? {} : { note }) };
  }

  /**
   * The deliveries received in a window, newest first, for the trends: one listing of the index over the
   * window (every status), stopped at `cap` records. What it read is returned with them, for the page's
   * cost line; `truncated` says the cap left older deliveries of the window unread.
   */
  async windowRecords(query: {
    provider?: string;
    sinceMs: number;
    untilMs: number;
    cap: number;
  }): Promise<{ records: InboxRecord[]; truncated: boolean; itemsRead: number; readUnits: number }> {
    const page = await this.inbox.listPage({
      ...(query.provider === undefined ? {} : { provider: query.provider }),
      sinceMs: query.sinceMs,
      untilMs: query.untilMs,
      limit: query.cap,
    });
    return {
      records: page.records,
      truncated: page.cursor !== undefined,
      itemsRead: page.itemsRead,
      readUnits: page.readUnits,
    };
  }

  /** Every dead-lettered delivery, newest first, from the inbox index. */
  deadLettered(limit = DEAD_LETTER_LIMIT): Promise<InboxRecord[]> {
    return this.everyPage({ status: 'dead-lettered' }, limit);
  }

  /**
   * The stranded failed deliveries (core/replay.ts isStranded), newest first: failed records received
   * before the cut-off, from the attention partition, so the read follows them, not the table. Stranded
   * `claimed` and `enqueued` records are not listed: they sit in the home partitions with every other
   * delivery, and finding them would read the table's whole past; their delivery page offers Replay.
   */
  async stranded(nowMs: number, queueRetentionMs: number, limit = DEAD_LETTER_LIMIT): Promise<InboxRecord[]> {
    const untilMs = strandedBeforeMs(nowMs, queueRetentionMs);
    const failed = await this.everyPage({ status: 'failed', untilMs }, limit);
    return failed.filter((record) => isStranded(record, nowMs, queueRetentionMs));
  }

  private async everyPage(
    filter: { status: InboxStatus; untilMs?: number },
    limit: number,
  ): Promise<InboxRecord[]> {
    const records: InboxRecord[] = [];
    let cursor: string | undefined;
    do {
      const page = await this.inbox.listPage({
        ...filter,
        limit: Math.min(1000, limit - records.length),
        cursor,
      });
      records.push(...page.records);
      cursor = page.cursor;
    } while (cursor !== undefined && records.length < limit);
    return records;
  }

  /**
   * An exact dedup key under any provider (a consistent read of the table), then a key prefix, then a
   * delivery id (the listing index, which may not have a delivery received in the last second or two).
   */
  private async search(query: DeliveryQuery): Promise<DeliveryPage> {
    const text = (query.search ?? '').trim().replace(/…$/, '');
    const providers = query.provider ? [query.provider] : this.providers;
    const keep = (r: InboxRecord) =>
      (query.status === undefined || r.status === query.status) && withinTime(r, query);
    const exact = (await Promise.all(providers.map((p) => this.get(p, text)))).filter(
      (r): r is InboxRecord => r !== undefined,
    );
    if (exact.length > 0) return { records: exact.filter(keep) };
    const found = new Map<string, InboxRecord>();
    if (text.length >= MIN_PREFIX) {
      for (const p of providers) {
        for (const r of await this.inbox.findByPrefix(p, text, query.limit)) found.set(r.pk, r);
      }
    }
    for (const r of await this.inbox.findByDeliveryId(text, query.provider, query.limit)) found.set(r.pk, r);
    const records = [...found.values()]
      .filter(keep)
      .sort((a, b) => (a.receivedAt < b.receivedAt ? 1 : -1))
      .slice(0, query.limit);
    return { records, note: INDEX_LAG_NOTE };
  }
}
