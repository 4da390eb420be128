// The processor handler factory: an SQS batch in, the failed item ids out. One record failing never fails
// the batch; a thrown error (a bug) fails only the records not yet settled.
import { BatchProcessor, EventType, processPartialResponse } from '@aws-lambda-powertools/batch';
import type { Context, SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import { PROCESS_METRICS } from '../../config/telemetry';
import { type ProcessDeps, processRecord, type QueueRecord, type RecordResult } from '../core/process-record';
import type { LogSink, MetricSink } from '../core/telemetry';

export interface ProcessHandlerDeps extends Omit<ProcessDeps, 'leaseMs' | 'log'> {
  logger: LogSink;
  metrics: MetricSink;
  /** The processing lease when the context cannot tell the remaining time (local mode, tests). */
  defaultLeaseMs: number;
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
  unknown_acked: PROCESS_METRICS.unknownEvent,
  dead_lettered: PROCESS_METRICS.permanentFailure,
  retry: PROCESS_METRICS.transientFailure,
} as const;

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
  };
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
    const leaseMs = (context?.getRemainingTimeInMillis?.() ?? deps.defaultLeaseMs) + 5_000;
    const processDeps: ProcessDeps = { ...deps, leaseMs, log };
    const recordHandler = async (record: SQSRecord) => {
      const result = await processRecord(processDeps, queueRecordFrom(record));
      recordResult(deps, record.messageId, result);
      if (result.outcome === 'retry') throw new RetryLater(result.code);
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
