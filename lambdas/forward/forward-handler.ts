// The forwarder logic: one destination's queue batch in, the failed item ids out (createForwardHandler).
// Each record is one attempt (forward-record.ts); the batch then adds its counts to the destination's hour
// and, if it found the destination disabled, pauses the destination's intake.
import { BatchProcessor, EventType, processPartialResponse } from '@aws-lambda-powertools/batch';
import type { Context, SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import { FORWARD_DIMENSION, FORWARD_METRICS } from '../../config/telemetry';
import { type ForwardDeps, type ForwardResult, forwardRecord } from '../core/destinations/forward-record';
import type { DestinationIntake } from '../core/destinations/ports';
import { MESSAGE_ATTRIBUTES } from '../core/envelope';
import { type BatchMetricSink, type LogAttributes, type LogSink, logWithMetrics } from '../core/telemetry';
import { RetryLater } from '../middleware/sqs-batch';
import { queueRecordFrom } from '../process/process-handler';

export interface ForwardHandlerDeps extends Omit<ForwardDeps, 'invocationStartedMs' | 'signal'> {
  intake: DestinationIntake;
  logger: LogSink;
  /** Each batch's metrics carry its destination (setDimensions). */
  metrics: BatchMetricSink;
}

export type ForwardHandler = (
  event: SQSEvent,
  context?: Partial<Context>,
  /** Aborted when the invocation is about to time out (the middy layer's early timeout). */
  signal?: AbortSignal,
) => Promise<SQSBatchResponse>;

/** Outcomes that leave the message on its queue. */
const NOT_DONE: ReadonlySet<ForwardResult['outcome']> = new Set([
  'retry',
  'dead_lettered',
  'draining',
  'waiting',
  'held',
  'not_started',
]);

/** Whether SQS may delete the message: done, or (a delivery sent anew) stood in for by another. */
function acknowledged(result: ForwardResult): boolean {
  return (
    !NOT_DONE.has(result.outcome) ||
    ((result.outcome === 'waiting' || result.outcome === 'held') && result.requeued === true)
  );
}

/** A send that was made and failed, or the 410 that disabled the destination: what the failure rate counts. */
function failedAttempt(result: ForwardResult): boolean {
  return (
    ('attempted' in result && result.attempted === true) ||
    (result.outcome === 'waiting' && result.disabledNow === true)
  );
}

/**
 * The result's metrics, stored under the batch's `destination` dimension (a batch comes from one
 * destination's queue): the batch's last line carries them all, one EMF document for the batch.
 */
function metricsFor(deps: ForwardHandlerDeps, result: ForwardResult): void {
  if (!result.destination) return;
  const count = (name: string) => deps.metrics.addMetric(name, 'Count', 1);
  if (result.outcome === 'delivered') {
    count(FORWARD_METRICS.delivered);
    // The disabled alarm keeps its state through missing data: a delivery says the destination is back.
    deps.metrics.addMetric(FORWARD_METRICS.disabled, 'Count', 0);
    deps.metrics.addMetric(FORWARD_METRICS.latency, 'Milliseconds', result.latencyMs);
  }
  if (failedAttempt(result)) {
    count(FORWARD_METRICS.attemptFailed);
  }
  if (result.outcome === 'dead_lettered') count(FORWARD_METRICS.deadLettered);
  if (result.outcome === 'waiting' || (result.outcome === 'dead_lettered' && result.code === 'http_410')) {
    count(FORWARD_METRICS.disabled);
  }
}

function logResult(
  deps: ForwardHandlerDeps,
  messageId: string,
  result: ForwardResult,
  carryMetrics: boolean,
): void {
  const line = (level: 'info' | 'warn', message: string, attributes: LogAttributes) => {
    if (carryMetrics) logWithMetrics(deps.logger, deps.metrics, level, message, attributes);
    else deps.logger[level](message, attributes);
  };
  // Every line names its message: SQS may hand one message out twice, and its second copy's line (a skip,
  // a hold) must be told from another message for the same delivery (a second fan-out).
  const attributes = {
    messageId,
    outcome: result.outcome,
    destination: result.destination,
    provider: result.provider,
    eventType: result.eventType,
    dedupKey: result.dedupKey,
    attempt: result.attempt,
    status: result.status,
    ...('code' in result ? { errorCode: result.code } : {}),
    ...('delaySeconds' in result ? { delaySeconds: result.delaySeconds } : {}),
    ...(result.recorded === false ? { recorded: false } : {}),
  };
  switch (result.outcome) {
    case 'delivered':
      line('info', 'forward delivered', { ...attributes, latencyMs: result.latencyMs });
      return;
    case 'duplicate_skipped':
      line('info', 'forward skipped: delivered already', attributes);
      return;
    case 'retry':
      line('warn', 'forward will be retried', attributes);
      return;
    case 'waiting':
      line(
        'warn',
        result.disabledNow
          ? 'destination disabled: it answered 410 Gone'
          : 'forward waiting: destination disabled',
        attributes,
      );
      return;
    case 'held':
      line('info', 'forward copy held until its retry is due', attributes);
      return;
    case 'not_started':
      line('warn', 'forward handed back unstarted', attributes);
      return;
    case 'draining':
      // A copy given up already, handed on until SQS's redrive policy moves it: its dead_lettered line
      // said so once. Its metrics, if this record carries them, go out with the batch's.
      deps.logger.debug?.('forward draining', attributes);
      return;
    default:
      line('warn', `forward ${result.outcome.replace('_', ' ')}`, attributes);
  }
}

export function createForwardHandler(deps: ForwardHandlerDeps): ForwardHandler {
  return async (event, _context, signal) => {
    const results: ForwardResult[] = [];
    const forwardDeps: ForwardDeps = { ...deps, invocationStartedMs: deps.clock.now(), signal };
    const destination = event.Records[0]?.messageAttributes?.[MESSAGE_ATTRIBUTES.destination]?.stringValue;
    deps.metrics.setDimensions({ [FORWARD_DIMENSION]: destination ?? 'unknown' });
    // Acknowledged records: if something outside them throws, only the others fail.
    const settled = new Set<string>();
    // Set once the batch is answered: a send still running then (the early timeout answered for it)
    // finishes during a later invocation, maybe another destination's batch, whose metrics it must not join.
    let answered = false;
    const recordHandler = async (record: SQSRecord) => {
      const result = await forwardRecord(forwardDeps, queueRecordFrom(record));
      if (answered) {
        logResult(deps, record.messageId, result, false);
        return;
      }
      results.push(result);
      metricsFor(deps, result);
      // The batch's last result carries every metric stored so far on its line.
      logResult(deps, record.messageId, result, results.length === event.Records.length);
      if (!acknowledged(result)) throw new RetryLater('code' in result ? result.code : result.outcome);
      settled.add(record.messageId);
    };
    // A new processor per batch: it keeps per-batch state, and local mode runs batches concurrently.
    const processing = processPartialResponse(event, recordHandler, new BatchProcessor(EventType.SQS), {
      throwOnFullBatchFailure: false,
    });
    try {
      return await processing;
    } catch (error) {
      deps.logger.error('batch failed', { outcome: 'error', errorName: (error as Error)?.name ?? 'unknown' });
      return {
        batchItemFailures: event.Records.filter((r) => !settled.has(r.messageId)).map((r) => ({
          itemIdentifier: r.messageId,
        })),
      };
    } finally {
      await afterBatch(deps, results);
      deps.metrics.publishStoredMetrics();
      answered = true;
    }
  };
}

/** The batch's counts, one write per destination; and the intake paused where a destination is disabled. */
async function afterBatch(deps: ForwardHandlerDeps, results: readonly ForwardResult[]): Promise<void> {
  const counts = new Map<string, { delivered: number; failed: number }>();
  const paused = new Set<string>();
  for (const result of results) {
    if (!result.destination) continue;
    const entry = counts.get(result.destination) ?? { delivered: 0, failed: 0 };
    if (result.outcome === 'delivered') entry.delivered++;
    else if (failedAttempt(result)) entry.failed++;
    counts.set(result.destination, entry);
    if (result.outcome === 'waiting') paused.add(result.destination);
  }
  const nowMs = deps.clock.now();
  await Promise.all([
    ...[...counts]
      .filter(([, c]) => c.delivered + c.failed > 0)
      .map(([id, c]) =>
        deps.states
          .count(id, c, nowMs)
          .catch(() => deps.logger.warn('destination counts not written', { destination: id })),
      ),
    ...[...paused].map((id) =>
      pauseIntake(deps, id).catch((error: unknown) =>
        deps.logger.error('destination intake not paused: its deliveries are rechecked on a schedule', {
          destination: id,
          errorName: (error as Error)?.name ?? 'unknown',
        }),
      ),
    ),
  ]);
}

/**
 * Pauses a disabled destination's intake, unless an operator has enabled it since the batch read its
 * state. `destinations enable` writes the state, then resumes the intake: so a pause that lands after
 * that resume sees the state enabled when it reads it again, and resumes the intake itself.
 */
async function pauseIntake(deps: ForwardHandlerDeps, id: string): Promise<void> {
  if ((await deps.states.status(id, { fresh: true })).enabled) return;
  await deps.intake.pause(id);
  if ((await deps.states.status(id, { fresh: true })).enabled) await deps.intake.resume(id);
}
