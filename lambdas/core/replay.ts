// Whether an operator may replay a delivery now, as a pure decision over its record. The adapter's
// conditional update (DynamoInbox.markReplayed) holds the same rule, so a record that changed between the
// read and the write is refused by DynamoDB, then classified here again.
import { forwardStatesOf } from './destinations/forward-state';
import type { InboxRecord } from './inbox';

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
] as const;
export type ReplayRefusal = (typeof REPLAY_REFUSALS)[number];

export type ReplayDecision = { kind: 'replayable' } | { kind: 'refused'; reason: ReplayRefusal };

/**
 * A delivery is replayable once nothing will move it on by itself: processed, dead-lettered, or processing
 * under a lease that has lapsed (its worker died; the copy SQS still holds is absorbed by the lease).
 * Anything else has a message on its way to the processor, and a replay would race it.
 */
export function replayDecision(record: InboxRecord | undefined, nowMs: number): ReplayDecision {
  if (!record) return { kind: 'refused', reason: 'not_found' };
  if (!isSettled(record, nowMs)) return { kind: 'refused', reason: 'in_flight' };
  if (record.archiveBody === undefined && record.archiveRef === undefined)
    return { kind: 'refused', reason: 'not_archived' };
  return { kind: 'replayable' };
}

/** A destination still working on its copy (pending, retrying, waiting while disabled) is in flight too. */
const FORWARD_SETTLED: ReadonlySet<string> = new Set(['delivered', 'dead-lettered']);

export function isSettled(record: InboxRecord, nowMs: number): boolean {
  if (forwardStatesOf(record).some((state) => !FORWARD_SETTLED.has(state.state))) return false;
  if (record.status === 'processed' || record.status === 'dead-lettered') return true;
  return record.status === 'processing' && (record.leaseUntil ?? 0) < nowMs;
}

/** What a refusal tells the operator. */
export function replayRefusalMessage(reason: ReplayRefusal, record?: InboxRecord): string {
  switch (reason) {
    case 'in_flight':
      return `it is ${record?.status ?? 'in flight'}: the processor has it (or will); replay once it is processed or dead-lettered`;
    case 'not_archived':
      return 'its bytes were not archived (archive.retentionDays was 0, or it predates the archive)';
    case 'not_found':
      return 'no such delivery in the inbox table (or its record has expired)';
    case 'archive_missing':
      return 'its archived object is gone (expired or deleted)';
    case 'archive_mismatch':
      return "the archived bytes do not match the record's payloadSha256; nothing was sent";
  }
}
