// What the handlers need from the outside world. Adapters (lambdas/adapters) implement these over the AWS
// SDK; tests and local mode pass the same adapters pointed at emulators.
import type { ClaimOutcome, InboxRecord, InboxStatus, NewClaim } from './inbox';

export interface Clock {
  /** Epoch milliseconds. */
  now(): number;
}

export const systemClock: Clock = { now: () => Date.now() };

export interface Inbox {
  /**
   * One conditional PutItem: succeeds when no record exists, the record has expired (TTL lags), or a
   * claim's lease has lapsed. Otherwise reads the record and classifies it. Throws DependencyError.
   */
  claim(claim: NewClaim): Promise<ClaimOutcome>;
  /** Deletes our claim after a failed enqueue, so the provider's retry is not taken for a duplicate. */
  release(pk: string, claimToken: string): Promise<void>;
  /** Marks our claim enqueued. Returns false if the claim is no longer ours or has moved on. */
  markEnqueued(pk: string, claimToken: string, messageId: string, nowMs: number): Promise<boolean>;
  get(pk: string): Promise<InboxRecord | undefined>;

  /**
   * Processor: takes the processing lease unless the record is processed or leased by a live worker.
   * Returns the lease token, or the record that stopped it.
   */
  beginProcessing(
    pk: string,
    seed: Pick<
      InboxRecord,
      'provider' | 'dedupKey' | 'payloadSha256' | 'eventType' | 'deliveryId' | 'expiresAt'
    >,
    leaseMs: number,
    nowMs: number,
    processingToken: string,
  ): Promise<{ ok: true } | { ok: false; existing: InboxRecord | undefined }>;
  /** Conditioned on our processing token: a worker whose lease was taken over cannot mark. */
  markProcessed(pk: string, processingToken: string, nowMs: number): Promise<boolean>;
  markFailed(pk: string, processingToken: string, errorCode: string, nowMs: number): Promise<boolean>;
  markDeadLettered(pk: string, errorCode: string, nowMs: number): Promise<void>;
  /** Operators: a redriven message is `enqueued` again. */
  markRequeued(pk: string, nowMs: number): Promise<void>;
  list(filter: {
    provider?: string;
    status?: InboxStatus;
    sinceMs?: number;
    limit: number;
  }): Promise<InboxRecord[]>;
}

export interface QueueMessage {
  body: string;
  attributes: Record<string, string>;
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

export interface PayloadReader {
  /** The bytes behind an `s3://` reference. Throws InvalidPayloadRefError or DependencyError. */
  get(ref: string): Promise<Buffer>;
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
  /** Sends the original message body to the dead-letter queue, with the error code among its attributes. */
  deadLetter(body: string, attributes: Record<string, string>): Promise<void>;
  /** Hides the message for `seconds`: the backoff before SQS hands it out again. */
  delay(receiptHandle: string, seconds: number): Promise<void>;
}
