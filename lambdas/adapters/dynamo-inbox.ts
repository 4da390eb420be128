// The inbox over one DynamoDB table. Each transition is a single conditional write; what a failed
// condition means is decided in core/inbox.ts. A failed condition is followed by a consistent read rather
// than ReturnValuesOnConditionCheckFailure, which dynalite ignores. The verify side (claim, release, get)
// is DynamoClaims, so the verify bundle carries none of the rest.
import { randomUUID } from 'node:crypto';
import {
  type DynamoDBClient,
  UpdateItemCommand,
  type UpdateItemCommandInput,
} from '@aws-sdk/client-dynamodb';
import { listKeyOf, listSortOf } from '../../config/list-index';
import type { ArchiveFacts } from '../core/archive';
import { ATTEMPT_LOG_CAP, type AttemptOutcome, formatAttemptEntry } from '../core/attempt-log';
import { FORWARD_ATTRIBUTE_PREFIX } from '../core/destinations/forward-state';
import { DependencyError } from '../core/errors';
import {
  classifyLeaseRefusal,
  type InboxRecord,
  type InboxStatus,
  type LeaseOutcome,
  type LeaseRequest,
  OPERATOR_LEASE_MARGIN_MS,
} from '../core/inbox';
import type { DeadLetterMark, Inbox, ProcessingSeed } from '../core/ports';
import { TRANSITION_TIMES } from '../core/replay';
import { conditionalWrite } from './dependency-call';
import { DynamoClaims, STATUS_NAME, withSameType } from './dynamo-claims';
import { InboxListing, type ListFilter, type ListPage } from './dynamo-inbox-listing';
import { type Item, toAttributes } from './inbox-item';

const OWN_LEASE = 'processingToken = :processingToken';
// Not processed, the same bytes and event type as the record, not this very message given up already
// (whatever another copy of the delivery did since: two copies that each gave up once must not take turns
// running the handler until SQS moves both), and no live worker on it. Another type can only be a message sent late (after its claim was released at
// the deadline) while a replay under that other type took the key: it must not run. A live *claim* lease
// does not block: the message exists. A lease that carries our own token is an SDK retry of this very
// update. A live lease of anyone else is respected, even one taken for this same message: SQS may hand a
// message out twice at once, so a second receive of it is not proof that the first worker has stopped.
const LEASABLE =
  'attribute_not_exists(pk) OR (#status <> :processed AND payloadSha256 = :sha AND (SAME_TYPE) ' +
  'AND NOT (#status = :deadLettered AND deadLetterMessageId = :messageId) ' +
  'AND NOT contains(givenUpMessageIds, :messageId) ' +
  'AND (#status <> :processing OR leaseUntil < :nowMs OR processingToken = :processingToken))';
// What a DLQ message's record may look like when an operator moves the message back: dead-lettered
// before the move began, failed (the give-up mark itself failed), or a lapsed lease (a worker that died).
const REQUEUEABLE =
  'attribute_exists(pk) AND ((#status = :deadLettered AND (attribute_not_exists(deadLetteredAt) OR ' +
  'deadLetteredAt < :since)) OR #status = :failed OR ' +
  '(#status IN (:claimed, :processing) AND (attribute_not_exists(leaseUntil) OR leaseUntil < :now)))';

/**
 * Appends one attempt to the log. DynamoDB cannot trim a list in the update that appends to it (the two
 * paths overlap), and a bound from maxReceiveCount alone does not hold: every redrive and replay starts
 * another trip through the queue. So the lease, which reads the record back anyway, trims it
 * (trimAttemptLog): one mark per lease then keeps the log at ATTEMPT_LOG_CAP entries.
 */
const APPEND_ATTEMPT = 'attemptLog = list_append(if_not_exists(attemptLog, :emptyLog), :attempt)';

function attemptValues(
  at: string,
  errorCode: string,
  receiveCount: number | undefined,
  outcome: AttemptOutcome,
) {
  return {
    ':emptyLog': [] as string[],
    ':attempt': [formatAttemptEntry({ at, errorCode, receiveCount, outcome })],
  };
}

/** Written only when beginProcessing creates the record, so existing facts are never overwritten. */
const SEED_ATTRIBUTES = [
  'provider',
  'dedupKey',
  'payloadSha256',
  'eventType',
  'deliveryId',
  'expiresAt',
  'dedupUntil',
  'receivedAt',
  'attempts',
] as const;

/**
 * The archive's attributes as expression values: the text ones, and the body as a binary value bound to
 * `:archive_archiveBody` (in `binary`, already in DynamoDB's form).
 */
function archiveValues(facts: ArchiveFacts | undefined): {
  /** Every attribute written, each bound to `:archive_<name>`. */
  names: string[];
  values: Record<string, string>;
  binary?: Item;
} {
  if (!facts) return { names: [], values: {} };
  const { archiveBody, ...text } = facts;
  const written = Object.entries(text).filter((entry): entry is [string, string] => entry[1] !== undefined);
  const values = Object.fromEntries(written.map(([name, value]) => [`:archive_${name}`, value]));
  const names = written.map(([name]) => name);
  if (archiveBody === undefined) return { names, values };
  return {
    names: [...names, 'archiveBody'],
    values,
    binary: { ':archive_archiveBody': { B: Buffer.from(archiveBody, 'base64') } },
  };
}

/** What markReplayed sets or removes besides the status and the histories: unmarkReplayed restores them. */
const REPLAY_MARKED = [
  'enqueuedAt',
  'lastReplayedAt',
  'lastReplayedBy',
  'forwardedAt',
  'leaseUntil',
  'processingToken',
  'replays',
  'replayToken',
] as const;

/** The whole inbox: the claims (DynamoClaims), and the processor's and the operators' transitions. */
export class DynamoInbox extends DynamoClaims implements Inbox {
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
    // record from the message's own facts.
    const receivedAt = new Date(lease.nowMs).toISOString();
    const seedValues: Partial<Record<(typeof SEED_ATTRIBUTES)[number], string | number>> = {
      ...seed,
      receivedAt,
      attempts: 0,
    };
    const present = SEED_ATTRIBUTES.filter((name) => seedValues[name] !== undefined);
    const seedSets = present.map((name) => `${name} = if_not_exists(${name}, :seed_${name})`);
    // The archive rides on the lease: no write of its own. Only where the record holds none yet, so a
    // retry's lease leaves the first receive's archive (and its time) as it was.
    const archive = archiveValues(lease.archive);
    const archiveSets = archive.names.map((name) => `${name} = if_not_exists(${name}, :archive_${name})`);
    const sets = [
      '#status = :processing',
      'processingToken = :processingToken',
      'leaseUntil = :leaseUntil',
      'leaseMessageId = :messageId',
      // The message id the verify mark used to write: the same update carries it, at no extra write.
      'messageId = :messageId',
      'leaseReceiveCount = :receiveCount',
      ...seedSets,
      // Out of the attention partition, if a failure put it there; a recreated record enters the index.
      'listKey = :listKey',
      'listSort = if_not_exists(listSort, :listSort)',
      ...archiveSets,
    ];
    const leasable = withSameType(LEASABLE, lease.eventType);
    let leased: Item | undefined;
    const ok = await this.update(pk, {
      // The whole record comes back at no extra cost: whether the delivery was fanned out already.
      onApplied: (attributes) => {
        leased = attributes;
      },
      UpdateExpression: `SET ${sets.join(', ')}`,
      ConditionExpression: leasable.condition,
      values: {
        ...leasable.values,
        ':processing': 'processing',
        ':processed': 'processed',
        ':deadLettered': 'dead-lettered',
        ':processingToken': lease.token,
        ':leaseUntil': lease.nowMs + lease.leaseMs,
        ':nowMs': lease.nowMs,
        ':sha': lease.payloadSha256,
        ':messageId': lease.messageId,
        ':receiveCount': lease.receiveCount,
        ':listKey': listKeyOf(pk, 'processing'),
        ':listSort': listSortOf(receivedAt, pk),
        ...Object.fromEntries(present.map((name) => [`:seed_${name}`, seedValues[name]])),
        ...archive.values,
      },
      rawValues: archive.binary,
    });
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
   * back to ATTEMPT_LOG_CAP. Conditioned on the length read, so a concurrent change is never cut twice; a
   * failure only leaves the log a little longer (history, not a fact the pipeline decides on).
   */
  private async trimAttemptLog(pk: string, processingToken: string, length: number): Promise<void> {
    const excess = length - (ATTEMPT_LOG_CAP - 1);
    if (excess <= 0) return;
    const paths = Array.from({ length: excess }, (_, i) => `attemptLog[${i}]`);
    await this.update(pk, {
      UpdateExpression: `REMOVE ${paths.join(', ')}`,
      ConditionExpression: `${OWN_LEASE} AND size(attemptLog) = :length`,
      values: { ':processingToken': processingToken, ':length': length },
    }).catch(() => false);
  }

  async markProcessed(pk: string, processingToken: string, nowMs: number): Promise<boolean> {
    // The token stays: an SDK retry of this applied update must find it and apply again, not fail.
    return this.update(pk, {
      UpdateExpression: 'SET #status = :processed, processedAt = :at REMOVE leaseUntil',
      ConditionExpression: OWN_LEASE,
      values: {
        ':processed': 'processed',
        ':at': new Date(nowMs).toISOString(),
        ':processingToken': processingToken,
      },
    });
  }

  async markArchived(pk: string, processingToken: string, facts: ArchiveFacts): Promise<boolean> {
    const archive = archiveValues(facts);
    return this.update(pk, {
      UpdateExpression: `SET ${archive.names.map((name) => `${name} = :archive_${name}`).join(', ')}`,
      ConditionExpression: OWN_LEASE,
      values: { ':processingToken': processingToken, ...archive.values },
      rawValues: archive.binary,
    });
  }

  async releaseLease(pk: string, processingToken: string): Promise<boolean> {
    // Lapsed rather than removed: LEASABLE compares leaseUntil, and a missing one would block the next
    // receive. The token goes, so a late SDK retry of this update is refused rather than re-applied.
    return this.update(pk, {
      UpdateExpression: 'SET leaseUntil = :lapsed REMOVE processingToken',
      ConditionExpression: `${OWN_LEASE} AND #status = :processing`,
      values: { ':lapsed': 0, ':processingToken': processingToken, ':processing': 'processing' },
    });
  }

  async markFailed(
    pk: string,
    processingToken: string,
    errorCode: string,
    nowMs: number,
    receiveCount?: number,
  ): Promise<boolean> {
    // failedAt is the record's last transition while it waits for its retry: a stranded record
    // (core/replay.ts) is judged by it.
    const at = new Date(nowMs).toISOString();
    return this.update(pk, {
      UpdateExpression:
        `SET #status = :failed, lastErrorCode = :code, failedAt = :at, listKey = :listKey, ${APPEND_ATTEMPT} ` +
        'REMOVE leaseUntil, processingToken, lastErrorDetail ADD attempts :one',
      ConditionExpression: OWN_LEASE,
      values: {
        ...attemptValues(at, errorCode, receiveCount, 'failed'),
        ':at': at,
        ':failed': 'failed',
        ':code': errorCode,
        ':one': 1,
        ':processingToken': processingToken,
        ':listKey': listKeyOf(pk, 'failed'),
      },
    });
  }

  async markDeadLettered(pk: string, processingToken: string, mark: DeadLetterMark): Promise<boolean> {
    // Conditioned on our lease, and idempotent under an SDK retry: the token is removed, but the retry's
    // condition then fails and the read finds the record exactly as this update left it. A detail from
    // an earlier failure goes, unless this one has its own.
    const detail = mark.errorDetail;
    const at = new Date(mark.nowMs).toISOString();
    const marked = await this.update(pk, {
      UpdateExpression:
        'SET #status = :deadLettered, lastErrorCode = :code, deadLetterMessageId = :messageId, ' +
        `deadLetteredAt = :at, listKey = :listKey, ${APPEND_ATTEMPT}` +
        `${detail === undefined ? '' : ', lastErrorDetail = :detail'} ` +
        `REMOVE leaseUntil, processingToken${detail === undefined ? ', lastErrorDetail' : ''} ` +
        'ADD attempts :one, givenUpMessageIds :givenUp',
      ConditionExpression: OWN_LEASE,
      rawValues: { ':givenUp': { SS: [mark.messageId] } },
      values: {
        ...attemptValues(at, mark.errorCode, mark.receiveCount, 'dead-lettered'),
        ':deadLettered': 'dead-lettered',
        ':code': mark.errorCode,
        ':detail': detail,
        ':messageId': mark.messageId,
        ':at': at,
        ':one': 1,
        ':processingToken': processingToken,
        ':listKey': listKeyOf(pk, 'dead-lettered'),
      },
    });
    if (marked) return true;
    const existing = await this.get(pk);
    return existing?.status === 'dead-lettered' && existing.deadLetterMessageId === mark.messageId;
  }

  async markRequeued(pk: string, nowMs: number, movedSinceMs: number): Promise<boolean> {
    // A processed record stays processed (`enqueued` would let the redriven copy run twice), and a live
    // lease stays with its holder: taking its token away would make that worker's mark fail and the
    // effect run again. A record dead-lettered after the move began belongs to a newer give-up.
    return this.update(pk, {
      // The moved messages start a new round: the copies given up before it are in the DLQ or moved.
      UpdateExpression:
        'SET #status = :enqueued, listKey = :listKey REMOVE leaseUntil, processingToken, givenUpMessageIds',
      ConditionExpression: REQUEUEABLE,
      values: {
        ':enqueued': 'enqueued',
        ':listKey': listKeyOf(pk, 'enqueued'),
        ':deadLettered': 'dead-lettered',
        ':failed': 'failed',
        ':claimed': 'claimed',
        ':processing': 'processing',
        // On the operator's clock: a lease counts as lapsed only well past its end.
        ':now': nowMs - OPERATOR_LEASE_MARGIN_MS,
        ':since': new Date(movedSinceMs).toISOString(),
      },
    });
  }

  /**
   * An operator's replay (cli/replay.ts): the record becomes leasable again (`enqueued`), counted and
   * signed, and forgets its fan-out so destinations get the delivery again. Conditioned on the record as
   * `seen` was read and judged replayable (core/replay.ts): settled, the same bytes, and each destination's
   * history unchanged. False if anything moved since.
   */
  async markReplayed(
    seen: InboxRecord,
    replay: { nowMs: number; by?: string /** core/replay.ts strandedBeforeMs */; strandedBeforeMs: number },
  ): Promise<boolean> {
    const forwards = Object.keys(seen).filter((name) => name.startsWith(FORWARD_ATTRIBUTE_PREFIX));
    const names = Object.fromEntries(forwards.map((name, i) => [`#f${i}`, name]));
    const unchanged = forwards.map((_, i) => `#f${i} = :f${i}`);
    // Stranded (core/replay.ts isStranded): every transition time before the cut-off. ISO times in one
    // format compare as strings.
    const quiet = TRANSITION_TIMES.map((name) =>
      name === 'receivedAt'
        ? `${name} < :stranded`
        : `(attribute_not_exists(${name}) OR ${name} < :stranded)`,
    ).join(' AND ');
    const settled =
      '(#status IN (:processed, :deadLettered) OR ' +
      '(#status = :processing AND (attribute_not_exists(leaseUntil) OR leaseUntil < :lapsed)) OR ' +
      `(#status IN (:failed, :claimed, :enqueued) AND ${quiet}))`;
    const at = new Date(replay.nowMs).toISOString();
    const token = randomUUID();
    const marked = await this.update(seen.pk, {
      UpdateExpression:
        // Home from an attention partition (config/list-index.ts), as every move out of failed does.
        'SET #status = :enqueued, enqueuedAt = :at, lastReplayedAt = :at, listKey = :listKey, ' +
        'replayToken = :token' +
        (replay.by === undefined ? '' : ', lastReplayedBy = :by') +
        ` REMOVE ${['forwardedAt', 'leaseUntil', 'processingToken', ...Object.keys(names)].join(', ')}` +
        ' ADD replays :one',
      // Not expired (core/inbox.ts isExpired): a replay must not revive a record TTL is about to delete.
      ConditionExpression: ['payloadSha256 = :sha', 'expiresAt >= :nowSec', settled, ...unchanged].join(
        ' AND ',
      ),
      names,
      values: {
        ':enqueued': 'enqueued',
        ':listKey': listKeyOf(seen.pk, 'enqueued'),
        ':processed': 'processed',
        ':deadLettered': 'dead-lettered',
        ':processing': 'processing',
        ':failed': 'failed',
        ':claimed': 'claimed',
        ':stranded': new Date(replay.strandedBeforeMs).toISOString(),
        ':nowSec': Math.floor(replay.nowMs / 1000),
        ':lapsed': replay.nowMs - OPERATOR_LEASE_MARGIN_MS,
        ':token': token,
        ':sha': seen.payloadSha256,
        ':at': at,
        ':by': replay.by,
        ':one': 1,
        ...Object.fromEntries(
          forwards.map((name, i) => [`:f${i}`, (seen as unknown as Record<string, string>)[name]]),
        ),
      },
    });
    if (marked) return true;
    // An SDK retry of this very mark, applied and its answer lost, fails the condition: the record then
    // carries our token, and the replay goes on to send its message.
    const now = await this.get(seen.pk);
    return now?.status === 'enqueued' && now.replayToken === token;
  }

  /**
   * Undoes markReplayed when the replay's message could not be sent, so the record is not left `enqueued`
   * with nothing on the queue (which every later replay would refuse as in flight). Only our own mark:
   * still `enqueued` at the replay's time. Every attribute the mark set or removed goes back to what `seen`
   * had, the lease above all: a `processing` record left without its (lapsed) `leaseUntil` would fail the
   * lease condition on every later receive (`leaseUntil < :nowMs` is false for a missing attribute). The
   * destinations' histories it removed stay removed: they only make a destination send again.
   */
  async unmarkReplayed(seen: InboxRecord, replayedAtMs: number): Promise<boolean> {
    const facts = seen as unknown as Record<string, string | number | undefined>;
    const restored = REPLAY_MARKED.filter((name) => facts[name] !== undefined);
    const removed = REPLAY_MARKED.filter((name) => facts[name] === undefined);
    return this.update(seen.pk, {
      UpdateExpression:
        `SET #status = :previous, listKey = :listKey${restored.map((name) => `, ${name} = :was_${name}`).join('')}` +
        (removed.length === 0 ? '' : ` REMOVE ${removed.join(', ')}`),
      ConditionExpression: '#status = :enqueued AND lastReplayedAt = :at',
      values: {
        ':previous': seen.status,
        ':listKey': listKeyOf(seen.pk, seen.status),
        ...Object.fromEntries(restored.map((name) => [`:was_${name}`, facts[name]])),
        ':enqueued': 'enqueued',
        ':at': new Date(replayedAtMs).toISOString(),
      },
    });
  }

  /**
   * When an operator moved the delivery back from the DLQ, for its timeline. Apart from markRequeued,
   * whose condition fails once the processor has taken the moved copy: the time is a fact either way.
   */
  async noteRedriven(pk: string, nowMs: number): Promise<boolean> {
    return this.update(pk, {
      UpdateExpression: 'SET redrivenAt = :at',
      ConditionExpression: 'attribute_exists(pk)',
      values: { ':at': new Date(nowMs).toISOString() },
    });
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

  /** A conditional UpdateItem: true if it applied, false if its condition failed. */
  private async update(
    pk: string,
    input: Pick<UpdateItemCommandInput, 'UpdateExpression' | 'ConditionExpression'> & {
      values: Record<string, string | number | readonly string[] | undefined>;
      /** Expression values already in DynamoDB's form (binary, string set). */
      rawValues?: Item;
      /** Expression attribute names besides `#status`. */
      names?: Record<string, string>;
      /** Given the record as the applied update left it (ReturnValues ALL_NEW). */
      onApplied?: (attributes: Item | undefined) => void;
    },
  ): Promise<boolean> {
    const uses = (placeholder: string) =>
      `${input.UpdateExpression} ${input.ConditionExpression}`.includes(placeholder);
    return conditionalWrite('UpdateItem', async () => {
      const answer = await this.client.send(
        new UpdateItemCommand({
          TableName: this.tableName,
          Key: toAttributes({ pk }),
          UpdateExpression: input.UpdateExpression,
          ConditionExpression: input.ConditionExpression,
          ...(uses('#status') || input.names
            ? { ExpressionAttributeNames: { ...(uses('#status') ? STATUS_NAME : {}), ...input.names } }
            : {}),
          ExpressionAttributeValues: { ...toAttributes(input.values), ...input.rawValues },
          ...(input.onApplied ? { ReturnValues: 'ALL_NEW' as const } : {}),
        }),
      );
      input.onApplied?.(answer.Attributes);
    });
  }

  async markForwarded(pk: string, processingToken: string, nowMs: number): Promise<boolean> {
    return this.update(pk, {
      UpdateExpression: 'SET forwardedAt = :at',
      ConditionExpression: OWN_LEASE,
      values: { ':at': new Date(nowMs).toISOString(), ':processingToken': processingToken },
    });
  }
}
