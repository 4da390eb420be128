// The inbox over one DynamoDB table. Each transition is a single conditional write; what a failed claim
// means is decided by classifyExisting in core/inbox.ts. A failed condition is followed by a consistent
// read rather than ReturnValuesOnConditionCheckFailure, which dynalite ignores.
import {
  DeleteItemCommand,
  type DynamoDBClient,
  GetItemCommand,
  PutItemCommand,
  ScanCommand,
  UpdateItemCommand,
  type UpdateItemCommandInput,
} from '@aws-sdk/client-dynamodb';
import { DependencyError } from '../core/errors';
import {
  type ClaimOutcome,
  classifyExisting,
  type InboxRecord,
  type InboxStatus,
  type NewClaim,
  newClaimRecord,
} from '../core/inbox';
import type { Inbox } from '../core/ports';
import { callDependency, isAwsError } from './dependency-call';
import { fromInboxItem, type Item, toAttributes, toInboxItem } from './inbox-item';

type ProcessingSeed = Parameters<Inbox['beginProcessing']>[1];

/** `status` is a DynamoDB reserved word, so every expression names it through this placeholder. */
const STATUS_NAME = { '#status': 'status' };

const CLAIMABLE =
  'attribute_not_exists(pk) OR expiresAt < :nowSec OR (#status = :claimed AND leaseUntil < :nowMs)';
const OWN_CLAIM = 'claimToken = :claimToken AND #status = :claimed';
const OWN_LEASE = 'processingToken = :processingToken';
const LEASABLE =
  'attribute_not_exists(pk) OR (#status <> :processed AND NOT (#status = :processing AND leaseUntil >= :nowMs))';

/** Written only when beginProcessing creates the record, so existing facts are never overwritten. */
const SEED_ATTRIBUTES = [
  'provider',
  'dedupKey',
  'payloadSha256',
  'eventType',
  'deliveryId',
  'expiresAt',
  'receivedAt',
  'attempts',
] as const;

function isConditionFailure(error: unknown): boolean {
  return isAwsError(error, 'ConditionalCheckFailedException');
}

/** Keeps `limit` records, newest `receivedAt` first. ISO-8601 UTC strings sort as their instants do. */
function newestFirst(records: InboxRecord[], limit: number): InboxRecord[] {
  return records
    .sort((a, b) => (a.receivedAt < b.receivedAt ? 1 : a.receivedAt > b.receivedAt ? -1 : 0))
    .slice(0, limit);
}

export class DynamoInbox implements Inbox {
  constructor(
    private readonly client: DynamoDBClient,
    private readonly tableName: string,
  ) {}

  async claim(claim: NewClaim): Promise<ClaimOutcome> {
    return this.claimOrClassify(claim, true);
  }

  private async claimOrClassify(claim: NewClaim, retryIfVanished: boolean): Promise<ClaimOutcome> {
    const record = newClaimRecord(claim);
    const claimed = await this.conditional('PutItem', () =>
      this.client.send(
        new PutItemCommand({
          TableName: this.tableName,
          Item: toInboxItem(record),
          ConditionExpression: CLAIMABLE,
          ExpressionAttributeNames: STATUS_NAME,
          ExpressionAttributeValues: toAttributes({
            ':nowSec': Math.floor(claim.nowMs / 1000),
            ':nowMs': claim.nowMs,
            ':claimed': 'claimed',
          }),
        }),
      ),
    );
    if (claimed) return { kind: 'claimed', claimToken: claim.claimToken };
    const existing = await this.get(record.pk);
    if (existing) return classifyExisting(existing, claim.payloadSha256, claim.nowMs);
    // The record was released or replaced between the failed put and the read. Claiming again is the
    // right answer once; if it vanishes twice, someone is churning this key: answer "in flight" (503 and
    // Retry-After) with the record we tried to write, minus the token that is not ours.
    if (retryIfVanished) return this.claimOrClassify(claim, false);
    const { claimToken: _notOurs, ...attempted } = record;
    return { kind: 'in_flight', existing: attempted, retryAfterSeconds: 1 };
  }

  async release(pk: string, claimToken: string): Promise<void> {
    await this.conditional('DeleteItem', () =>
      this.client.send(
        new DeleteItemCommand({
          TableName: this.tableName,
          Key: toAttributes({ pk }),
          ConditionExpression: OWN_CLAIM,
          ExpressionAttributeNames: STATUS_NAME,
          ExpressionAttributeValues: toAttributes({ ':claimToken': claimToken, ':claimed': 'claimed' }),
        }),
      ),
    );
  }

  async markEnqueued(pk: string, claimToken: string, messageId: string, nowMs: number): Promise<boolean> {
    return this.update(pk, {
      UpdateExpression: 'SET #status = :enqueued, enqueuedAt = :at, messageId = :messageId REMOVE leaseUntil',
      ConditionExpression: OWN_CLAIM,
      values: {
        ':enqueued': 'enqueued',
        ':at': new Date(nowMs).toISOString(),
        ':messageId': messageId,
        ':claimToken': claimToken,
        ':claimed': 'claimed',
      },
    });
  }

  async get(pk: string): Promise<InboxRecord | undefined> {
    const { Item: item } = await callDependency('dynamodb', 'GetItem', () =>
      this.client.send(
        new GetItemCommand({ TableName: this.tableName, Key: toAttributes({ pk }), ConsistentRead: true }),
      ),
    );
    return item ? fromInboxItem(item) : undefined;
  }

  async beginProcessing(
    pk: string,
    seed: ProcessingSeed,
    leaseMs: number,
    nowMs: number,
    processingToken: string,
  ): Promise<{ ok: true } | { ok: false; existing: InboxRecord | undefined }> {
    // A valid message whose record TTL already deleted is still processed: the update recreates the
    // record from the message's own facts.
    const seedValues: Partial<Record<(typeof SEED_ATTRIBUTES)[number], string | number>> = {
      ...seed,
      receivedAt: new Date(nowMs).toISOString(),
      attempts: 0,
    };
    const present = SEED_ATTRIBUTES.filter((name) => seedValues[name] !== undefined);
    const seedSets = present.map((name) => `${name} = if_not_exists(${name}, :seed_${name})`);
    const ok = await this.update(pk, {
      UpdateExpression: `SET ${['#status = :processing', 'processingToken = :processingToken', 'leaseUntil = :leaseUntil', ...seedSets].join(', ')}`,
      ConditionExpression: LEASABLE,
      values: {
        ':processing': 'processing',
        ':processed': 'processed',
        ':processingToken': processingToken,
        ':leaseUntil': nowMs + leaseMs,
        ':nowMs': nowMs,
        ...Object.fromEntries(present.map((name) => [`:seed_${name}`, seedValues[name]])),
      },
    });
    return ok ? { ok: true } : { ok: false, existing: await this.get(pk) };
  }

  async markProcessed(pk: string, processingToken: string, nowMs: number): Promise<boolean> {
    return this.update(pk, {
      UpdateExpression: 'SET #status = :processed, processedAt = :at REMOVE leaseUntil, processingToken',
      ConditionExpression: OWN_LEASE,
      values: {
        ':processed': 'processed',
        ':at': new Date(nowMs).toISOString(),
        ':processingToken': processingToken,
      },
    });
  }

  async markFailed(pk: string, processingToken: string, errorCode: string, _nowMs: number): Promise<boolean> {
    return this.update(pk, {
      UpdateExpression:
        'SET #status = :failed, lastErrorCode = :code REMOVE leaseUntil, processingToken ADD attempts :one',
      ConditionExpression: OWN_LEASE,
      values: { ':failed': 'failed', ':code': errorCode, ':one': 1, ':processingToken': processingToken },
    });
  }

  async markDeadLettered(pk: string, errorCode: string, _nowMs: number): Promise<void> {
    // No token: the processor dead-letters after its lease may have lapsed, and the message is in the DLQ
    // whatever the record says. The record must exist, though: an update would otherwise create a stub.
    await this.update(pk, {
      UpdateExpression:
        'SET #status = :deadLettered, lastErrorCode = :code REMOVE leaseUntil, processingToken',
      ConditionExpression: 'attribute_exists(pk)',
      values: { ':deadLettered': 'dead-lettered', ':code': errorCode },
    });
  }

  async markRequeued(pk: string, nowMs: number): Promise<void> {
    // Only a record whose processing has ended without success. A processed record stays processed
    // (`enqueued` would let the redriven copy run twice), and a live lease stays with its holder: taking
    // its token away would make that worker's mark fail and the effect run again. A lapsed lease is a
    // worker that died (a timeout, a crash), the usual way a poison message reaches the DLQ.
    await this.update(pk, {
      UpdateExpression: 'SET #status = :enqueued REMOVE leaseUntil, processingToken',
      ConditionExpression:
        'attribute_exists(pk) AND (#status IN (:deadLettered, :failed, :enqueued) OR ' +
        '(#status IN (:claimed, :processing) AND (attribute_not_exists(leaseUntil) OR leaseUntil < :now)))',
      values: {
        ':enqueued': 'enqueued',
        ':deadLettered': 'dead-lettered',
        ':failed': 'failed',
        ':claimed': 'claimed',
        ':processing': 'processing',
        ':now': nowMs,
      },
    });
  }

  /**
   * An operator's listing. Scan returns items in hash order, not by time, so the whole (filtered) table is
   * read and only the newest `limit` are kept; fine for the CLI on an inbox bounded by its dedup TTL.
   */
  async list(filter: {
    provider?: string;
    status?: InboxStatus;
    sinceMs?: number;
    limit: number;
  }): Promise<InboxRecord[]> {
    const conditions: string[] = [];
    if (filter.provider !== undefined) conditions.push('provider = :provider');
    if (filter.status !== undefined) conditions.push('#status = :status');
    if (filter.sinceMs !== undefined) conditions.push('receivedAt >= :since');
    const values = toAttributes({
      ':provider': filter.provider,
      ':status': filter.status,
      ':since': filter.sinceMs === undefined ? undefined : new Date(filter.sinceMs).toISOString(),
    });
    let kept: InboxRecord[] = [];
    let startKey: Item | undefined;
    do {
      const page = await callDependency('dynamodb', 'Scan', () =>
        this.client.send(
          new ScanCommand({
            TableName: this.tableName,
            ExclusiveStartKey: startKey,
            ...(conditions.length === 0
              ? {}
              : {
                  FilterExpression: conditions.join(' AND '),
                  ExpressionAttributeValues: values,
                  ...(filter.status === undefined ? {} : { ExpressionAttributeNames: STATUS_NAME }),
                }),
          }),
        ),
      );
      kept = newestFirst([...kept, ...(page.Items ?? []).map(fromInboxItem)], filter.limit);
      startKey = page.LastEvaluatedKey;
    } while (startKey !== undefined);
    return kept;
  }

  /** A conditional UpdateItem: true if it applied, false if its condition failed. */
  private async update(
    pk: string,
    input: Pick<UpdateItemCommandInput, 'UpdateExpression' | 'ConditionExpression'> & {
      values: Record<string, string | number | undefined>;
    },
  ): Promise<boolean> {
    const uses = (placeholder: string) =>
      `${input.UpdateExpression} ${input.ConditionExpression}`.includes(placeholder);
    return this.conditional('UpdateItem', () =>
      this.client.send(
        new UpdateItemCommand({
          TableName: this.tableName,
          Key: toAttributes({ pk }),
          UpdateExpression: input.UpdateExpression,
          ConditionExpression: input.ConditionExpression,
          ...(uses('#status') ? { ExpressionAttributeNames: STATUS_NAME } : {}),
          ExpressionAttributeValues: toAttributes(input.values),
        }),
      ),
    );
  }

  /** Runs a conditional write: true if it applied, false if its condition failed, DependencyError else. */
  private async conditional(operation: string, write: () => Promise<unknown>): Promise<boolean> {
    try {
      await write();
      return true;
    } catch (error) {
      if (isConditionFailure(error)) return false;
      throw new DependencyError('dynamodb', operation, { cause: error });
    }
  }
}
