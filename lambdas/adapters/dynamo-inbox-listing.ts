// The operators' reads of the inbox: a page of deliveries, newest first, and the lookups by key prefix or
// delivery id. They read the listing index (config/list-index.ts), one query per partition, merged newest
// first, then get the page's records: the cost follows the page, not the table. A table without the index
// (made by an older version, or an index still backfilling on AWS) is scanned, with a warning.
//
// DynamoDB propagates every write to a global secondary index asynchronously, and a read of one is always
// eventually consistent (ConsistentRead on it is a ValidationException). For a moment after a write the
// index may lack a new delivery, hold a record in the partition of the status it just left, or in both its
// old and new partitions, or in neither. So the index only says where to look: every record shown is got
// from the table with a consistent read, a status filter is applied to that record, and a page says the
// index may lag (INDEX_LAG_NOTE).
import {
  type AttributeValue,
  BatchGetItemCommand,
  type DynamoDBClient,
  QueryCommand,
  ScanCommand,
} from '@aws-sdk/client-dynamodb';
import {
  ATTENTION_STATUSES,
  attentionPartition,
  homePartition,
  isAttention,
  LIST_INDEX,
  LIST_SHARDS,
  listSortOf,
} from '../../config/list-index';
import { type InboxRecord, type InboxStatus, isExpired } from '../core/inbox';
import { callDependency, isAwsError } from './dependency-call';
import { STATUS_NAME } from './dynamo-expression';
import { fromInboxItem, type Item, toAttributes } from './inbox-item';

export interface ListFilter {
  provider?: string;
  status?: InboxStatus;
  /** Epoch milliseconds, inclusive. */
  sinceMs?: number;
  /** Epoch milliseconds, inclusive. */
  untilMs?: number;
  limit: number;
  /** From the previous page: the next page starts after its last record. */
  cursor?: string;
  /** Scan the whole table instead: finds records written before the index (they carry no index keys). */
  scan?: boolean;
}

export interface ListPage {
  records: InboxRecord[];
  /** Opaque; undefined when there is nothing more. */
  cursor?: string;
  /** Items DynamoDB read: the queries' ScannedCount plus the records got (or the Scan's ScannedCount). */
  itemsRead: number;
  /** The read capacity units DynamoDB reported for those reads (what on-demand bills). */
  readUnits: number;
  /** Set when the table was scanned instead, and why. */
  warning?: string;
  /** Set when the page came from the index: what its lag may leave out (INDEX_LAG_NOTE). */
  note?: string;
}

/** A cursor that is not one this module made. */
export class InvalidCursorError extends Error {
  override readonly name = 'InvalidCursorError';
}

/** What a page read from the index tells its reader: the index lags the table; the statuses do not. */
export const INDEX_LAG_NOTE =
  'the listing index is eventually consistent: a delivery received or changed in the last second or two ' +
  'may not show yet, or not under its new status; each status shown is read from the table';

/** The shortest dedup-key prefix `deliveries show` looks up: shorter ones match too much to be meant. */
export const MIN_KEY_PREFIX = 6;
const MAX_QUERY_PAGE = 1_000;
const BATCH_GET_KEYS = 100;
/** Above every `listSort`: ISO times start with a digit. */
const TOP = '~';
const NO_INDEX =
  'the table has no list index yet (made by an older version, or still backfilling): read the whole table';
const NO_PROVIDERS = 'no provider list to read the index by: read the whole table';

function encodeCursor(before: string): string {
  return Buffer.from(JSON.stringify({ v: 1, before })).toString('base64url');
}

function decodeCursor(cursor: string): string {
  try {
    const parsed = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as { before?: unknown };
    if (typeof parsed.before === 'string' && parsed.before.length > 0) return parsed.before;
  } catch {
    // falls through to the error below
  }
  throw new InvalidCursorError('not a cursor from a previous page of this listing');
}

/** Where a record sits in the index order, whether or not it carries the index keys. */
const positionOf = (record: InboxRecord) => listSortOf(record.receivedAt, record.pk);

/** One index partition, read newest first a page at a time. */
interface Stream {
  listKey: string;
  buffer: Item[];
  startKey?: Item;
  done: boolean;
  /** How many entries the last read of the partition asked for (none yet: undefined). */
  lastPage?: number;
}

/** The range of `listSort` a listing covers, both ends inclusive; `skip` is the previous page's last. */
interface Range {
  low: string;
  high: string;
  skip?: string;
}

function rangeOf(filter: Pick<ListFilter, 'sinceMs' | 'untilMs' | 'cursor'>): Range {
  const skip = filter.cursor === undefined ? undefined : decodeCursor(filter.cursor);
  const until = filter.untilMs === undefined ? TOP : `${new Date(filter.untilMs).toISOString()}$`;
  return {
    low: new Date(filter.sinceMs ?? 0).toISOString(),
    high: skip !== undefined && skip < until ? skip : until,
    ...(skip === undefined ? {} : { skip }),
  };
}

export class InboxListing {
  constructor(
    private readonly client: DynamoDBClient,
    private readonly tableName: string,
    /** The configured providers: a listing without a provider filter reads each one's partitions. */
    private readonly providers?: readonly string[],
    /** Epoch ms: an expired record (core/inbox.ts isExpired) is left out of every read here. */
    private readonly now: () => number = Date.now,
  ) {}

  async listPage(filter: ListFilter): Promise<ListPage> {
    if (filter.scan) return this.scanList(filter);
    const range = rangeOf(filter);
    // DynamoDB refuses a BETWEEN whose bounds are the wrong way round (since after until): nothing matches.
    if (range.low > range.high) return { records: [], itemsRead: 0, readUnits: 0 };
    const providers = filter.provider === undefined ? this.providers : [filter.provider];
    if (providers === undefined) return { ...(await this.scanList(filter)), warning: NO_PROVIDERS };
    const merge = new NewestFirst(this, this.partitions(providers, filter.status), range);
    const records: InboxRecord[] = [];
    let last: string | undefined;
    try {
      while (records.length < filter.limit) {
        const entries = await merge.take(filter.limit - records.length);
        if (entries.length === 0) break;
        last = entries.at(-1)?.[LIST_INDEX.sortKey]?.S;
        // The index projects no status, and may still hold the entry where the record's previous status put
        // it: the record, read consistently, decides.
        for (const record of await this.getAll(entries, merge)) {
          if (filter.status === undefined || record.status === filter.status) records.push(record);
        }
      }
    } catch (error) {
      if (error instanceof MissingIndex) return { ...(await this.scanList(filter)), warning: NO_INDEX };
      throw error;
    }
    return {
      records,
      itemsRead: merge.itemsRead,
      readUnits: merge.readUnits,
      note: INDEX_LAG_NOTE,
      ...(merge.exhausted() || last === undefined ? {} : { cursor: encodeCursor(last) }),
    };
  }

  /**
   * One read as a listing makes it, of a partition that holds nothing: a Query of the listing index, or
   * on a table without it the Scan a listing falls back to (one item). For `doctor`: a policy that allows
   * the table's gets but not this read passes a get and refuses every `list` and console page.
   */
  async probe(partition: string): Promise<void> {
    try {
      await this.query({ listKey: partition, buffer: [], done: false }, 1, { low: '0', high: TOP });
    } catch (error) {
      if (!(error instanceof MissingIndex)) throw error;
      await callDependency('dynamodb', 'Scan', () =>
        this.client.send(new ScanCommand({ TableName: this.tableName, Limit: 1 })),
      );
    }
  }

  /** Records whose dedup key starts with `prefix`, newest first. Reads the provider's whole index. */
  async findByPrefix(provider: string, prefix: string, limit: number): Promise<InboxRecord[]> {
    return this.find([provider], limit, 'begins_with(pk, :match)', `${provider}#${prefix}`);
  }

  async findByDeliveryId(deliveryId: string, provider?: string, limit = 10): Promise<InboxRecord[]> {
    const providers = provider === undefined ? this.providers : [provider];
    return this.find(providers, limit, 'deliveryId = :match', deliveryId);
  }

  private async find(
    providers: readonly string[] | undefined,
    limit: number,
    condition: string,
    match: string,
  ): Promise<InboxRecord[]> {
    const all = { low: new Date(0).toISOString(), high: TOP };
    const filter = { condition, values: { ':match': match } };
    try {
      if (providers === undefined) throw new MissingIndex();
      const merge = new NewestFirst(this, this.partitions(providers), all, filter);
      return await this.getAll(await merge.take(limit), merge);
    } catch (error) {
      if (!(error instanceof MissingIndex)) throw error;
      return (await this.scan(condition, toAttributes({ ':match': match }), all, limit)).records;
    }
  }

  /** Every partition a listing of these providers in this status reads. */
  private partitions(providers: readonly string[], status?: InboxStatus): string[] {
    const kinds: ((provider: string, shard: number) => string)[] = isAttention(status)
      ? [(p, shard) => attentionPartition(p, status, shard)]
      : [homePartition];
    // Failed and dead-lettered records are only in their attention partitions while they are so.
    if (status === undefined) {
      for (const attention of ATTENTION_STATUSES)
        kinds.push((p, shard) => attentionPartition(p, attention, shard));
    }
    return providers.flatMap((provider) =>
      kinds.flatMap((kind) => Array.from({ length: LIST_SHARDS }, (_, shard) => kind(provider, shard))),
    );
  }

  /** One page of one partition, newest first. */
  async query(
    stream: Stream,
    limit: number,
    range: Range,
    filter?: { condition: string; values: Record<string, string> },
  ) {
    try {
      return await this.client.send(
        new QueryCommand({
          TableName: this.tableName,
          IndexName: LIST_INDEX.name,
          KeyConditionExpression: 'listKey = :listKey AND listSort BETWEEN :low AND :high',
          ...(filter ? { FilterExpression: filter.condition } : {}),
          ExpressionAttributeValues: toAttributes({
            ':listKey': stream.listKey,
            ':low': range.low,
            ':high': range.high,
            ...filter?.values,
          }),
          ScanIndexForward: false,
          ReturnConsumedCapacity: 'TOTAL',
          Limit: limit,
          ExclusiveStartKey: stream.startKey,
        }),
      );
    } catch (error) {
      // DynamoDB: "The table does not have the specified index", "Cannot read from backfilling ... index".
      if (isAwsError(error, 'ValidationException') && /specified index|backfilling/i.test(String(error)))
        throw new MissingIndex();
      throw error;
    }
  }

  /**
   * The records of these index entries, in their order; a record deleted since (TTL), or expired and not
   * deleted yet, is left out. Strongly consistent: an eventually consistent get may return the record as
   * it was before its last write, the very staleness the index has, and what is shown (and what a replay
   * or redrive picks) is the table's. It costs twice the read units of an eventually consistent get:
   * one per record up to 4 KB.
   */
  private async getAll(entries: Item[], counter: ReadCounter): Promise<InboxRecord[]> {
    const found = new Map<string, InboxRecord>();
    for (let i = 0; i < entries.length; i += BATCH_GET_KEYS) {
      let keys: Record<string, AttributeValue>[] = entries
        .slice(i, i + BATCH_GET_KEYS)
        .map((entry) => ({ pk: entry.pk as AttributeValue }));
      while (keys.length > 0) {
        const answer = await callDependency('dynamodb', 'BatchGetItem', () =>
          this.client.send(
            new BatchGetItemCommand({
              RequestItems: { [this.tableName]: { Keys: keys, ConsistentRead: true } },
              ReturnConsumedCapacity: 'TOTAL',
            }),
          ),
        );
        counter.readUnits += sumUnits(answer.ConsumedCapacity);
        const nowMs = this.now();
        for (const item of answer.Responses?.[this.tableName] ?? []) {
          const record = fromInboxItem(item);
          if (!isExpired(record, nowMs)) found.set(record.pk, record);
          counter.itemsRead += 1;
        }
        keys = answer.UnprocessedKeys?.[this.tableName]?.Keys ?? [];
      }
    }
    return entries.flatMap((entry) => found.get(entry.pk?.S ?? '') ?? []);
  }

  /** The listing by a Scan of the whole table: what `list` always did, and the fallback without the index. */
  async scanList(filter: ListFilter): Promise<ListPage> {
    // Only deliveries: the resource-version items that share the table (dynamo-resource-versions.ts) have
    // no status.
    const conditions: string[] = ['attribute_exists(#status)'];
    if (filter.provider !== undefined) conditions.push('provider = :provider');
    if (filter.status !== undefined) conditions.push('#status = :status');
    const values = toAttributes({ ':provider': filter.provider, ':status': filter.status });
    return this.scan(conditions.join(' AND '), values, rangeOf(filter), filter.limit);
  }

  /**
   * The whole table, keeping the newest `limit` matches inside `range`. Scan returns items in hash order,
   * not by time, so every page is read. The old listing, and the fallback when there is no index.
   */
  private async scan(condition: string, values: Item, range: Range, limit: number): Promise<ListPage> {
    let kept: InboxRecord[] = [];
    let more = false;
    let itemsRead = 0;
    let readUnits = 0;
    let startKey: Item | undefined;
    do {
      const page = await callDependency('dynamodb', 'Scan', () =>
        this.client.send(
          new ScanCommand({
            TableName: this.tableName,
            ExclusiveStartKey: startKey,
            FilterExpression: condition,
            ...(condition.includes('#status') ? { ExpressionAttributeNames: STATUS_NAME } : {}),
            ...(Object.keys(values).length === 0 ? {} : { ExpressionAttributeValues: values }),
            ReturnConsumedCapacity: 'TOTAL',
          }),
        ),
      );
      itemsRead += page.ScannedCount ?? 0;
      readUnits += page.ConsumedCapacity?.CapacityUnits ?? 0;
      const nowMs = this.now();
      const inRange = (page.Items ?? []).map(fromInboxItem).filter((record) => {
        const position = positionOf(record);
        return (
          position >= range.low &&
          position <= range.high &&
          position !== range.skip &&
          !isExpired(record, nowMs)
        );
      });
      kept = [...kept, ...inRange].sort((a, b) => (positionOf(a) < positionOf(b) ? 1 : -1));
      more ||= kept.length > limit;
      kept = kept.slice(0, limit);
      startKey = page.LastEvaluatedKey;
    } while (startKey !== undefined);
    const last = kept.at(-1);
    return {
      records: kept,
      itemsRead,
      readUnits,
      ...(more && last ? { cursor: encodeCursor(positionOf(last)) } : {}),
    };
  }
}

class MissingIndex extends Error {}

interface ReadCounter {
  itemsRead: number;
  readUnits: number;
}

function sumUnits(consumed: { CapacityUnits?: number }[] | undefined): number {
  return (consumed ?? []).reduce((sum, c) => sum + (c.CapacityUnits ?? 0), 0);
}

/**
 * A k-way merge of the partitions, newest first. Each partition is read lazily: a first page of what is
 * wanted shared among the partitions, and another only when the merge has taken all it read, so a listing
 * reads about its page plus a first page per partition, however large the table. A filtered merge (the lookups) reads full pages: the filter may drop
 * most of what a page reads.
 */
class NewestFirst implements ReadCounter {
  itemsRead = 0;
  readUnits = 0;
  private readonly streams: Stream[];
  private readonly listed = new Set<string>();

  constructor(
    private readonly listing: InboxListing,
    partitions: string[],
    private readonly range: Range,
    private readonly filter?: { condition: string; values: Record<string, string> },
  ) {
    this.streams = partitions.map((listKey) => ({ listKey, buffer: [], done: false }));
  }

  exhausted(): boolean {
    return this.streams.every((s) => s.done && s.buffer.length === 0);
  }

  /** Up to `count` index entries, newest first, after what earlier calls took. */
  async take(count: number): Promise<Item[]> {
    const taken: Item[] = [];
    while (taken.length < count) {
      let newest: Stream | undefined;
      for (const stream of this.streams) {
        const head = stream.buffer[0];
        if (head && (!newest || sortOf(head) > sortOf(newest.buffer[0] as Item))) newest = stream;
      }
      // A partition that ran dry may hold the next entry: it is read again before anything is taken. Only
      // the last taken can have emptied one, so partitions are read again one at a time, as they are used.
      const dry = this.streams.filter((s) => s.buffer.length === 0 && !s.done);
      if (dry.length > 0) {
        // What is still wanted, shared among the partitions that may still have some. A partition read
        // dry again is where the page is coming from: each read of it asks for twice the last (never more
        // than is wanted), so one busy partition costs a few queries rather than one per entry, and reads at
        // most about twice what it gives.
        const wanted = count - taken.length;
        const live = this.streams.filter((s) => !s.done).length;
        const share = (s: Stream) =>
          this.filter
            ? MAX_QUERY_PAGE
            : Math.min(
                MAX_QUERY_PAGE,
                Math.max(Math.ceil(wanted / live), Math.min(wanted, 2 * (s.lastPage ?? 0))),
              );
        await Promise.all(dry.map((s) => this.fill(s, share(s))));
        continue;
      }
      const entry = newest?.buffer.shift();
      if (!entry) break;
      // While DynamoDB propagates a record's move between partitions (failed, then retried), the index may
      // hold it in both for a moment: a page lists it once.
      const pk = entry.pk?.S ?? '';
      if (sortOf(entry) !== this.range.skip && !this.listed.has(pk)) {
        this.listed.add(pk);
        taken.push(entry);
      }
    }
    return taken;
  }

  /** Reads until the stream has an entry or has none left (a filtered page may come back empty). */
  private async fill(stream: Stream, pageSize: number): Promise<void> {
    while (stream.buffer.length === 0 && !stream.done) {
      const page = await callDependency(
        'dynamodb',
        'Query',
        () => this.listing.query(stream, pageSize, this.range, this.filter),
        (error) => (error instanceof MissingIndex ? error : undefined),
      );
      this.itemsRead += page.ScannedCount ?? 0;
      this.readUnits += page.ConsumedCapacity?.CapacityUnits ?? 0;
      stream.buffer.push(...(page.Items ?? []));
      stream.startKey = page.LastEvaluatedKey;
      stream.done = stream.startKey === undefined;
      stream.lastPage = pageSize;
    }
  }
}

function sortOf(entry: Item): string {
  return entry[LIST_INDEX.sortKey]?.S ?? '';
}
