// The inbox over one DynamoDB table. Each transition is a single conditional write rendered from the
// lifecycle (core/lifecycle/transitions.ts); what a failed condition means is decided in core/inbox.ts.
// A failed condition is followed by a consistent read rather than ReturnValuesOnConditionCheckFailure,
// which dynalite ignores. The verify side (claim, release, get) is DynamoClaims, so the verify bundle
// carries none of the rest.
import { randomUUID } from 'node:crypto';
import { type DynamoDBClient, UpdateItemCommand } from '@aws-sdk/client-dynamodb';
import type { ArchiveFacts } from '../core/archive';
import { ATTEMPT_LOG_CAP } from '../core/attempt-log';
import { DependencyError } from '../core/errors';
import {
  classifyLeaseRefusal,
  type InboxRecord,
  type InboxStatus,
  type LeaseOutcome,
  type LeaseRequest,
} from '../core/inbox';
import { TRANSITIONS, type Transition } from '../core/lifecycle/transitions';
import type { DeadLetterMark, Inbox, ProcessingSeed } from '../core/ports';
import { conditionalWrite } from './dependency-call';
import { DynamoClaims } from './dynamo-claims';
import { renderTransition } from './dynamo-expression';
import { InboxListing, type ListFilter, type ListPage } from './dynamo-inbox-listing';
import { type Item, toAttributes } from './inbox-item';

/**
 * The inbox as the processor uses it: the claims (DynamoClaims), and the processor's and the operators'
 * transitions. The listing's reads are DynamoInbox's, so the processor's bundle carries none of them.
 */
export class DynamoInboxTransitions extends DynamoClaims implements Inbox {
  async beginProcessing(pk: string, seed: ProcessingSeed, lease: LeaseRequest): Promise<LeaseOutcome> {
    return this.leaseOrClassify(pk, seed, lease, true);
  }

  private async leaseOrClassify(
    pk: string,
    seed: ProcessingSeed,
    lease: LeaseRequest,
    retryIfVanished: boolean,
  ): Promise<LeaseOutcome> {
    // A valid message whose record TTL already deleted is still processed: the update recreates the
    // record from the message's own facts. The archive rides on the lease, where the record holds none.
    let leased: Item | undefined;
    const ok = await this.apply(
      pk,
      TRANSITIONS.lease,
      {
        pk,
        token: lease.token,
        messageId: lease.messageId,
        receiveCount: lease.receiveCount,
        payloadSha256: lease.payloadSha256,
        eventType: lease.eventType,
        nowMs: lease.nowMs,
        leaseMs: lease.leaseMs,
        seed,
        archive: lease.archive,
      },
      // The whole record comes back at no extra cost: whether the delivery was fanned out already.
      (attributes) => {
        leased = attributes;
      },
    );
    if (ok) {
      await this.trimAttemptLog(pk, lease.token, leased?.attemptLog?.L?.length ?? 0);
      return {
        kind: 'leased',
        forwarded: leased?.forwardedAt?.S !== undefined,
        ...(leased?.archivedAt?.S === undefined ? {} : { archived: true }),
      };
    }
    const existing = await this.get(pk);
    if (existing) return classifyLeaseRefusal(existing, lease);
    // Deleted between the update and the read (only TTL deletes records): the update will create it.
    if (retryIfVanished) return this.leaseOrClassify(pk, seed, lease, false);
    throw new DependencyError('dynamodb', 'UpdateItem');
  }

  /**
   * Drops the oldest entries of a full attempt log under our fresh lease, so this lease's mark brings it
   * back to ATTEMPT_LOG_CAP. DynamoDB cannot trim a list in the update that appends to it (the two paths
   * overlap), and every redrive and replay starts another trip through the queue, so the lease trims. A
   * failure only leaves the log a little longer (history, not a fact the pipeline decides on).
   */
  private async trimAttemptLog(pk: string, token: string, length: number): Promise<void> {
    const excess = length - (ATTEMPT_LOG_CAP - 1);
    if (excess <= 0) return;
    await this.apply(pk, TRANSITIONS.trimAttempts, { token, length, excess }).catch(() => false);
  }

  async markProcessed(pk: string, processingToken: string, nowMs: number): Promise<boolean> {
    return this.apply(pk, TRANSITIONS.markProcessed, { token: processingToken, nowMs });
  }

  async markArchived(pk: string, processingToken: string, facts: ArchiveFacts): Promise<boolean> {
    return this.apply(pk, TRANSITIONS.markArchived, { token: processingToken, facts });
  }

  async releaseLease(pk: string, processingToken: string): Promise<boolean> {
    return this.apply(pk, TRANSITIONS.releaseLease, { token: processingToken });
  }

  async markFailed(
    pk: string,
    processingToken: string,
    errorCode: string,
    nowMs: number,
    receiveCount?: number,
    options: { keepToken?: boolean } = {},
  ): Promise<boolean> {
    return this.apply(pk, TRANSITIONS.markFailed, {
      pk,
      token: processingToken,
      errorCode,
      nowMs,
      receiveCount,
      ...(options.keepToken ? { keepToken: true } : {}),
    });
  }

  async markProcessedLate(pk: string, processingToken: string, nowMs: number): Promise<boolean> {
    return this.apply(pk, TRANSITIONS.markProcessedLate, { pk, token: processingToken, nowMs });
  }

  async markDeadLettered(pk: string, processingToken: string, mark: DeadLetterMark): Promise<boolean> {
    const marked = await this.apply(pk, TRANSITIONS.markDeadLettered, {
      pk,
      token: processingToken,
      ...mark,
    });
    if (marked) return true;
    // An SDK retry of this applied mark: the token is gone, and the record is as the mark left it.
    const existing = await this.get(pk);
    return existing?.status === 'dead-lettered' && existing.deadLetterMessageId === mark.messageId;
  }

  async markRequeued(pk: string, nowMs: number, movedSinceMs: number): Promise<boolean> {
    return this.apply(pk, TRANSITIONS.markRequeued, { pk, nowMs, movedSinceMs });
  }

  /**
   * An operator's replay (cli/operations/replay-deliveries.ts): the record becomes leasable again (`enqueued`), counted and
   * signed, and forgets its fan-out so destinations get the delivery again. Conditioned on the record as
   * `seen` was read and judged replayable (core/replay.ts). False if anything moved since.
   */
  async markReplayed(
    seen: InboxRecord,
    replay: { nowMs: number; by?: string /** core/replay.ts strandedBeforeMs */; strandedBeforeMs: number },
  ): Promise<boolean> {
    const token = randomUUID();
    const marked = await this.apply(seen.pk, TRANSITIONS.markReplayed, {
      seen: seen as unknown as Record<string, unknown> & InboxRecord,
      token,
      ...replay,
    });
    if (marked) return true;
    // An SDK retry of this very mark, applied and its answer lost, fails the condition: the record then
    // carries our token, and the replay goes on to send its message.
    const now = await this.get(seen.pk);
    return now?.status === 'enqueued' && now.replayToken === token;
  }

  /**
   * Undoes markReplayed when the replay's message could not be sent, so the record is not left `enqueued`
   * with nothing on the queue (which every later replay would refuse as in flight). The destinations'
   * histories it removed stay removed: they only make a destination send again.
   */
  async unmarkReplayed(seen: InboxRecord, replayedAtMs: number): Promise<boolean> {
    return this.apply(seen.pk, TRANSITIONS.unmarkReplayed, {
      seen: seen as unknown as Record<string, unknown> & InboxRecord,
      replayedAtMs,
    });
  }

  /**
   * When an operator moved the delivery back from the DLQ, for its timeline. Apart from markRequeued,
   * whose condition fails once the processor has taken the moved copy: the time is a fact either way.
   */
  async noteRedriven(pk: string, nowMs: number): Promise<boolean> {
    return this.apply(pk, TRANSITIONS.noteRedriven, { nowMs });
  }

  async markForwarded(pk: string, processingToken: string, nowMs: number): Promise<boolean> {
    return this.apply(pk, TRANSITIONS.markForwarded, { token: processingToken, nowMs });
  }

  /**
   * One transition as a conditional UpdateItem: true if it applied, false if its condition failed.
   * `onApplied` gets the record as the applied update left it (ReturnValues ALL_NEW).
   */
  private async apply<P>(
    pk: string,
    transition: Transition<P>,
    params: P,
    onApplied?: (attributes: Item | undefined) => void,
  ): Promise<boolean> {
    const write = renderTransition(transition, params);
    return conditionalWrite('UpdateItem', async () => {
      const answer = await this.client.send(
        new UpdateItemCommand({
          TableName: this.tableName,
          Key: toAttributes({ pk }),
          ...write,
          ...(onApplied ? { ReturnValues: 'ALL_NEW' as const } : {}),
        }),
      );
      onApplied?.(answer.Attributes);
    });
  }
}

/** The whole inbox: the transitions, and the operators' listing (dynamo-inbox-listing.ts). */
export class DynamoInbox extends DynamoInboxTransitions {
  private readonly listing: InboxListing;

  constructor(
    client: DynamoDBClient,
    tableName: string,
    options: {
      /** The configured providers: a listing without a provider filter reads each one's index partitions. */
      providers?: readonly string[];
      /** Epoch ms, for the listing's expiry (tests of records written at a fixed time). */
      now?: () => number;
    } = {},
  ) {
    super(client, tableName);
    this.listing = new InboxListing(client, tableName, options.providers, options.now);
  }

  /**
   * An operator's listing by a Scan of the whole table, as before the listing index: kept for the callers
   * that read a small table whole. listPage reads the page instead.
   */
  async list(filter: {
    provider?: string;
    status?: InboxStatus;
    sinceMs?: number;
    limit: number;
  }): Promise<InboxRecord[]> {
    return (await this.listing.scanList(filter)).records;
  }

  /** A page of deliveries, newest first, read through the listing index (dynamo-inbox-listing.ts). */
  listPage(filter: ListFilter): Promise<ListPage> {
    return this.listing.listPage(filter);
  }

  /** Deliveries whose dedup key starts with `prefix` (at least MIN_KEY_PREFIX characters), newest first. */
  findByPrefix(provider: string, prefix: string, limit: number): Promise<InboxRecord[]> {
    return this.listing.findByPrefix(provider, prefix, limit);
  }

  findByDeliveryId(deliveryId: string, provider?: string, limit?: number): Promise<InboxRecord[]> {
    return this.listing.findByDeliveryId(deliveryId, provider, limit);
  }
}
