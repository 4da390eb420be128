// Each destination's state (enabled or disabled, and why) and its hourly delivered/failed counts, as
// items of the inbox table beside the deliveries (`destination#<id>`, `destination#<id>#<hour>`). They
// have no `status` attribute, so delivery listings never show them.
import { randomBytes } from 'node:crypto';
import {
  BatchGetItemCommand,
  type DynamoDBClient,
  GetItemCommand,
  UpdateItemCommand,
} from '@aws-sdk/client-dynamodb';
import { destinationCountKey, destinationKey, HOUR_MS } from '../core/destinations/forward-state';
import type { DestinationCounts, DestinationStates, DestinationStatus } from '../core/destinations/ports';
import type { Clock } from '../core/ports';
import { systemClock } from '../core/ports';
import { callDependency, conditionalWrite } from './dependency-call';
import { toAttributes } from './inbox-item';

/** Hourly counts are kept two days: `destinations list` shows the last 24 hours. */
const COUNT_TTL_SECONDS = 2 * 86_400;

/**
 * On an hour's count item, the attribute that holds the last count one writer (one adapter, built once per
 * forwarder container) applied there: `seq:<writer>`. Kept short, as every write to the item is charged on
 * its whole size.
 */
const WRITER_ATTRIBUTE_PREFIX = 'seq:';

export interface DestinationStatesOptions {
  /**
   * How long a warm forwarder trusts the state it read. A disable written here is seen at once by this
   * container; other containers see it within this time (each still sends at most that long). @default 5000
   */
  cacheMs?: number;
  clock?: Clock;
}

export class DynamoDestinationStates implements DestinationStates {
  private readonly cache = new Map<string, { status: DestinationStatus; atMs: number }>();
  private readonly pending = new Map<string, Promise<DestinationStatus>>();
  /** Each count item's last write from here, which the next one waits for. */
  private readonly counting = new Map<string, Promise<void>>();
  /** Random per adapter: a container that starts again counts under a new name, from 1. */
  private readonly writerAttribute = `${WRITER_ATTRIBUTE_PREFIX}${randomBytes(6).toString('base64url')}`;
  private sequence = 0;
  private readonly cacheMs: number;
  private readonly clock: Clock;

  constructor(
    private readonly client: DynamoDBClient,
    private readonly tableName: string,
    options: DestinationStatesOptions = {},
  ) {
    this.cacheMs = options.cacheMs ?? 5_000;
    this.clock = options.clock ?? systemClock;
  }

  status(destinationId: string, options: { fresh?: boolean } = {}): Promise<DestinationStatus> {
    const cached = this.cache.get(destinationId);
    if (!options.fresh && cached && this.clock.now() - cached.atMs < this.cacheMs) {
      return Promise.resolve(cached.status);
    }
    // The records of one batch ask at once: one read answers them all.
    const pending = options.fresh ? undefined : this.pending.get(destinationId);
    if (pending) return pending;
    const reading: Promise<DestinationStatus> = this.read(destinationId).finally(() => {
      if (this.pending.get(destinationId) === reading) this.pending.delete(destinationId);
    });
    if (!options.fresh) this.pending.set(destinationId, reading);
    return reading;
  }

  private async read(destinationId: string): Promise<DestinationStatus> {
    const { Item: item } = await callDependency('dynamodb', 'GetItem', () =>
      this.client.send(
        new GetItemCommand({
          TableName: this.tableName,
          Key: toAttributes({ pk: destinationKey(destinationId) }),
          ConsistentRead: true,
        }),
      ),
    );
    const status: DestinationStatus = {
      enabled: item?.state?.S !== 'disabled',
      ...(item?.reason?.S === undefined ? {} : { reason: item.reason.S }),
      ...(item?.changedAt?.S === undefined ? {} : { changedAt: item.changedAt.S }),
    };
    this.cache.set(destinationId, { status, atMs: this.clock.now() });
    return status;
  }

  async disable(destinationId: string, reason: string, nowMs: number): Promise<void> {
    await this.write(destinationId, { enabled: false, reason, changedAt: new Date(nowMs).toISOString() });
  }

  async enable(destinationId: string, nowMs: number): Promise<void> {
    await this.write(destinationId, { enabled: true, changedAt: new Date(nowMs).toISOString() });
  }

  private async write(destinationId: string, status: DestinationStatus): Promise<void> {
    // UpdateItem, like every other write of the forwarder's: its role has no PutItem.
    await callDependency('dynamodb', 'UpdateItem', () =>
      this.client.send(
        new UpdateItemCommand({
          TableName: this.tableName,
          Key: toAttributes({ pk: destinationKey(destinationId) }),
          UpdateExpression:
            status.reason === undefined
              ? 'SET #state = :state, changedAt = :at REMOVE reason'
              : 'SET #state = :state, changedAt = :at, reason = :reason',
          ExpressionAttributeNames: { '#state': 'state' },
          ExpressionAttributeValues: toAttributes({
            ':state': status.enabled ? 'enabled' : 'disabled',
            ':at': status.changedAt,
            ':reason': status.reason,
          }),
        }),
      ),
    );
    this.cache.set(destinationId, { status, atMs: this.clock.now() });
  }

  /**
   * Adds to the hour's counts once, however often the write is sent. The SDK sends a write again when its
   * answer is lost (a reset, a timeout, a 5xx), and an ADD it had applied would count twice; so each count
   * carries this writer's next sequence number, and the write applies only above the last one this writer
   * applied to the item. A refused write is a copy of one that applied: it has counted, and says so by
   * returning. Other writers keep their own numbers, so concurrent counts from other forwarders all add.
   * The item grows by one attribute (about 20 bytes) per writer that counted in the hour, not per count:
   * a forwarder's containers in an hour, far below the 400 KB item limit.
   */
  count(destinationId: string, counts: DestinationCounts, nowMs: number): Promise<void> {
    const hourStartMs = Math.floor(nowMs / HOUR_MS) * HOUR_MS;
    const pk = destinationCountKey(destinationId, hourStartMs);
    this.sequence += 1;
    const sequence = this.sequence;
    // One item's counts are written in the order of their numbers: a later number applied first would
    // refuse an earlier one that never applied (local mode runs batches concurrently).
    const previous = this.counting.get(pk) ?? Promise.resolve();
    const writing = previous
      .catch(() => undefined)
      .then(() => this.writeCount(pk, counts, hourStartMs, sequence))
      .finally(() => {
        if (this.counting.get(pk) === writing) this.counting.delete(pk);
      });
    this.counting.set(pk, writing);
    return writing;
  }

  private async writeCount(
    pk: string,
    counts: DestinationCounts,
    hourStartMs: number,
    sequence: number,
  ): Promise<void> {
    await conditionalWrite('UpdateItem', () =>
      this.client.send(
        new UpdateItemCommand({
          TableName: this.tableName,
          Key: toAttributes({ pk }),
          UpdateExpression:
            'ADD delivered :delivered, failed :failed SET expiresAt = :expiresAt, #writer = :sequence',
          ConditionExpression: 'attribute_not_exists(#writer) OR #writer < :sequence',
          ExpressionAttributeNames: { '#writer': this.writerAttribute },
          ExpressionAttributeValues: toAttributes({
            ':delivered': counts.delivered,
            ':failed': counts.failed,
            ':expiresAt': Math.floor(hourStartMs / 1000) + COUNT_TTL_SECONDS,
            ':sequence': sequence,
          }),
        }),
      ),
    );
  }

  async recent(destinationId: string, hours: number, nowMs: number): Promise<DestinationCounts> {
    const hourStartMs = Math.floor(nowMs / HOUR_MS) * HOUR_MS;
    const keys = Array.from({ length: hours }, (_, i) =>
      destinationCountKey(destinationId, hourStartMs - i * HOUR_MS),
    );
    const total: DestinationCounts = { delivered: 0, failed: 0 };
    // BatchGetItem takes 100 keys; 24 hours is one call.
    for (let start = 0; start < keys.length; start += 100) {
      let request: Record<string, { Keys: ReturnType<typeof toAttributes>[] }> | undefined = {
        [this.tableName]: { Keys: keys.slice(start, start + 100).map((pk) => toAttributes({ pk })) },
      };
      while (request && Object.keys(request).length > 0) {
        const answer = await callDependency('dynamodb', 'BatchGetItem', () =>
          this.client.send(new BatchGetItemCommand({ RequestItems: request })),
        );
        for (const item of answer.Responses?.[this.tableName] ?? []) {
          total.delivered += Number(item.delivered?.N ?? 0);
          total.failed += Number(item.failed?.N ?? 0);
        }
        request = answer.UnprocessedKeys as typeof request;
      }
    }
    return total;
  }
}
