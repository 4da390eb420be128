import { describe, expect, it } from 'vitest';
import { jsonTelemetry } from '../../../../lambdas/adapters/json-telemetry';

const NOW = Date.UTC(2026, 10, 30, 12, 0, 0);

function capture(options: { logLevel?: string; env?: Record<string, string> } = {}) {
  const lines: Record<string, unknown>[] = [];
  const telemetry = jsonTelemetry({
    service: 'svc',
    namespace: 'NS',
    now: () => NOW,
    env: options.env ?? {},
    logLevel: options.logLevel,
    write: (line) => lines.push(JSON.parse(line)),
  });
  return { ...telemetry, lines };
}

describe('JSON logs', () => {
  it('writes one JSON object per line with level, message, timestamp, service and the attributes', () => {
    const { logger, lines } = capture({ env: { _X_AMZN_TRACE_ID: 'Root=1-abc-def;Parent=1;Sampled=1' } });
    logger.info('delivery accepted', { provider: 'github', bytes: 12, outcome: 'accepted', gone: undefined });
    expect(lines).toEqual([
      {
        level: 'INFO',
        message: 'delivery accepted',
        timestamp: '2026-11-30T12:00:00.000Z',
        service: 'svc',
        xray_trace_id: '1-abc-def',
        provider: 'github',
        bytes: 12,
        outcome: 'accepted',
      },
    ]);
  });

  it('leaves the trace id out when the invocation was not sampled (Lambda sets it on every invocation)', () => {
    const { logger, lines } = capture({ env: { _X_AMZN_TRACE_ID: 'Root=1-abc-def;Parent=1;Sampled=0' } });
    logger.info('delivery accepted', {});
    expect(lines[0]).not.toHaveProperty('xray_trace_id');
  });

  it('never lets an attribute overwrite the level, message or service', () => {
    const { logger, lines } = capture();
    logger.warn('real', { level: 'DEBUG', message: 'forged', service: 'other' });
    expect(lines[0]).toMatchObject({ level: 'WARN', message: 'real', service: 'svc' });
  });

  it('drops lines below the configured level (POWERTOOLS_LOG_LEVEL)', () => {
    const { logger, lines } = capture({ env: { POWERTOOLS_LOG_LEVEL: 'warn' } });
    logger.info('hidden', {});
    logger.warn('shown', {});
    logger.error('shown too', {});
    expect(lines.map((l) => l.message)).toEqual(['shown', 'shown too']);
  });
});

describe('EMF metrics', () => {
  it('flushes stored metrics as one EMF document with the service dimension, then starts empty', () => {
    const { metrics, lines } = capture();
    metrics.addMetric('DeliveryAccepted', 'Count', 1);
    metrics.addMetric('EnqueueLatency', 'Milliseconds', 12.5);
    metrics.addMetric('EnqueueLatency', 'Milliseconds', 7);
    metrics.publishStoredMetrics();
    metrics.publishStoredMetrics();
    expect(lines).toEqual([
      {
        _aws: {
          Timestamp: NOW,
          CloudWatchMetrics: [
            {
              Namespace: 'NS',
              Dimensions: [['service']],
              Metrics: [
                { Name: 'DeliveryAccepted', Unit: 'Count' },
                { Name: 'EnqueueLatency', Unit: 'Milliseconds' },
              ],
            },
          ],
        },
        service: 'svc',
        DeliveryAccepted: 1,
        EnqueueLatency: [12.5, 7],
      },
    ]);
  });

  it('writes a dimensioned metric at once, in its own document with both dimensions', () => {
    const { metrics, lines } = capture();
    metrics.addDimensionedMetric('DeliveryRejected', { name: 'reason', value: 'bad_signature' }, 'Count', 1);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({
      _aws: { CloudWatchMetrics: [{ Dimensions: [['service', 'reason']] }] },
      service: 'svc',
      reason: 'bad_signature',
      DeliveryRejected: 1,
    });
  });

  it('splits more than 100 metrics into documents of at most 100, as EMF requires', () => {
    const { metrics, lines } = capture();
    for (let i = 0; i < 150; i += 1) metrics.addMetric(`M${i}`, 'Count', i);
    metrics.publishStoredMetrics();
    const counts = lines.map(
      (line) =>
        (line._aws as { CloudWatchMetrics: { Metrics: unknown[] }[] }).CloudWatchMetrics[0]?.Metrics.length,
    );
    expect(counts).toEqual([100, 50]);
    expect(lines[1]).toMatchObject({ M100: 100, M149: 149 });
  });
});
