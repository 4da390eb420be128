// The verify side of the inbox: the claim (one conditional PutItem), its release, and the read that
// classifies a refused claim (classifyExisting in core/inbox.ts). DynamoInbox adds the rest.
import {
  type DynamoDBClient,
  GetItemCommand,
  PutItemCommand,
  UpdateItemCommand,
} from '@aws-sdk/client-dynamodb';
import { listAttributes } from '../../config/list-index';
import {
  type ClaimOutcome,
  classifyExisting,
  type InboxRecord,
  type NewClaim,
  newClaimRecord,
} from '../core/inbox';
// Only the transitions verify makes, imported one by one so its bundle carries no others.
import { claim as claimTransition, release } from '../core/lifecycle/transitions';
import type { ClaimStore } from '../core/ports';
import { callDependency, conditionalWrite } from './dependency-call';
import { renderTransition, renderWrite } from './dynamo-expression';
import { fromInboxItem, toAttributes, toInboxItem } from './inbox-item';

/** DynamoDB's documented limit on a partition key's value. */
const MAX_PARTITION_KEY_BYTES = 2048;

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
    const claimed = await conditionalWrite('PutItem', () =>
      this.client.send(
        new PutItemCommand({
          TableName: this.tableName,
          // The record's place in the listing index: its one index write (config/list-index.ts).
          Item: { ...toInboxItem(record), ...toAttributes(listAttributes(record)) },
          ...renderWrite({ condition: claimTransition.condition(claim) }),
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
          ...renderTransition(release, { claimToken }),
        }),
      ),
    );
  }

  async get(pk: string): Promise<InboxRecord | undefined> {
    // No item has a longer partition key (DynamoDB refuses one over 2,048 bytes with a ValidationException):
    // a key an operator or a search box typed that long names nothing.
    if (Buffer.byteLength(pk) > MAX_PARTITION_KEY_BYTES) return undefined;
    const { Item: item } = await callDependency('dynamodb', 'GetItem', () =>
      this.client.send(
        new GetItemCommand({ TableName: this.tableName, Key: toAttributes({ pk }), ConsistentRead: true }),
      ),
    );
    return item ? fromInboxItem(item) : undefined;
  }
}
