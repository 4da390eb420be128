// One log line and the metrics for one delivery. Attributes are facts about the delivery only: never a
// secret, a signature header or the body.
import { VERIFY_METRICS } from '../../config/telemetry';
import type { DeliveryResult } from '../core/accept-delivery';
import { dependencyReason, statusForReason } from '../core/reasons';
import { type LogAttributes, type LogSink, logWithMetrics, type MetricSink } from '../core/telemetry';

const OUTCOME_METRIC = {
  accepted: VERIFY_METRICS.accepted,
  duplicate: VERIFY_METRICS.duplicate,
  handshake: VERIFY_METRICS.handshake,
  conflict: VERIFY_METRICS.conflict,
  in_flight: VERIFY_METRICS.inFlight,
  rejected: VERIFY_METRICS.rejected,
  dependency_error: VERIFY_METRICS.dependencyError,
  // A dependency slower than the function's timeout: counted with the failing ones (the log line says
  // `timeout`), so the metric count, and the bill for custom metrics, stays as it was.
  timed_out: VERIFY_METRICS.dependencyError,
} as const;

/**
 * The one INFO line a delivery gets, with its metrics on the same line: what the runbook looks deliveries
 * up by (provider, dedup key, delivery id, event type, request id), what happened (outcome, status,
 * reason), and size and duration. Where it came from (source IP) is kept for refusals, where it matters;
 * the rest (message id, source IP of accepted deliveries, enqueue time) is a DEBUG line.
 */
export function recordDelivery(
  logger: LogSink,
  metrics: MetricSink,
  result: DeliveryResult,
  status: number,
  extra: { durationMs: number; requestId?: string; sourceIp?: string },
): void {
  const attributes: LogAttributes = {
    outcome: result.outcome,
    status,
    provider: result.provider,
    dedupKey: result.dedupKey,
    // Most schemes dedup on the delivery id itself: written once.
    deliveryId: result.deliveryId === result.dedupKey ? undefined : result.deliveryId,
    eventType: result.eventType,
    bytes: result.bytes,
    durationMs: Math.round(extra.durationMs * 10) / 10,
  };
  const line = (level: 'info' | 'warn' | 'error', message: string, more: LogAttributes = {}) =>
    logWithMetrics(logger, metrics, level, message, { ...attributes, ...more });
  metrics.addMetric(OUTCOME_METRIC[result.outcome], 'Count', 1);
  if (result.secretIndex !== undefined && result.secretIndex > 0) {
    metrics.addMetric(VERIFY_METRICS.previousSecretUsed, 'Count', 1);
    attributes.secretIndex = result.secretIndex;
  }
  // The line's requestId is Lambda's (the log context's); the front door's, as in its access log, is here.
  logger.debug?.('delivery detail', {
    dedupKey: result.dedupKey,
    frontDoorRequestId: extra.requestId,
    sourceIp: extra.sourceIp,
    ...(result.outcome === 'accepted' ? { messageId: result.messageId, enqueueMs: result.enqueueMs } : {}),
  });
  switch (result.outcome) {
    case 'accepted':
      metrics.addMetric(VERIFY_METRICS.enqueueLatency, 'Milliseconds', result.enqueueMs);
      line('info', 'delivery accepted');
      return;
    case 'duplicate':
      if (result.typeConflict)
        line('warn', 'delivery duplicate under another event type', { conflict: 'event_type' });
      else line('info', 'delivery duplicate');
      return;
    case 'handshake':
      line('info', 'handshake answered', { handshake: result.answer.kind });
      return;
    case 'in_flight':
      line('info', 'delivery in flight', { reason: 'in_flight' });
      return;
    case 'conflict':
      // Same signed id, different bytes (a sender bug or a forged body), or the same bytes named as
      // another event (a replay through an unsigned type header). Worth a look.
      line('warn', 'delivery conflict', {
        reason: 'conflict',
        sourceIp: extra.sourceIp,
        conflict: result.conflict,
      });
      return;
    case 'dependency_error':
      line('error', 'dependency failed', {
        reason: dependencyReason(result.dependency),
        operation: result.operation,
      });
      return;
    case 'timed_out':
      // A dependency slower than the function's timeout: the claim was given back, the provider retries.
      line('error', 'delivery timed out', { reason: 'timeout', stage: result.stage });
      return;
    case 'rejected':
      metrics.addDimensionedMetric(
        VERIFY_METRICS.rejected,
        { name: 'reason', value: result.reason },
        'Count',
        1,
      );
      if (statusForReason(result.reason) === 401)
        metrics.addMetric(VERIFY_METRICS.signatureFailure, 'Count', 1);
      line(result.reason === 'no_secret' ? 'error' : 'info', 'delivery rejected', {
        reason: result.reason,
        sourceIp: extra.sourceIp,
      });
      return;
  }
}
