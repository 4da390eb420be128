// Resource settings shared by the CDK stack and local mode, so the two cannot drift apart: the same
// queue attributes, redrive policy and table keys are created by CloudFormation and by `npm start`.
import { PAYLOAD_REFRESH_AGE_MS } from '../lambdas/core/payload-lifetime';
import { maxReceiveCount } from '../lambdas/core/retry-schedule';
import type { Config, ForwardDestination } from './index';
import { QUEUE_MAX_MESSAGE_BYTES, SQS_MAX_RETENTION_SECONDS } from './limits';
import { queueRetentionSeconds } from './retention';

export { queueRetentionSeconds, recordTtlSeconds } from './retention';

export const INBOX_TABLE = {
  partitionKey: 'pk',
  /** TTL attribute (epoch seconds). TTL deletion lags by days, so the claim condition checks it too. */
  ttlAttribute: 'expiresAt',
} as const;

/** Lambda defaults; the construct exposes them as props. */
export const LAMBDA_DEFAULTS = {
  /** Well under the 10 s providers wait and API Gateway's 29 s. */
  verifyTimeoutSeconds: 8,
  verifyMemoryMb: 512,
  processorTimeoutSeconds: 30,
  processorMemoryMb: 512,
  forwarderMemoryMb: 512,
} as const;

/** How long before its timeout each Lambda's middy chain gives up (lambdas/verify|process/middy-chain.ts). */
export const EARLY_TIMEOUT_MS = { verify: 1_500, processor: 1_000, forwarder: 1_000 } as const;

/**
 * The shortest function timeouts the construct accepts: enough to work before the early timeout, and for
 * the processor also before its handlers' cut-off, 2 s ahead of that (process-record.ts). Shorter, every
 * request would be answered 503 and every record handed back unstarted.
 */
export const MIN_TIMEOUT_SECONDS = { verify: 3, processor: 5 } as const;

/**
 * The DLQ keeps messages as long as SQS allows. A message the redrive policy moves keeps its original
 * enqueue time, so it stays in the DLQ for 14 days minus the time it spent being retried.
 */
export const DLQ_RETENTION_SECONDS = SQS_MAX_RETENTION_SECONDS;

/**
 * AWS's guidance for an SQS event source: visibility timeout at least six times the function timeout,
 * so a batch retried by Lambda after a throttle is not made visible again while still running.
 */
export function queueVisibilitySeconds(processorTimeoutSeconds: number): number {
  return processorTimeoutSeconds * 6;
}

export interface QueueSettings {
  visibilityTimeoutSeconds: number;
  maximumMessageSize: number;
  retentionSeconds: number;
  dlqRetentionSeconds: number;
  maxReceiveCount: number;
  batchSize: number;
  maxBatchingWindowSeconds: number;
}

export function queueSettings(
  config: Config,
  processorTimeoutSeconds: number = LAMBDA_DEFAULTS.processorTimeoutSeconds,
): QueueSettings {
  return {
    visibilityTimeoutSeconds: queueVisibilitySeconds(processorTimeoutSeconds),
    maximumMessageSize: QUEUE_MAX_MESSAGE_BYTES,
    retentionSeconds: queueRetentionSeconds(config),
    dlqRetentionSeconds: DLQ_RETENTION_SECONDS,
    maxReceiveCount: maxReceiveCount(config.queue.retrySchedule),
    batchSize: config.queue.batchSize,
    maxBatchingWindowSeconds: config.queue.maxBatchingWindowSeconds,
  };
}

/** The SQS RedrivePolicy attribute, as CreateQueue/SetQueueAttributes take it. */
export function redrivePolicyAttribute(dlqArn: string, maxReceiveCount: number): string {
  return JSON.stringify({ deadLetterTargetArn: dlqArn, maxReceiveCount });
}

/**
 * Days a large body stays in the payload bucket: twice the DLQ's retention and a day. A message lives at
 * most DLQ_RETENTION_SECONDS from its enqueue, but a redrive (the CLI's or the SQS console's) enqueues it
 * anew with a fresh clock. The processor therefore rewrites an object older than PAYLOAD_REFRESH_AGE_DAYS
 * when it reads it (see lambdas/core/payload-lifetime.ts), so whatever a redrive starts, the body it points
 * at lives for at least one more full DLQ retention. Independent of the dedup TTL.
 */
export function payloadExpiryDays(): number {
  return 2 * (DLQ_RETENTION_SECONDS / 86_400) + PAYLOAD_REFRESH_AGE_MS / 86_400_000;
}

/**
 * The payload bucket's lifecycle, per prefix. `payloads/` (verify's large bodies) keeps every object as
 * long as any message can point at it (payloadExpiryDays) and, since the archive reuses those objects, at
 * least the archive's retention. `archive/` (bodies the processor archived on their own, core/archive.ts)
 * keeps them for the retention, counted from their write, which comes after the record's receive; a day
 * at least, so objects left from an earlier, longer retention still go when the archive is turned off.
 */
export function payloadBucketLifecycle(config: Pick<Config, 'archive'>): {
  payloadsDays: number;
  archiveDays: number;
} {
  const { retentionDays } = config.archive;
  return {
    payloadsDays: Math.max(payloadExpiryDays(), retentionDays),
    archiveDays: Math.max(1, retentionDays),
  };
}

/**
 * The forwarder's timeout: room for its slowest destination's attempt, and the writes around it, within
 * one invocation. An attempt can be two requests (a 401 or 403 re-signed with secrets read afresh, see
 * http-destination.ts), each with its connect and response timeouts. At least 30 s.
 */
export function forwarderTimeoutSeconds(config: Pick<Config, 'destinations'>): number {
  let slowest = 0;
  for (const destination of Object.values(config.destinations)) {
    if (destination.type === 'http') {
      slowest = Math.max(slowest, destination.connectTimeoutSeconds + destination.responseTimeoutSeconds);
    }
  }
  return Math.max(30, 2 * slowest + 15);
}

/** A destination's queue and DLQ names: `<inbox queue>-to-<id>` and `<inbox queue>-to-<id>-dlq`. */
export function destinationQueueNames(inboxQueueName: string, destinationId: string) {
  const queueName = `${inboxQueueName}-to-${destinationId}`;
  return { queueName, dlqName: `${queueName}-dlq` };
}

/** SQS's longest queue name. */
export const SQS_MAX_QUEUE_NAME = 80;

export interface DestinationQueueSettings {
  visibilityTimeoutSeconds: number;
  maximumMessageSize: number;
  /**
   * Always SQS's longest: a disabled destination's deliveries wait on its queue (whenDisabled `wait`),
   * and they may wait as long as SQS keeps anything.
   */
  retentionSeconds: number;
  dlqRetentionSeconds: number;
  maxReceiveCount: number;
}

export function destinationQueueSettings(
  destination: ForwardDestination,
  timeoutSeconds: number,
): DestinationQueueSettings {
  return {
    visibilityTimeoutSeconds: queueVisibilitySeconds(timeoutSeconds),
    maximumMessageSize: QUEUE_MAX_MESSAGE_BYTES,
    retentionSeconds: SQS_MAX_RETENTION_SECONDS,
    dlqRetentionSeconds: DLQ_RETENTION_SECONDS,
    maxReceiveCount: maxReceiveCount(destination.retrySchedule),
  };
}

/** The forwarder's batch: small, so one slow destination's batch holds few deliveries behind it. */
export const FORWARDER_BATCH_SIZE = 5;
