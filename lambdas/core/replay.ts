// Whether an operator may replay a delivery now, as a pure decision over its record. The adapter's
// conditional update (DynamoInbox.markReplayed) holds the same rule, so a record that changed between the
// read and the write is refused by DynamoDB, then classified here again.
import { forwardStatesOf } from './destinations/forward-state';
import { asItem, type InboxRecord, isExpired } from './inbox';
import { holds } from './lifecycle/evaluate';
import {
  OPERATOR_LEASE_MARGIN_MS,
  OPERATOR_SETTLED_STATUSES,
  STRANDABLE_STATUSES,
  settledForOperator,
  stranded,
  TRANSITION_TIMES,
} from './lifecycle/transitions';

export const REPLAY_REFUSALS = [
  /** Someone is on it: claimed, enqueued, failed awaiting its retry, or processing under a live lease. */
  'in_flight',
  /** The record names no archived bytes (archive off, or written before the archive). */
  'not_archived',
  'not_found',
  /** The record names an object that is gone. */
  'archive_missing',
  /** The archived bytes are not the ones the record's payloadSha256 names: never sent. */
  'archive_mismatch',
  /**
   * A filtered replay's candidate whose record no longer has the status the filter asked for: the listing
   * (an eventually consistent index) named it, the table says otherwise.
   */
  'status_changed',
] as const;
export type ReplayRefusal = (typeof REPLAY_REFUSALS)[number];

export type ReplayDecision = { kind: 'replayable' } | { kind: 'refused'; reason: ReplayRefusal };

/**
 * A delivery is replayable once nothing will move it on by itself: processed, dead-lettered, processing
 * under a lease that has lapsed (its worker died; the copy SQS still holds is absorbed by the lease), or
 * stranded (isStranded). Anything else has a message on its way to the processor, and a replay would race
 * it. `queueRetentionMs` is the main queue's (config/retention.ts queueRetentionSeconds).
 */
export function replayDecision(
  record: InboxRecord | undefined,
  nowMs: number,
  queueRetentionMs: number,
): ReplayDecision {
  // An expired record is gone, though DynamoDB's TTL has not deleted it yet.
  if (!record || isExpired(record, nowMs)) return { kind: 'refused', reason: 'not_found' };
  if (!isSettled(record, nowMs) && !isStranded(record, nowMs, queueRetentionMs))
    return { kind: 'refused', reason: 'in_flight' };
  if (record.archiveBody === undefined && record.archiveRef === undefined)
    return { kind: 'refused', reason: 'not_archived' };
  return { kind: 'replayable' };
}

/** A destination still working on its copy (pending, retrying, waiting while disabled) is in flight too. */
const FORWARD_SETTLED: ReadonlySet<string> = new Set(['delivered', 'dead-lettered']);

export function isSettled(record: InboxRecord, nowMs: number): boolean {
  if (forwardStatesOf(record).some((state) => !FORWARD_SETTLED.has(state.state))) return false;
  // The replay mark's own condition (core/lifecycle/transitions.ts), on the operator's clock.
  return holds(settledForOperator(nowMs), asItem(record));
}

export { OPERATOR_LEASE_MARGIN_MS, OPERATOR_SETTLED_STATUSES, STRANDABLE_STATUSES, TRANSITION_TIMES };

/**
 * Stranded: failed, claimed or enqueued, with no transition for longer than the main queue keeps a
 * message, so its message cannot be on the main queue any more. The processor gave it up without a mark
 * (DynamoDB unreachable on the last receive, or the invocation died on it and SQS moved the message): its
 * copy is in the DLQ or purged, and nothing will move the record on. A replay is then the only way back;
 * a DLQ copy redriven later finds the replay's dedup (the lease) and runs at most once.
 */
export function isStranded(record: InboxRecord, nowMs: number, queueRetentionMs: number): boolean {
  return holds(stranded(new Date(strandedBeforeMs(nowMs, queueRetentionMs)).toISOString()), asItem(record));
}

/** The cut-off: a strandable record whose every transition is before it is stranded. */
export function strandedBeforeMs(nowMs: number, queueRetentionMs: number): number {
  return nowMs - queueRetentionMs;
}

/** What a refusal tells the operator. */
export function replayRefusalMessage(reason: ReplayRefusal, record?: InboxRecord): string {
  switch (reason) {
    case 'in_flight':
      return (
        `it is ${record?.status ?? 'in flight'}: the processor has it (or will); replay once it is processed or ` +
        "dead-lettered, or once it is stranded (no change for the main queue's retention)"
      );
    case 'not_archived':
      return 'its bytes were not archived (archive.retentionDays was 0, or it predates the archive)';
    case 'not_found':
      return 'no such delivery in the inbox table (or its record has expired)';
    case 'archive_missing':
      return 'its archived object is gone (expired or deleted)';
    case 'archive_mismatch':
      return "the archived bytes do not match the record's payloadSha256; nothing was sent";
    case 'status_changed':
      return (
        `it is ${record?.status ?? 'in another status'} now, no longer the status the filter asked for: it ` +
        'changed after the listing index named it'
      );
  }
}
