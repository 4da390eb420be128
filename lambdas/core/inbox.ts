// The inbox record and the decisions taken on it, as pure functions. The DynamoDB adapter runs the
// conditional writes; what a failed condition means is decided here, in one place.

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
  /** Who holds the processor-side lease. */
  processingToken?: string;
  /** Epoch milliseconds. A claim or processing lease after this has lapsed. */
  leaseUntil?: number;
  receivedAt: string;
  enqueuedAt?: string;
  processedAt?: string;
  attempts: number;
  lastErrorCode?: string;
  messageId?: string;
  payloadRef?: string;
  /** Epoch seconds; the table's TTL attribute. */
  expiresAt: number;
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
  ttlSeconds: number;
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
  };
}

export type ClaimOutcome =
  | { kind: 'claimed'; claimToken: string }
  | { kind: 'duplicate'; existing: InboxRecord }
  | { kind: 'in_flight'; existing: InboxRecord; retryAfterSeconds: number }
  | { kind: 'conflict'; existing: InboxRecord };

/**
 * What an existing, unexpired record means for a new delivery with the same dedup key. Called only after
 * the claim's condition failed, so the record is live: either enqueued (or further along), or claimed
 * under a lease that has not lapsed.
 */
export function classifyExisting(existing: InboxRecord, payloadSha256: string, nowMs: number): ClaimOutcome {
  // Same signed id, different bytes: a sender bug or an attack. Never overwrite the first record.
  if (existing.payloadSha256 !== payloadSha256) return { kind: 'conflict', existing };
  if (existing.status === 'claimed') {
    const remainingMs = Math.max(0, (existing.leaseUntil ?? nowMs) - nowMs);
    return { kind: 'in_flight', existing, retryAfterSeconds: Math.max(1, Math.ceil(remainingMs / 1000)) };
  }
  return { kind: 'duplicate', existing };
}
