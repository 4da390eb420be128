// The metrics reach CloudWatch at every logLevel the construct accepts: each EMF line the telemetry writes
// passes Lambda's own application log-level filter as the construct sets it for that logLevel
// (lambdaApplicationLogLevel), judged by a model of Lambda's documented rule (passesLambdaLogFilter).
import { describe, expect, it } from 'vitest';
import { jsonTelemetry } from '../../../../lambdas/adapters/json-telemetry';
import {
  APPLICATION_LOG_LEVELS,
  lambdaApplicationLogLevel,
  passesLambdaLogFilter,
} from '../../../../lib/lambda-environment';

/** Every way the telemetry writes metrics: stored and flushed, dimensioned, and carried on a line. */
function everyMetricLine(logLevel: string): string[] {
  const lines: string[] = [];
  const { metrics } = jsonTelemetry({
    service: 'svc',
    namespace: 'NS',
    logLevel,
    env: {},
    now: () => 0,
    write: (line) => lines.push(line),
  });
  metrics.setDimensions({ destination: 'crm' });
  metrics.addMetric('SignatureFailure', 'Count', 1);
  metrics.publishStoredMetrics();
  metrics.addDimensionedMetric('ForwardDeadLettered', { name: 'destination', value: 'crm' }, 'Count', 1);
  for (const level of ['info', 'warn', 'error'] as const) {
    metrics.addMetric('EventDeadLettered', 'Count', 1);
    metrics.publishWithLine?.(level, 'given up', { outcome: 'dead_lettered' });
  }
  return lines.filter((line) => '_aws' in JSON.parse(line));
}

describe('metrics under Lambda log-level filtering', () => {
  it.each(APPLICATION_LOG_LEVELS)('at logLevel %s every metric line passes Lambda’s filter', (logLevel) => {
    const lines = everyMetricLine(logLevel);
    // Five flushes: the stored one, the dimensioned one and one per line level.
    expect(lines).toHaveLength(5);
    const filter = lambdaApplicationLogLevel(logLevel);
    expect(lines.filter((line) => !passesLambdaLogFilter(line, filter))).toEqual([]);
  });

  it('keeps the configured level in our own logger: at WARN an INFO line is not written', () => {
    const lines: string[] = [];
    const { logger } = jsonTelemetry({
      service: 'svc',
      namespace: 'NS',
      logLevel: 'WARN',
      write: (l) => lines.push(l),
    });
    logger.info('accepted', {});
    logger.warn('retried', {});
    expect(lines.map((line) => JSON.parse(line).level)).toEqual(['WARN']);
  });
});

describe('passesLambdaLogFilter (the documented rule)', () => {
  it('reads a JSON line’s level, case-insensitively', () => {
    expect(passesLambdaLogFilter('{"level":"warn","message":"x"}', 'WARN')).toBe(true);
    expect(passesLambdaLogFilter('{"level":"INFO","message":"x"}', 'WARN')).toBe(false);
    expect(passesLambdaLogFilter('{"level":"DEBUG"}', 'INFO')).toBe(false);
  });

  it('counts a missing or invalid level, and a line that is not JSON, as INFO', () => {
    for (const line of ['{"_aws":{}}', '{"level":"LOUD"}', '{"level":3}', 'plain text', '[1]']) {
      expect(passesLambdaLogFilter(line, 'INFO')).toBe(true);
      expect(passesLambdaLogFilter(line, 'WARN')).toBe(false);
    }
  });
});
