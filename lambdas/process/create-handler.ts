// The processor handler factory: an SQS batch in, the failed item ids out. One record failing never fails
// the batch; a thrown error (a bug) fails only the records not yet settled.
import { BatchProcessor, EventType, processPartialResponse } from '@aws-lambda-powertools/batch';
import type { Context, SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import { PROCESS_METRICS } from '../../config/telemetry';
import { type ProcessDeps, processRecord, type QueueRecord, type RecordResult } from '../core/process-record';
import type { LogSink, MetricSink } from '../core/telemetry';

export interface ProcessHandlerDeps
  extends Omit<ProcessDeps, 'leaseMs' | 'log' | 'invocationStartedMs' | 'deadlineMs'> {
  logger: LogSink;
  metrics: MetricSink;
  /** The processing lease when the context cannot tell the remaining time (local mode, tests). */
  defaultLeaseMs: number;
  /**
   * Added to the invocation's remaining time to make the lease, so a clock a little behind DynamoDB's
   * cannot let another worker in while this one still runs. @default 5000
   */
  leaseMarginMs?: number;
}

export type ProcessHandler = (
  event: SQSEvent,
  context?: Pick<Context, 'getRemainingTimeInMillis'>,
) => Promise<SQSBatchResponse>;

/** Raised to Powertools batch so it reports the record as failed; the real code is already logged. */
class RetryLater extends Error {
  override name = 'RetryLater';
}

const OUTCOME_METRIC = {
  processed: PROCESS_METRICS.processed,
  duplicate_skipped: PROCESS_METRICS.duplicateSkipped,
  stale_skipped: PROCESS_METRICS.staleSkipped,
  unknown_acked: PROCESS_METRICS.unknownEvent,
  dead_lettered: PROCESS_METRICS.deadLettered,
  draining: PROCESS_METRICS.draining,
  retry: PROCESS_METRICS.transientFailure,
} as const;

/** Outcomes that leave the message on the queue: reported as batch item failures. */
const NOT_DONE: ReadonlySet<RecordResult['outcome']> = new Set(['retry', 'dead_lettered', 'draining']);

export function queueRecordFrom(record: SQSRecord): QueueRecord {
  const attributes: Record<string, string> = {};
  for (const [name, value] of Object.entries(record.messageAttributes ?? {})) {
    if (value.stringValue !== undefined) attributes[name] = value.stringValue;
  }
  return {
    messageId: record.messageId,
    receiptHandle: record.receiptHandle,
    body: record.body,
    receiveCount: Number(record.attributes.ApproximateReceiveCount) || 1,
    sentTimestampMs: Number(record.attributes.SentTimestamp) || 0,
    attributes,
  };
}

function recordResult(deps: ProcessHandlerDeps, messageId: string, result: RecordResult): void {
  deps.metrics.addMetric(OUTCOME_METRIC[result.outcome], 'Count', 1);
  deps.metrics.addMetric(PROCESS_METRICS.messageAge, 'Milliseconds', result.ageMs);
  const attributes = {
    outcome: result.outcome,
    messageId,
    provider: result.provider,
    eventType: result.eventType,
    dedupKey: result.dedupKey,
    ageMs: result.ageMs,
    ...('code' in result ? { errorCode: result.code } : {}),
    ...('delaySeconds' in result ? { delaySeconds: result.delaySeconds } : {}),
    ...('recorded' in result && !result.recorded ? { recorded: false } : {}),
  };
  if ('markFailed' in result && result.markFailed) {
    // The effect ran and will not run again for this message; only the record is behind.
    deps.metrics.addMetric(PROCESS_METRICS.markFailed, 'Count', 1);
    deps.logger.error('event processed, but the processed mark failed: the effect ran', {
      ...attributes,
      effectRan: true,
    });
    return;
  }
  if ('leaseLost' in result && result.leaseLost) {
    deps.logger.warn(
      'event processed after its lease was taken over: the effect may have run twice',
      attributes,
    );
    return;
  }
  if (result.outcome === 'dead_lettered') deps.logger.warn('event dead-lettered', attributes);
  else if (result.outcome === 'retry') deps.logger.warn('event will be retried', attributes);
  else deps.logger.info(`event ${result.outcome.replace('_', ' ')}`, attributes);
}

export function createProcessHandler(deps: ProcessHandlerDeps): ProcessHandler {
  const log = (message: string, attributes?: Record<string, string | number | boolean | undefined>) =>
    deps.logger.info(message, attributes ?? {});
  return async (event, context) => {
    // Hold the lease for as long as this invocation can still run, so a second worker cannot start the
    // same effect while the first is alive; a crashed worker's lease lapses after that.
    const startedMs = deps.clock.now();
    const remainingMs = context?.getRemainingTimeInMillis?.() ?? deps.defaultLeaseMs;
    const processDeps: ProcessDeps = {
      ...deps,
      leaseMs: remainingMs + (deps.leaseMarginMs ?? 5_000),
      invocationStartedMs: startedMs,
      // Mark retries stop a second before the invocation would be cut off (visibilityCeiling counts on it).
      deadlineMs: startedMs + remainingMs - 1_000,
      log,
    };
    const recordHandler = async (record: SQSRecord) => {
      const result = await processRecord(processDeps, queueRecordFrom(record));
      recordResult(deps, record.messageId, result);
      if (NOT_DONE.has(result.outcome)) throw new RetryLater('code' in result ? result.code : result.outcome);
    };
    try {
      // A new processor per batch: it keeps per-batch state, and local mode may run batches concurrently.
      return await processPartialResponse(event, recordHandler, new BatchProcessor(EventType.SQS), {
        throwOnFullBatchFailure: false,
      });
    } finally {
      deps.metrics.publishStoredMetrics();
    }
  };
}
