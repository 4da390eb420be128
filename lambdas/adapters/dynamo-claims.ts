// The verify side of the inbox: the claim (one conditional PutItem), its release, and the read that
// classifies a refused claim (classifyExisting in core/inbox.ts). DynamoInbox adds the rest.
import {
  type DynamoDBClient,
  GetItemCommand,
  PutItemCommand,
  UpdateItemCommand,
} from '@aws-sdk/client-dynamodb';
import { listAttributes } from '../../config/list-index';
import { UNKNOWN_EVENT_TYPE } from '../core/envelope';
import {
  type ClaimOutcome,
  classifyExisting,
  type InboxRecord,
  type NewClaim,
  newClaimRecord,
} from '../core/inbox';
import type { ClaimStore } from '../core/ports';
import { callDependency, conditionalWrite } from './dependency-call';
import { fromInboxItem, toAttributes, toInboxItem } from './inbox-item';

/** `status` is a DynamoDB reserved word, so every expression names it through this placeholder. */
export const STATUS_NAME = { '#status': 'status' };

// A lapsed claim may be retaken only by the same bytes under the same event type: a different body under
// the same signed id, or the same body named as another event, is a conflict (409) whether or not the
// first claim's verify invocation is still alive. A record past its dedup window but kept for the archive
// is retaken only once nothing works on it: processed, dead-lettered, or a lease that lapsed. A replay or a
// redrive of an old delivery (enqueued, failed, or under a live lease) must not be overwritten by a
// provider's resend of it, which would take its lease away and run the effect twice; the resend is a
// duplicate until the replay is done. A record past `expiresAt` is gone (TTL only lags); one written
// before `dedupUntil` existed has its window in `expiresAt`.
const CLAIMABLE =
  'attribute_not_exists(pk) OR expiresAt < :nowSec OR ' +
  '(dedupUntil < :nowSec AND (#status IN (:processed, :deadLettered) OR ' +
  '(#status IN (:claimed, :processing) AND leaseUntil < :nowMs))) OR ' +
  '(#status = :claimed AND leaseUntil < :nowMs AND payloadSha256 = :sha AND (SAME_TYPE))';
const OWN_CLAIM = 'claimToken = :claimToken AND #status = :claimed';

/**
 * The condition that the record names the same event type as `eventType`, for SAME_TYPE above, as
 * sameEventType (core/inbox.ts) decides it: no type and `unknown` are one. Binds `:eventType`.
 */
export function withSameType(condition: string, eventType: string | undefined) {
  const type = eventType ?? UNKNOWN_EVENT_TYPE;
  const same =
    type === UNKNOWN_EVENT_TYPE
      ? 'attribute_not_exists(eventType) OR eventType = :eventType'
      : 'eventType = :eventType';
  return { condition: condition.replace('SAME_TYPE', same), values: { ':eventType': type } };
}

export class DynamoClaims implements ClaimStore {
  constructor(
    protected readonly client: DynamoDBClient,
    protected readonly tableName: string,
  ) {}

  async claim(claim: NewClaim): Promise<ClaimOutcome> {
    return this.claimOrClassify(claim, true);
  }

  private async claimOrClassify(claim: NewClaim, retryIfVanished: boolean): Promise<ClaimOutcome> {
    const record = newClaimRecord(claim);
    const claimable = withSameType(CLAIMABLE, claim.eventType);
    const claimed = await conditionalWrite('PutItem', () =>
      this.client.send(
        new PutItemCommand({
          TableName: this.tableName,
          // The record's place in the listing index: its one index write (config/list-index.ts).
          Item: { ...toInboxItem(record), ...toAttributes(listAttributes(record)) },
          ConditionExpression: claimable.condition,
          ExpressionAttributeNames: STATUS_NAME,
          ExpressionAttributeValues: toAttributes({
            ':nowSec': Math.floor(claim.nowMs / 1000),
            ':nowMs': claim.nowMs,
            ':claimed': 'claimed',
            ':processed': 'processed',
            ':deadLettered': 'dead-lettered',
            ':processing': 'processing',
            ':sha': claim.payloadSha256,
            ...claimable.values,
          }),
        }),
      ),
    );
    if (claimed) return { kind: 'claimed', claimToken: claim.claimToken };
    const existing = await this.get(record.pk);
    if (existing) return classifyExisting(existing, claim);
    // The record was released or replaced between the failed put and the read. Claiming again is the
    // right answer once; if it vanishes twice, someone is churning this key: answer "in flight" (503 and
    // Retry-After) with the record we tried to write, minus the token that is not ours.
    if (retryIfVanished) return this.claimOrClassify(claim, false);
    const { claimToken: _notOurs, ...attempted } = record;
    return { kind: 'in_flight', existing: attempted, retryAfterSeconds: 1 };
  }

  async release(pk: string, claimToken: string): Promise<void> {
    // The lease lapses; the record stays. A claim may have retaken the record of a delivery already
    // answered 202 and still queued (no mark follows the send): deleting it would let other bytes under
    // the same id in as new. A lapsed claim is retaken at once by the same bytes, and only by them.
    await conditionalWrite('UpdateItem', () =>
      this.client.send(
        new UpdateItemCommand({
          TableName: this.tableName,
          Key: toAttributes({ pk }),
          UpdateExpression: 'SET leaseUntil = :lapsed',
          ConditionExpression: OWN_CLAIM,
          ExpressionAttributeNames: STATUS_NAME,
          ExpressionAttributeValues: toAttributes({
            ':lapsed': 0,
            ':claimToken': claimToken,
            ':claimed': 'claimed',
          }),
        }),
      ),
    );
  }

  async get(pk: string): Promise<InboxRecord | undefined> {
    const { Item: item } = await callDependency('dynamodb', 'GetItem', () =>
      this.client.send(
        new GetItemCommand({ TableName: this.tableName, Key: toAttributes({ pk }), ConsistentRead: true }),
      ),
    );
    return item ? fromInboxItem(item) : undefined;
  }
}
