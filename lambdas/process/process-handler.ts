// The processor logic: an SQS batch in, the failed item ids out (createProcessHandler).
// One record failing never fails the batch; a thrown error (a bug) fails only the records not yet settled.
import { BatchProcessor, EventType, processPartialResponse } from '@aws-lambda-powertools/batch';
import type { Context, SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import { PROCESS_METRICS } from '../../config/telemetry';
import { MESSAGE_ATTRIBUTES } from '../core/envelope';
import { HAND_BACK_MS, invocationBudget } from '../core/invocation-budget';
import { type ProcessDeps, processRecord, type QueueRecord, type RecordResult } from '../core/process-record';
import { maxReceiveCount } from '../core/retry-schedule';
import { type LogAttributes, type LogSink, logWithMetrics, type MetricSink } from '../core/telemetry';
import { RetryLater } from '../middleware/sqs-batch';

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
  /** Aborted when the invocation is about to time out (the middy layer's early timeout). */
  signal?: AbortSignal,
) => Promise<SQSBatchResponse>;

const OUTCOME_METRIC = {
  processed: PROCESS_METRICS.processed,
  duplicate_skipped: PROCESS_METRICS.duplicateSkipped,
  stale_skipped: PROCESS_METRICS.staleSkipped,
  unknown_acked: PROCESS_METRICS.unknownEvent,
  dead_lettered: PROCESS_METRICS.deadLettered,
  draining: PROCESS_METRICS.draining,
  retry: PROCESS_METRICS.transientFailure,
  // Not a failure of anything: its WARN line is the record, and no custom metric is added for it.
  not_started: undefined,
} as const;

/** Outcomes that leave the message on the queue: reported as batch item failures. */
const NOT_DONE: ReadonlySet<RecordResult['outcome']> = new Set([
  'retry',
  'dead_lettered',
  'draining',
  'not_started',
]);

const NO_DEADLINE = new AbortController().signal;

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

/**
 * The one line a record gets. `carryMetrics` puts the batch's metrics, stored so far, on it (the last record
 * of a batch to settle carries them all). The message id, which the runbook needs only for messages that
 * stay on the queue, is on warnings and errors; at INFO it is a DEBUG line.
 *
 * A delivery given up early (a permanent error) still waits on the queue until SQS has received it
 * maxReceiveCount times: only the redrive policy moves a message to the DLQ. Its `dead_lettered` line says
 * so once (`receiveCount`, `dlqAtReceive`); each later receive that only hands it on is a DEBUG line and
 * the EventDraining metric, not a line of its own at INFO.
 */
function recordResult(
  deps: ProcessHandlerDeps,
  messageId: string,
  result: RecordResult,
  carryMetrics: boolean,
  receiveCount?: number,
): void {
  const outcomeMetric = OUTCOME_METRIC[result.outcome];
  if (outcomeMetric) deps.metrics.addMetric(outcomeMetric, 'Count', 1);
  deps.metrics.addMetric(PROCESS_METRICS.messageAge, 'Milliseconds', result.ageMs);
  const attributes = {
    outcome: result.outcome,
    provider: result.provider,
    eventType: result.eventType,
    dedupKey: result.dedupKey,
    ageMs: result.ageMs,
    ...('code' in result ? { errorCode: result.code } : {}),
    ...('detail' in result && result.detail !== undefined ? { errorDetail: result.detail } : {}),
    ...('delaySeconds' in result ? { delaySeconds: result.delaySeconds } : {}),
    ...('recorded' in result && !result.recorded ? { recorded: false } : {}),
    ...(result.outcome === 'dead_lettered' && receiveCount !== undefined
      ? { receiveCount, dlqAtReceive: maxReceiveCount(deps.config.queue.retrySchedule) }
      : {}),
  };
  const line = (level: 'info' | 'warn' | 'error', message: string, more: LogAttributes = {}) => {
    const all = { ...attributes, ...(level === 'info' ? {} : { messageId }), ...more };
    if (carryMetrics) logWithMetrics(deps.logger, deps.metrics, level, message, all);
    else deps.logger[level](message, all);
  };
  deps.logger.debug?.('event detail', { messageId, dedupKey: result.dedupKey });
  if (result.outcome === 'draining') {
    // Its metrics, if this record carries them, go out with the batch's publishStoredMetrics.
    deps.logger.debug?.('event draining', { ...attributes, messageId });
    return;
  }
  if ('markFailed' in result && result.markFailed) {
    // The effect ran and will not run again for this message; only the record is behind.
    deps.metrics.addMetric(PROCESS_METRICS.markFailed, 'Count', 1);
    line('error', 'event processed, but the processed mark failed: the effect ran', { effectRan: true });
    return;
  }
  if ('leaseLost' in result && result.leaseLost) {
    line('warn', 'event processed after its lease was taken over: the effect may have run twice');
    return;
  }
  if (result.outcome === 'not_started') line('warn', 'event handed back unstarted');
  else if (result.outcome === 'dead_lettered') line('warn', 'event dead-lettered');
  else if (result.outcome === 'retry') line('warn', 'event will be retried');
  else line('info', `event ${result.outcome.replace('_', ' ')}`);
}

export function createProcessHandler(deps: ProcessHandlerDeps): ProcessHandler {
  const log = (message: string, attributes?: Record<string, string | number | boolean | undefined>) =>
    deps.logger.info(message, attributes ?? {});
  return async (event, context, signal = NO_DEADLINE) => {
    // Hold the lease for as long as this invocation can still run, so a second worker cannot start the
    // same effect while the first is alive; a crashed worker's lease lapses after that.
    const startedMs = deps.clock.now();
    const remainingMs = context?.getRemainingTimeInMillis?.() ?? deps.defaultLeaseMs;
    const budget = invocationBudget({ startedMs, remainingMs, leaseMarginMs: deps.leaseMarginMs });
    const batch = new BatchState();
    const processDeps: ProcessDeps = {
      ...deps,
      leaseMs: budget.leaseMs,
      invocationStartedMs: startedMs,
      deadlineMs: budget.marksDeadlineMs,
      log,
      signal,
      onStarted: (messageId) => batch.started.add(messageId),
    };
    const recordHandler = async (record: SQSRecord) => {
      const queued = queueRecordFrom(record);
      // Copies of one delivery in one batch (verify sends one for a duplicate that races the first) take
      // turns: in parallel the second would find the first's live lease and wait it out on the queue.
      const key = deliveryKeyOf(queued);
      const result = await batch.inTurn(key, () => processRecord(processDeps, queued));
      batch.settle(record.messageId, !NOT_DONE.has(result.outcome));
      // Handed back already, and logged then, if the deadline struck while it waited.
      if (!(result.outcome === 'not_started' && batch.handedBack.has(record.messageId))) {
        recordResult(
          deps,
          record.messageId,
          result,
          batch.settled.size === event.Records.length,
          queued.receiveCount,
        );
      }
      if (NOT_DONE.has(result.outcome)) throw new RetryLater('code' in result ? result.code : result.outcome);
    };
    // A new processor per batch: it keeps per-batch state, and local mode may run batches concurrently.
    const processing = processPartialResponse(event, recordHandler, new BatchProcessor(EventType.SQS), {
      throwOnFullBatchFailure: false,
    });
    try {
      return await Promise.race([processing, aborted(signal).then(() => handBack(deps, event, batch))]);
    } catch (error) {
      // A bug outside any one record: only the records not yet settled fail, so nothing done runs again.
      deps.logger.error('batch failed', { outcome: 'error', errorName: (error as Error)?.name ?? 'unknown' });
      return batch.response(event);
    } finally {
      processing.catch(() => undefined);
      deps.metrics.publishStoredMetrics();
    }
  };
}

/** What the batch has done so far, for an answer given before Powertools has finished. */
class BatchState {
  /** Message ids whose result is in, and whether that result acknowledges the message. */
  readonly settled = new Map<string, boolean>();
  /** Message ids whose handler has been called. */
  readonly started = new Set<string>();
  readonly handedBack = new Set<string>();
  private readonly turns = new Map<string, Promise<unknown>>();

  /** Runs `run` after every earlier run under the same key has settled. */
  inTurn<T>(key: string | undefined, run: () => Promise<T>): Promise<T> {
    if (key === undefined) return run();
    const mine = (this.turns.get(key) ?? Promise.resolve()).catch(() => undefined).then(run);
    this.turns.set(key, mine);
    return mine;
  }

  settle(messageId: string, acknowledged: boolean): void {
    this.settled.set(messageId, acknowledged);
  }

  /** Every record not acknowledged is a batch item failure: SQS keeps it. */
  response(event: SQSEvent): SQSBatchResponse {
    return {
      batchItemFailures: event.Records.filter((r) => this.settled.get(r.messageId) !== true).map((r) => ({
        itemIdentifier: r.messageId,
      })),
    };
  }
}

/** The delivery a message is for, from its attributes (the body is parsed later, once it is its turn). */
function deliveryKeyOf(record: QueueRecord): string | undefined {
  const provider = record.attributes[MESSAGE_ATTRIBUTES.provider];
  const dedupKey = record.attributes[MESSAGE_ATTRIBUTES.dedupKey];
  return provider && dedupKey ? `${provider}\n${dedupKey}` : undefined;
}

function aborted(signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.resolve();
  return new Promise((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));
}

/**
 * The invocation is about to time out. Records whose handler never started are made visible again at once
 * and reported as failures: they come back on the next poll, not after the visibility timeout, and their
 * handler is not charged with a failure. Started ones are cut off by their own deadline (process-record.ts),
 * which has passed by now; any still unsettled are reported as failures and keep their visibility.
 */
async function handBack(
  deps: ProcessHandlerDeps,
  event: SQSEvent,
  batch: BatchState,
): Promise<SQSBatchResponse> {
  const unstarted = event.Records.filter(
    (r) => !batch.settled.has(r.messageId) && !batch.started.has(r.messageId),
  );
  // Bounded: the answer must come before the chain's own fallback (which fails every record, the
  // acknowledged ones too) and before Lambda's timeout, even if SQS does not answer.
  const handingBack = Promise.all(
    unstarted.map(async (record) => {
      batch.handedBack.add(record.messageId);
      await deps.messages.delay(record.receiptHandle, 0).catch(() => undefined);
      const queued = queueRecordFrom(record);
      recordResult(
        deps,
        record.messageId,
        {
          outcome: 'not_started',
          ageMs: Math.max(0, deps.clock.now() - queued.sentTimestampMs),
          provider: queued.attributes[MESSAGE_ATTRIBUTES.provider],
          eventType: queued.attributes[MESSAGE_ATTRIBUTES.eventType],
          dedupKey: queued.attributes[MESSAGE_ATTRIBUTES.dedupKey],
        },
        false,
      );
    }),
  );
  await Promise.race([handingBack, new Promise((resolve) => setTimeout(resolve, HAND_BACK_MS))]);
  return batch.response(event);
}
