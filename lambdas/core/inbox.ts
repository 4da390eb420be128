// The inbox record and the decisions taken on it, as pure functions. The DynamoDB adapter runs the
// conditional writes; what a failed condition means is decided here, in one place.
import type { ArchiveFacts } from './archive';
import { UNKNOWN_EVENT_TYPE } from './envelope';
import { holds, type StoredItem } from './lifecycle/evaluate';
import { eq } from './lifecycle/expression';
import { draining, OPERATOR_LEASE_MARGIN_MS, ownClaim, sameType } from './lifecycle/transitions';

export const INBOX_STATUSES = [
  'claimed',
  'enqueued',
  'processing',
  'processed',
  'failed',
  'dead-lettered',
] as const;
export type InboxStatus = (typeof INBOX_STATUSES)[number];

export interface InboxRecord {
  pk: string;
  provider: string;
  dedupKey: string;
  deliveryId?: string;
  eventType?: string;
  payloadSha256: string;
  status: InboxStatus;
  /** Who holds the verify-side claim; the mark and the release are conditioned on it. */
  claimToken?: string;
  /**
   * Who holds (or last held) the processor-side lease. Kept on a `processed` record, so the processed mark,
   * retried by the SDK after its answer was lost, still finds its own token and applies again.
   */
  processingToken?: string;
  /** Epoch milliseconds. A claim or processing lease after this has lapsed. */
  leaseUntil?: number;
  /** The SQS message the processing lease was taken for, and on which receive of it (for the record). */
  leaseMessageId?: string;
  leaseReceiveCount?: number;
  /**
   * Set when the processor gives a delivery up: the SQS message it leaves to the redrive policy, and when.
   * A later receive of that same message goes straight on to the DLQ; a redriven copy (a new message id)
   * is processed again.
   */
  deadLetterMessageId?: string;
  /** The last replay's own mark, so an SDK retry of that mark (applied, its answer lost) knows it as its own. */
  replayToken?: string;
  /**
   * Every message given up on since the last redrive: a later receive of any of them is drained to the DLQ
   * without running the handler, even once another copy of the delivery has run or failed since.
   */
  givenUpMessageIds?: string[];
  deadLetteredAt?: string;
  /** When an operator last moved the delivery back from the DLQ (markRequeued). */
  redrivenAt?: string;
  receivedAt: string;
  enqueuedAt?: string;
  processedAt?: string;
  /** When the processor sent the delivery's copies to its destinations' queues (docs/destinations.md). */
  forwardedAt?: string;
  attempts: number;
  lastErrorCode?: string;
  /**
   * What exactly failed, with the failed or dead-lettered mark, where the code cannot say:
   * `schema_mismatch`'s failing field paths and zod issue codes, never values (≤ 512 characters).
   */
  lastErrorDetail?: string;
  /** When the processor last marked a transient failure (markFailed). */
  failedAt?: string;
  /** Each failed or dead-lettered attempt, oldest first, capped (core/attempt-log.ts). A DynamoDB list. */
  attemptLog?: string[];
  messageId?: string;
  payloadRef?: string;
  /**
   * Epoch seconds; the table's TTL attribute: the record's whole lifetime, the dedup window or the
   * archive's retention, whichever is longer (config/retention.ts recordTtlSeconds).
   */
  expiresAt: number;
  /**
   * Epoch seconds: the end of the dedup window. After it the same dedup key is claimed as a new delivery,
   * even though the record may still live for the archive. Records written before it have `expiresAt` only.
   */
  dedupUntil?: number;
  /** When the processor archived the bytes (docs/archive-and-replay.md). */
  archivedAt?: string;
  /** The archived bytes in the payload bucket (`s3://bucket/key`), for bodies over archive.inlineMaxBytes. */
  archiveRef?: string;
  /** The archived bytes themselves, base64 (a DynamoDB binary attribute), for small bodies. */
  archiveBody?: string;
  /** The envelope's content type and occurred-at, so a replay sends the envelope verify sent. */
  archiveContentType?: string;
  occurredAt?: string;
  /** How often an operator replayed the delivery, when last, and who (an IAM ARN, or the OS user locally). */
  replays?: number;
  lastReplayedAt?: string;
  lastReplayedBy?: string;
}

/**
 * Whether the record's lifetime is over. DynamoDB's TTL deletes it up to days after `expiresAt`, and reads
 * return it until then: an operator's read treats it as gone. The same line the claim's condition draws
 * (expiresAt < now, in seconds), so a record an operator is told is gone is one a new delivery may claim.
 */
export function isExpired(record: Pick<InboxRecord, 'expiresAt'>, nowMs: number): boolean {
  return record.expiresAt < Math.floor(nowMs / 1000);
}

export { OPERATOR_LEASE_MARGIN_MS };

/** The record as the lifecycle's in-memory evaluation reads it. */
export function asItem(record: InboxRecord): StoredItem {
  return record as unknown as StoredItem;
}

export function inboxKey(provider: string, dedupKey: string): string {
  return `${provider}#${dedupKey}`;
}

export interface NewClaim {
  provider: string;
  dedupKey: string;
  deliveryId?: string;
  eventType?: string;
  payloadSha256: string;
  payloadRef?: string;
  /** Epoch milliseconds from the injected clock. */
  nowMs: number;
  leaseSeconds: number;
  /** The record's lifetime (its TTL). */
  ttlSeconds: number;
  /** The dedup window, at most ttlSeconds. @default ttlSeconds */
  dedupSeconds?: number;
  claimToken: string;
}

export function newClaimRecord(claim: NewClaim): InboxRecord {
  return {
    pk: inboxKey(claim.provider, claim.dedupKey),
    provider: claim.provider,
    dedupKey: claim.dedupKey,
    ...(claim.deliveryId === undefined ? {} : { deliveryId: claim.deliveryId }),
    ...(claim.eventType === undefined ? {} : { eventType: claim.eventType }),
    payloadSha256: claim.payloadSha256,
    ...(claim.payloadRef === undefined ? {} : { payloadRef: claim.payloadRef }),
    status: 'claimed',
    claimToken: claim.claimToken,
    leaseUntil: claim.nowMs + claim.leaseSeconds * 1000,
    receivedAt: new Date(claim.nowMs).toISOString(),
    attempts: 0,
    expiresAt: Math.floor(claim.nowMs / 1000) + claim.ttlSeconds,
    dedupUntil: Math.floor(claim.nowMs / 1000) + (claim.dedupSeconds ?? claim.ttlSeconds),
  };
}

export type ClaimOutcome =
  | { kind: 'claimed'; claimToken: string }
  | { kind: 'duplicate'; existing: InboxRecord }
  /** Claimed by another invocation, the same bytes: it may or may not have sent the message yet. */
  | { kind: 'pending'; existing: InboxRecord }
  /** The record is churning (vanished twice between put and read): come back shortly. */
  | { kind: 'in_flight'; existing: InboxRecord; retryAfterSeconds: number }
  | { kind: 'conflict'; existing: InboxRecord; conflict: ConflictKind };

/**
 * What differs from the record under the same dedup key: the bytes, or only the event type. GitHub's
 * `X-GitHub-Event` and Shopify's `X-Shopify-Topic` are not signed, so the same signed body can arrive
 * named as another event; it must not run another handler as if it were new.
 */
export type ConflictKind = 'payload' | 'event_type';

/**
 * Whether two deliveries name the same event type. No type and `unknown` are one: both route as
 * `unknown` (the envelope's stand-in), and the processor seeds a record it recreates with the envelope's.
 */
export function sameEventType(recorded: string | undefined, incoming: string | undefined): boolean {
  return (recorded ?? UNKNOWN_EVENT_TYPE) === (incoming ?? UNKNOWN_EVENT_TYPE);
}

/** The same bytes under the same event type, or what differs. */
function mismatch(
  existing: InboxRecord,
  incoming: { payloadSha256: string; eventType?: string },
): ConflictKind | undefined {
  // The claim's and the lease's own predicates (core/lifecycle/transitions.ts). Same signed id, different
  // bytes: a sender bug or an attack. Never overwrite the first record.
  if (!holds(eq('payloadSha256', incoming.payloadSha256), asItem(existing))) return 'payload';
  if (!holds(sameType(incoming.eventType), asItem(existing))) return 'event_type';
  return undefined;
}

/**
 * What an existing, unexpired record means for a new delivery with the same dedup key. Called only after
 * the claim's condition failed: the record is live (enqueued or further along, or claimed under a lease
 * that has not lapsed), or it is a lapsed claim of other bytes, which only the same bytes may retake.
 */
export function classifyExisting(
  existing: InboxRecord,
  claim: Pick<NewClaim, 'payloadSha256' | 'eventType'> & { claimToken?: string },
): ClaimOutcome {
  const { claimToken } = claim;
  // Our own claim: the put was applied, its answer was lost, and the SDK's retry found it. It is ours.
  if (claimToken !== undefined && holds(ownClaim.condition({ claimToken }), asItem(existing))) {
    return { kind: 'claimed', claimToken };
  }
  // Decided before `pending`: a copy sent for another type would reach the processor as that type.
  const conflict = mismatch(existing, claim);
  if (conflict) return { kind: 'conflict', existing, conflict };
  if (existing.status === 'claimed') return { kind: 'pending', existing };
  return { kind: 'duplicate', existing };
}

/** What the processor asks for when it takes the processing lease. */
export interface LeaseRequest {
  token: string;
  /** The SQS message being processed, and which receive of it this is. */
  messageId: string;
  receiveCount: number;
  payloadSha256: string;
  /** The envelope's type: a record of another type refuses the lease. */
  eventType: string;
  leaseMs: number;
  nowMs: number;
  /** The archive's facts, written with the lease where the record holds none yet (core/archive.ts). */
  archive?: ArchiveFacts;
}

export type LeaseOutcome =
  /**
   * `forwarded`: an earlier receive sent the delivery's copies to its destinations' queues already.
   * `archived`: the record names the delivery's archived bytes (written by this lease or an earlier one).
   */
  | { kind: 'leased'; forwarded?: boolean; archived?: boolean }
  /** Done already: a second copy, or a redrive of something that succeeded. */
  | { kind: 'processed'; existing: InboxRecord }
  /** The record holds other bytes, or another type, under the same key: this message must never run. */
  | { kind: 'conflict'; existing: InboxRecord; conflict: ConflictKind }
  /** This very message was given up on an earlier receive: it is on its way to the DLQ. */
  | { kind: 'draining'; existing: InboxRecord }
  /** Another message for the same delivery is being processed by a live worker. */
  | { kind: 'held'; existing: InboxRecord; retryAfterMs: number };

/**
 * Why the lease condition failed, from the record read after it. A lease that carries our token is ours:
 * the update was applied and its answer lost. Any other live lease is held, whichever message it was taken
 * for: the processor never leaves a lease of its own behind for the next receive (when it cannot release
 * one, its retry waits the lease out), so a live lease means a live worker, or one that died less than a
 * lease ago.
 */
export function classifyLeaseRefusal(existing: InboxRecord, request: LeaseRequest): LeaseOutcome {
  if (existing.processingToken === request.token && existing.status === 'processing')
    return {
      kind: 'leased',
      forwarded: existing.forwardedAt !== undefined,
      ...(existing.archivedAt === undefined ? {} : { archived: true }),
    };
  // Other bytes or another type than the record's are a conflict even once the record is processed:
  // skipping them as a duplicate would drop a different event without a word.
  const conflict = mismatch(existing, request);
  if (conflict) return { kind: 'conflict', existing, conflict };
  if (existing.status === 'processed') return { kind: 'processed', existing };
  if (holds(draining(request.messageId), asItem(existing))) return { kind: 'draining', existing };
  return {
    kind: 'held',
    existing,
    retryAfterMs: Math.max(0, (existing.leaseUntil ?? request.nowMs) - request.nowMs),
  };
}
