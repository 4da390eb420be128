// The core's Inbox port over a Map of items, for fast unit tests of the code that drives it. Every write is
// the lifecycle kernel's own transition (core/lifecycle/transitions.ts), decided and applied in memory by
// evaluate.ts, and a refused write is followed by the same read and the same classification as DynamoInbox
// (adapters/dynamo-inbox.ts, dynamo-claims.ts) does: no status rule is written here. A property test holds
// the in-memory evaluation to DynamoDB's own decisions, so this inbox answers as the table would.
//
// Faults a test can set per method, for its next calls: DynamoDB unreachable (nothing written,
// DependencyError), and a write that applied but whose answer was lost, after which the SDK either gave up
// (DependencyError) or sent the same write again (the retry's answer is the one the caller gets).
import { LIST_ATTRIBUTE_NAMES, listAttributes } from '../../config/list-index';
import type { ArchiveFacts } from '../../lambdas/core/archive';
import { ATTEMPT_LOG_CAP } from '../../lambdas/core/attempt-log';
import { DependencyError } from '../../lambdas/core/errors';
import {
  type ClaimOutcome,
  classifyExisting,
  classifyLeaseRefusal,
  type InboxRecord,
  type LeaseOutcome,
  type LeaseRequest,
  type NewClaim,
  newClaimRecord,
} from '../../lambdas/core/inbox';
import { applyUpdate, holds, type StoredItem } from '../../lambdas/core/lifecycle/evaluate';
import type { StoredValue } from '../../lambdas/core/lifecycle/expression';
import { TRANSITIONS, type Transition } from '../../lambdas/core/lifecycle/transitions';
import type { DeadLetterMark, Inbox, ProcessingSeed } from '../../lambdas/core/ports';

export type InboxMethod = Exclude<keyof Inbox, symbol>;

/**
 * `unreachable`: the call fails before anything is written. `lost_then_throw`: the write applies, its answer
 * is lost and the SDK gives up (the caller sees DependencyError, the record is changed). `lost_then_retry`:
 * the write applies, its answer is lost and the SDK sends it again; the caller gets the retry's answer.
 */
export type InboxFault = 'unreachable' | 'lost_then_throw' | 'lost_then_retry';

/** The DynamoDB operation each method's failure names, as the adapter's DependencyError does. */
const OPERATION: Readonly<Record<InboxMethod, string>> = {
  claim: 'PutItem',
  release: 'UpdateItem',
  get: 'GetItem',
  beginProcessing: 'UpdateItem',
  markProcessed: 'UpdateItem',
  markForwarded: 'UpdateItem',
  markArchived: 'UpdateItem',
  releaseLease: 'UpdateItem',
  markFailed: 'UpdateItem',
  markProcessedLate: 'UpdateItem',
  markDeadLettered: 'UpdateItem',
  markRequeued: 'UpdateItem',
};

/** An item as DynamoDB returns it to the adapter, read back as the record the core sees. */
function toRecord(item: StoredItem): InboxRecord {
  const record: Record<string, StoredValue> = {};
  for (const [name, value] of Object.entries(item)) {
    if (value === undefined || LIST_ATTRIBUTE_NAMES.has(name)) continue;
    record[name] = Array.isArray(value) ? [...value] : value;
  }
  return record as unknown as InboxRecord;
}

/** A record as the claim's PutItem stores it: the record's own attributes and its listing-index keys. */
function toItem(record: InboxRecord): Record<string, StoredValue> {
  const item: Record<string, StoredValue> = {};
  for (const [name, value] of Object.entries({ ...record, ...listAttributes(record) })) {
    if (value === undefined) continue;
    // DynamoDB has no empty set: a record without given-up messages has no attribute.
    if (Array.isArray(value) && value.length === 0 && name === 'givenUpMessageIds') continue;
    item[name] = Array.isArray(value) ? [...value] : (value as StoredValue);
  }
  return item;
}

export class MemoryInbox implements Inbox {
  private readonly items = new Map<string, StoredItem>();
  private readonly faults = new Map<InboxMethod, InboxFault[]>();
  /** Every call made, in order, by method name. */
  readonly calls: InboxMethod[] = [];

  /** @param now epoch ms, for the listing's expiry (as DynamoInbox's `now` option). */
  constructor(private readonly now: () => number = () => Date.now()) {}

  /** The next `times` calls of `method` meet `fault`, after any faults already set for it. */
  failNext(method: InboxMethod, times = 1, fault: InboxFault = 'unreachable'): this {
    const queued = this.faults.get(method) ?? [];
    for (let i = 0; i < times; i++) queued.push(fault);
    this.faults.set(method, queued);
    return this;
  }

  /** Stores a record as it stands, as a test's starting point (the claim's put writes the same shape). */
  put(record: InboxRecord): void {
    this.items.set(record.pk, toItem(record));
  }

  /** TTL deletes the record. */
  delete(pk: string): void {
    this.items.delete(pk);
  }

  /** The record now, without counting a call or meeting a fault: for a test's assertions. */
  peek(pk: string): InboxRecord | undefined {
    const item = this.items.get(pk);
    return item ? toRecord(item) : undefined;
  }

  /** The stored item, listing-index keys included. */
  item(pk: string): StoredItem | undefined {
    return this.items.get(pk);
  }

  async claim(claim: NewClaim): Promise<ClaimOutcome> {
    const fault = this.enter('claim');
    return this.claimOrClassify(claim, true, fault);
  }

  private async claimOrClassify(
    claim: NewClaim,
    retryIfVanished: boolean,
    fault: InboxFault | undefined,
  ): Promise<ClaimOutcome> {
    const record = newClaimRecord(claim);
    const put = () => {
      if (!holds(TRANSITIONS.claim.condition(claim), this.items.get(record.pk))) return false;
      this.items.set(record.pk, toItem(record));
      return true;
    };
    const claimed = this.withFault('claim', fault, put);
    if (claimed) return { kind: 'claimed', claimToken: claim.claimToken };
    const existing = this.read(record.pk);
    if (existing) return classifyExisting(existing, claim);
    if (retryIfVanished) return this.claimOrClassify(claim, false, undefined);
    const { claimToken: _notOurs, ...attempted } = record;
    return { kind: 'in_flight', existing: attempted, retryAfterSeconds: 1 };
  }

  async release(pk: string, claimToken: string): Promise<void> {
    this.apply('release', pk, TRANSITIONS.release, { claimToken });
  }

  async get(pk: string): Promise<InboxRecord | undefined> {
    this.enter('get');
    return this.read(pk);
  }

  async beginProcessing(pk: string, seed: ProcessingSeed, lease: LeaseRequest): Promise<LeaseOutcome> {
    const fault = this.enter('beginProcessing');
    return this.leaseOrClassify(pk, seed, lease, true, fault);
  }

  private async leaseOrClassify(
    pk: string,
    seed: ProcessingSeed,
    lease: LeaseRequest,
    retryIfVanished: boolean,
    fault: InboxFault | undefined,
  ): Promise<LeaseOutcome> {
    const params = {
      pk,
      token: lease.token,
      messageId: lease.messageId,
      receiveCount: lease.receiveCount,
      payloadSha256: lease.payloadSha256,
      eventType: lease.eventType,
      nowMs: lease.nowMs,
      leaseMs: lease.leaseMs,
      seed: seed as unknown as Readonly<Record<string, string | number | undefined>>,
      archive: lease.archive,
    };
    const ok = this.withFault('beginProcessing', fault, () => this.applyOnce(pk, TRANSITIONS.lease, params));
    if (ok) {
      // The update's ALL_NEW answer: the record as the lease left it.
      const leased = this.items.get(pk);
      const log = leased?.attemptLog;
      this.trimAttemptLog(pk, lease.token, Array.isArray(log) ? log.length : 0);
      return {
        kind: 'leased',
        forwarded: leased?.forwardedAt !== undefined,
        ...(leased?.archivedAt === undefined ? {} : { archived: true }),
      };
    }
    const existing = this.read(pk);
    if (existing) return classifyLeaseRefusal(existing, lease);
    if (retryIfVanished) return this.leaseOrClassify(pk, seed, lease, false, undefined);
    throw new DependencyError('dynamodb', 'UpdateItem');
  }

  /** As DynamoInbox: the lease that finds the log full drops its oldest entries. */
  private trimAttemptLog(pk: string, token: string, length: number): void {
    const excess = length - (ATTEMPT_LOG_CAP - 1);
    if (excess <= 0) return;
    this.applyOnce(pk, TRANSITIONS.trimAttempts, { token, length, excess });
  }

  async markProcessed(pk: string, processingToken: string, nowMs: number): Promise<boolean> {
    return this.apply('markProcessed', pk, TRANSITIONS.markProcessed, { token: processingToken, nowMs });
  }

  async markForwarded(pk: string, processingToken: string, nowMs: number): Promise<boolean> {
    return this.apply('markForwarded', pk, TRANSITIONS.markForwarded, { token: processingToken, nowMs });
  }

  async markArchived(pk: string, processingToken: string, facts: ArchiveFacts): Promise<boolean> {
    return this.apply('markArchived', pk, TRANSITIONS.markArchived, { token: processingToken, facts });
  }

  async releaseLease(pk: string, processingToken: string): Promise<boolean> {
    return this.apply('releaseLease', pk, TRANSITIONS.releaseLease, { token: processingToken });
  }

  async markFailed(
    pk: string,
    processingToken: string,
    errorCode: string,
    nowMs: number,
    receiveCount?: number,
    options: { keepToken?: boolean } = {},
  ): Promise<boolean> {
    return this.apply('markFailed', pk, TRANSITIONS.markFailed, {
      pk,
      token: processingToken,
      errorCode,
      nowMs,
      receiveCount,
      ...(options.keepToken ? { keepToken: true } : {}),
    });
  }

  async markProcessedLate(pk: string, processingToken: string, nowMs: number): Promise<boolean> {
    return this.apply('markProcessedLate', pk, TRANSITIONS.markProcessedLate, {
      pk,
      token: processingToken,
      nowMs,
    });
  }

  async markDeadLettered(pk: string, processingToken: string, mark: DeadLetterMark): Promise<boolean> {
    const marked = this.apply('markDeadLettered', pk, TRANSITIONS.markDeadLettered, {
      pk,
      token: processingToken,
      ...mark,
    });
    if (marked) return true;
    // As DynamoInbox: an SDK retry of this applied mark finds the record as the mark left it.
    const existing = this.read(pk);
    return existing?.status === 'dead-lettered' && existing.deadLetterMessageId === mark.messageId;
  }

  async markRequeued(pk: string, nowMs: number, movedSinceMs: number): Promise<boolean> {
    return this.apply('markRequeued', pk, TRANSITIONS.markRequeued, { pk, nowMs, movedSinceMs });
  }

  /** Counts the call and takes its next fault; an unreachable table fails the call here. */
  private enter(method: InboxMethod): InboxFault | undefined {
    this.calls.push(method);
    const fault = this.faults.get(method)?.shift();
    if (fault === 'unreachable') throw new DependencyError('dynamodb', OPERATION[method]);
    return fault;
  }

  /** One method's conditional write of one transition, meeting the method's next fault. */
  private apply<P>(method: InboxMethod, pk: string, transition: Transition<P>, params: P): boolean {
    const fault = this.enter(method);
    return this.withFault(method, fault, () => this.applyOnce(pk, transition, params));
  }

  /** A write whose answer was lost has applied all the same; the SDK then gives up or sends it again. */
  private withFault(method: InboxMethod, fault: InboxFault | undefined, write: () => boolean): boolean {
    const applied = write();
    if (fault === 'lost_then_throw') throw new DependencyError('dynamodb', OPERATION[method]);
    if (fault === 'lost_then_retry') return write();
    return applied;
  }

  /** The transition's condition on the item as it is; if it holds, the item its update leaves. */
  private applyOnce<P>(pk: string, transition: Transition<P>, params: P): boolean {
    const before = this.items.get(pk);
    if (!holds(transition.condition(params), before)) return false;
    this.items.set(pk, applyUpdate(before, { pk }, transition.update(params)));
    return true;
  }

  /** A consistent read, as the adapter's refusal classification makes it. */
  private read(pk: string): InboxRecord | undefined {
    return this.peek(pk);
  }
}
