// The console's reads of the inbox index (never of the DLQ: a ReceiveMessage peek raises every message's
// receive count and hides it from other readers). It pages with DynamoInbox.listPage and finds keys with
// findByPrefix/findByDeliveryId where the adapter has them (the listing indexes), and falls back to
// DynamoInbox.list, which scans, where it does not.
import type { DynamoInbox } from '../../lambdas/adapters/dynamo-inbox';
import type { InboxRecord, InboxStatus } from '../../lambdas/core/inbox';

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
}

type Filter = Pick<DeliveryQuery, 'provider' | 'status' | 'sinceMs' | 'untilMs' | 'limit' | 'cursor'>;

/** The listing indexes' methods (issue 16's contract), present once the adapter has them. */
interface IndexedInbox {
  listPage?(filter: Filter): Promise<{ records: InboxRecord[]; cursor?: string; itemsRead: number }>;
  findByPrefix?(provider: string, prefix: string, limit: number): Promise<InboxRecord[]>;
  findByDeliveryId?(deliveryId: string, provider?: string, limit?: number): Promise<InboxRecord[]>;
}

export const MIN_PREFIX = 6;
/** The scan fallback reads this many at most when it must filter by time or key itself. */
const SCAN_LIMIT = 10_000;

function withinTime(record: InboxRecord, query: Pick<DeliveryQuery, 'sinceMs' | 'untilMs'>): boolean {
  const at = Date.parse(record.receivedAt);
  return (
    (query.sinceMs === undefined || at >= query.sinceMs) &&
    (query.untilMs === undefined || at < query.untilMs)
  );
}

export class DeliveriesSource {
  private readonly indexed: IndexedInbox;

  constructor(
    private readonly inbox: DynamoInbox,
    private readonly providers: readonly string[],
  ) {
    this.indexed = inbox as unknown as IndexedInbox;
  }

  get(provider: string, dedupKey: string): Promise<InboxRecord | undefined> {
    return this.inbox.get(`${provider}#${dedupKey}`);
  }

  async page(query: DeliveryQuery): Promise<DeliveryPage> {
    if (query.search !== undefined && query.search !== '') return { records: await this.search(query) };
    if (this.indexed.listPage) {
      const { records, cursor } = await this.indexed.listPage.call(this.inbox, {
        provider: query.provider,
        status: query.status,
        sinceMs: query.sinceMs,
        untilMs: query.untilMs,
        limit: query.limit,
        cursor: query.cursor,
      });
      return { records, ...(cursor === undefined ? {} : { cursor }) };
    }
    // The scan fallback pages by offset: fine on a local instance, which is where it runs.
    const offset = Number(query.cursor ?? 0) || 0;
    const all = (
      await this.inbox.list({
        provider: query.provider,
        status: query.status,
        sinceMs: query.sinceMs,
        limit: query.untilMs === undefined ? offset + query.limit + 1 : SCAN_LIMIT,
      })
    ).filter((r) => withinTime(r, query));
    const records = all.slice(offset, offset + query.limit);
    return {
      records,
      ...(all.length > offset + query.limit ? { cursor: String(offset + query.limit) } : {}),
    };
  }

  /** Every dead-lettered delivery, newest first, from the inbox index. */
  async deadLettered(limit = SCAN_LIMIT): Promise<InboxRecord[]> {
    if (!this.indexed.listPage) return this.inbox.list({ status: 'dead-lettered', limit });
    const records: InboxRecord[] = [];
    let cursor: string | undefined;
    do {
      const page = await this.indexed.listPage.call(this.inbox, {
        status: 'dead-lettered',
        limit: Math.min(1000, limit - records.length),
        cursor,
      });
      records.push(...page.records);
      cursor = page.cursor;
    } while (cursor !== undefined && records.length < limit);
    return records;
  }

  /** An exact dedup key under any provider, then a key prefix, then a delivery id. */
  private async search(query: DeliveryQuery): Promise<InboxRecord[]> {
    const text = (query.search ?? '').trim().replace(/…$/, '');
    const providers = query.provider ? [query.provider] : this.providers;
    const keep = (r: InboxRecord) =>
      (query.status === undefined || r.status === query.status) && withinTime(r, query);
    const exact = (await Promise.all(providers.map((p) => this.get(p, text)))).filter(
      (r): r is InboxRecord => r !== undefined,
    );
    if (exact.length > 0) return exact.filter(keep);
    const found = new Map<string, InboxRecord>();
    const { findByPrefix, findByDeliveryId } = this.indexed;
    if (findByPrefix && findByDeliveryId) {
      if (text.length >= MIN_PREFIX) {
        for (const p of providers) {
          for (const r of await findByPrefix.call(this.inbox, p, text, query.limit)) found.set(r.pk, r);
        }
      }
      for (const r of await findByDeliveryId.call(this.inbox, text, query.provider, query.limit))
        found.set(r.pk, r);
    } else {
      for (const r of await this.inbox.list({ provider: query.provider, limit: SCAN_LIMIT })) {
        if ((text.length >= MIN_PREFIX && r.dedupKey.startsWith(text)) || r.deliveryId === text)
          found.set(r.pk, r);
      }
    }
    return [...found.values()]
      .filter(keep)
      .sort((a, b) => (a.receivedAt < b.receivedAt ? 1 : -1))
      .slice(0, query.limit);
  }
}
