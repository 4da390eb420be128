// One log line and the metrics for one delivery. Attributes are facts about the delivery only: never a
// secret, a signature header or the body.
import { VERIFY_METRICS } from '../../config/telemetry';
import type { DeliveryResult } from '../core/accept-delivery';
import { statusForReason } from '../core/reasons';
import type { LogAttributes, LogSink, MetricSink } from '../core/telemetry';

const OUTCOME_METRIC = {
  accepted: VERIFY_METRICS.accepted,
  duplicate: VERIFY_METRICS.duplicate,
  handshake: VERIFY_METRICS.handshake,
  conflict: VERIFY_METRICS.conflict,
  in_flight: VERIFY_METRICS.inFlight,
  rejected: VERIFY_METRICS.rejected,
  dependency_error: VERIFY_METRICS.dependencyError,
  timed_out: VERIFY_METRICS.timedOut,
} as const;

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
    deliveryId: result.deliveryId,
    eventType: result.eventType,
    bytes: result.bytes,
    durationMs: Math.round(extra.durationMs * 10) / 10,
    requestId: extra.requestId,
    sourceIp: extra.sourceIp,
  };
  metrics.addMetric(OUTCOME_METRIC[result.outcome], 'Count', 1);
  if (result.secretIndex !== undefined && result.secretIndex > 0) {
    metrics.addMetric(VERIFY_METRICS.previousSecretUsed, 'Count', 1);
    attributes.secretIndex = result.secretIndex;
  }
  switch (result.outcome) {
    case 'accepted':
      metrics.addMetric(VERIFY_METRICS.enqueueLatency, 'Milliseconds', result.enqueueMs);
      attributes.messageId = result.messageId;
      logger.info('delivery accepted', attributes);
      return;
    case 'duplicate':
      logger.info('delivery duplicate', attributes);
      return;
    case 'handshake':
      attributes.handshake = result.answer.kind;
      logger.info('handshake answered', attributes);
      return;
    case 'in_flight':
      logger.info('delivery in flight', attributes);
      return;
    case 'conflict':
      // Same signed id, different bytes (a sender bug or a forged body), or the same bytes named as
      // another event (a replay through an unsigned type header). Worth a look.
      attributes.conflict = result.conflict;
      logger.warn('delivery conflict', attributes);
      return;
    case 'dependency_error':
      logger.error('dependency failed', {
        ...attributes,
        reason: `${result.dependency}_unavailable`,
        operation: result.operation,
      });
      return;
    case 'timed_out':
      // A dependency slower than the function's timeout: the claim was given back, the provider retries.
      logger.error('delivery timed out', { ...attributes, reason: 'timeout', stage: result.stage });
      return;
    case 'rejected':
      attributes.reason = result.reason;
      metrics.addDimensionedMetric(
        VERIFY_METRICS.rejected,
        { name: 'reason', value: result.reason },
        'Count',
        1,
      );
      if (statusForReason(result.reason) === 401)
        metrics.addMetric(VERIFY_METRICS.signatureFailure, 'Count', 1);
      if (result.reason === 'no_secret') logger.error('delivery rejected', attributes);
      else logger.info('delivery rejected', attributes);
      return;
  }
}
