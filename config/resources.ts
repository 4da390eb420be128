// Resource settings shared by the CDK stack and local mode, so the two cannot drift apart: the same
// queue attributes, redrive policy and table keys are created by CloudFormation and by `npm start`.
import type { Config } from './index';
import { QUEUE_MAX_MESSAGE_BYTES } from './schema';

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
} as const;

export const QUEUE_RETENTION_SECONDS = 4 * 86_400;
/** Longer than the main queue's, so a message redriven late still has time to be inspected. */
export const DLQ_RETENTION_SECONDS = 14 * 86_400;

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
    retentionSeconds: QUEUE_RETENTION_SECONDS,
    dlqRetentionSeconds: DLQ_RETENTION_SECONDS,
    maxReceiveCount: config.queue.maxReceiveCount,
    batchSize: config.queue.batchSize,
    maxBatchingWindowSeconds: config.queue.maxBatchingWindowSeconds,
  };
}

/** The SQS RedrivePolicy attribute, as CreateQueue/SetQueueAttributes take it. */
export function redrivePolicyAttribute(dlqArn: string, maxReceiveCount: number): string {
  return JSON.stringify({ deadLetterTargetArn: dlqArn, maxReceiveCount });
}

/** Payload objects expire with the dedup window: after it, nothing can refer to them. */
export function payloadExpiryDays(config: Config): number {
  const longest = Math.max(...Object.values(config.providers).map((p) => p.dedupTtlSeconds));
  return Math.ceil(longest / 86_400) + 1;
}
