// What the handlers need from the outside world. Adapters (lambdas/adapters) implement these over the AWS
// SDK; tests and local mode pass the same adapters pointed at emulators.
import type { ArchiveFacts } from './archive';
import type { ClaimOutcome, InboxRecord, LeaseOutcome, LeaseRequest, NewClaim } from './inbox';

/** The facts a processor can recreate a record from, when TTL deleted it before the message ran. */
export type ProcessingSeed = Pick<
  InboxRecord,
  'provider' | 'dedupKey' | 'payloadSha256' | 'eventType' | 'deliveryId' | 'expiresAt' | 'dedupUntil'
>;

export interface Clock {
  /** Epoch milliseconds. */
  now(): number;
}

export const systemClock: Clock = { now: () => Date.now() };

/** What the verify Lambda needs of the inbox: the claim, its release, and a read. */
export type ClaimStore = Pick<Inbox, 'claim' | 'release' | 'get'>;

/** What the processor's give-up writes on the record (Inbox.markDeadLettered). */
export interface DeadLetterMark {
  errorCode: string;
  /** schema_mismatch's failing fields (core/schema-issues.ts); never a value. */
  errorDetail?: string;
  /** The SQS message left to the redrive policy. */
  messageId: string;
  nowMs: number;
  /** Which receive of it this was, for the attempt log. */
  receiveCount?: number;
}

export interface Inbox {
  /**
   * One conditional PutItem: succeeds when no record exists, the record has expired (TTL lags), or a
   * claim's lease has lapsed. Otherwise reads the record and classifies it. Throws DependencyError.
   */
  claim(claim: NewClaim): Promise<ClaimOutcome>;
  /**
   * Lets our claim lapse at once after a failed enqueue, so the provider's retry (the same bytes) takes it
   * rather than being answered as a duplicate. The record stays: it may hold an earlier delivery's place.
   */
  release(pk: string, claimToken: string): Promise<void>;
  get(pk: string): Promise<InboxRecord | undefined>;

  /**
   * Processor: takes the processing lease for one receive of one message, creating the record from the
   * message's facts if TTL already deleted it. One conditional update; a refusal is classified by
   * classifyLeaseRefusal (core/inbox.ts) from the record read after it.
   */
  beginProcessing(pk: string, seed: ProcessingSeed, lease: LeaseRequest): Promise<LeaseOutcome>;
  /**
   * Conditioned on our processing token, which stays on the processed record: a worker whose lease was
   * taken over cannot mark, and an SDK retry of our own applied mark applies again. False if not ours.
   */
  markProcessed(pk: string, processingToken: string, nowMs: number): Promise<boolean>;
  /**
   * Records that the delivery's copies are on its destinations' queues, so a later receive (a handler's
   * retry) does not send them again. Conditioned on our token; false if not ours.
   */
  markForwarded(pk: string, processingToken: string, nowMs: number): Promise<boolean>;
  /**
   * Names the archived bytes (an object the processor wrote after taking the lease). Conditioned on our
   * token; false if not ours.
   */
  markArchived(pk: string, processingToken: string, facts: ArchiveFacts): Promise<boolean>;
  /**
   * A lease taken but never used: the invocation ran out before the handler started. The lease lapses at
   * once and nothing is counted. Conditioned on our token; false if not ours.
   */
  releaseLease(pk: string, processingToken: string): Promise<boolean>;
  /**
   * A transient failure: `failed`, lease released, attempts + 1, and an earlier failure's
   * `lastErrorDetail` removed (it described another error), and the attempt logged with the message's
   * receive count. Conditioned on our token. `keepToken` (a handler cut off that may still finish) keeps
   * the token on the failed record for markProcessedLate.
   */
  markFailed(
    pk: string,
    processingToken: string,
    errorCode: string,
    nowMs: number,
    receiveCount?: number,
    options?: { keepToken?: boolean },
  ): Promise<boolean>;
  /**
   * A handler cut off at the deadline finished after all: the failed record it left becomes processed,
   * unless another worker leased it since. False if not.
   */
  markProcessedLate(pk: string, processingToken: string, nowMs: number): Promise<boolean>;
  /**
   * The processor gives the delivery up: `dead-lettered`, with the message it leaves to the redrive policy.
   * Conditioned on our token. False if the lease is not ours.
   */
  markDeadLettered(pk: string, processingToken: string, mark: DeadLetterMark): Promise<boolean>;
  /**
   * Operators: a message moved back from the DLQ is `enqueued` again. Only a record still as the giving-up
   * left it (dead-lettered before `movedSinceMs`, failed, or a lapsed lease): anything the processor did
   * since, with the moved message or another, wins. False if the record was left alone.
   */
  markRequeued(pk: string, nowMs: number, movedSinceMs: number): Promise<boolean>;
}

export interface VersionCheck {
  provider: string;
  /** The handler's name for the resource, e.g. `payment_intent:pi_123`. */
  resourceKey: string;
  /** Larger is newer: epoch milliseconds of the resource's own update time, or a sequence number. */
  version: number;
  /** The delivery asking (its idempotency key): the same delivery asking again is not stale. */
  deliveryKey: string;
  nowMs: number;
  /** How long the version is remembered. */
  ttlSeconds: number;
}

/** The newest version seen per resource, for `ctx.acceptIfNewer`. */
export interface ResourceVersions {
  /**
   * One conditional write: true (and recorded) if `version` is newer than any seen for the resource, or
   * this same delivery recorded it; false if an equal or newer version came first. Throws DependencyError.
   */
  acceptIfNewer(check: VersionCheck): Promise<boolean>;
}

export interface QueueMessage {
  body: string;
  attributes: Record<string, string>;
  /** SendMessage's DelaySeconds (0 to 900). @default 0 */
  delaySeconds?: number;
}

export interface DeliveryQueue {
  /** SendMessage. Resolves with the message id once SQS has stored it. Throws DependencyError. */
  send(message: QueueMessage): Promise<{ messageId: string }>;
}

export interface PayloadWriter {
  /**
   * Content-addressed: the same bytes always land on the same key. `sha256Hex` is the body's digest, which
   * the caller already has (it is in the key); the store sends it for the service to check on arrival.
   * Returns the `s3://` reference.
   */
  put(key: string, body: Buffer, sha256Hex: string): Promise<string>;
}

export interface StoredPayload {
  body: Buffer;
  /** When the object was last written, epoch milliseconds, if the store says. */
  lastModifiedMs?: number;
}

export interface PayloadReader {
  /**
   * The bytes behind an `s3://` reference. Throws InvalidPayloadRefError (not our bucket),
   * PayloadMissingError (no such object) or DependencyError.
   */
  get(ref: string): Promise<StoredPayload>;
  /** Writes the same bytes again, so the bucket's lifecycle counts the object's age from now. */
  rewrite(ref: string, body: Buffer, sha256Hex: string): Promise<void>;
}

export interface SecretSource {
  /**
   * The provider's secrets, newest first (AWSCURRENT, then AWSPREVIOUS if present). `refresh` bypasses
   * the cache (rate-limited by the implementation). Throws DependencyError when the store is unreachable
   * and nothing usable is cached; returns [] when the provider has no secret.
   */
  get(provider: string, options?: { refresh?: boolean }): Promise<readonly string[]>;
}

/** The processor's hold on the message it is working on. */
export interface MessageControl {
  /**
   * Hides the message for `seconds`: the backoff before SQS hands it out again. 0 hands it out again at
   * once, which is how a given-up message reaches the DLQ: through the queue's redrive policy, so SQS sets
   * its DeadLetterQueueSourceArn and the console's "Start DLQ redrive" can send it back.
   */
  delay(receiptHandle: string, seconds: number): Promise<void>;
}
