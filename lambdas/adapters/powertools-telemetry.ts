// Powertools Logger and Metrics behind the handlers' LogSink/MetricSink. Metrics go out as EMF lines in
// the function's log stream; CloudWatch extracts them without any API call from the Lambda.
import { Logger } from '@aws-lambda-powertools/logger';
import { Metrics } from '@aws-lambda-powertools/metrics';
import { METRICS_NAMESPACE } from '../../config/telemetry';
import type { LogSink, MetricSink } from '../core/telemetry';

export function powertoolsTelemetry(serviceName: string): { logger: LogSink; metrics: MetricSink } {
  const logger = new Logger({ serviceName });
  const metrics = new Metrics({ namespace: METRICS_NAMESPACE, serviceName });
  return {
    logger: {
      info: (message, attributes) => logger.info(message, attributes),
      warn: (message, attributes) => logger.warn(message, attributes),
      error: (message, attributes) => logger.error(message, attributes),
    },
    metrics: {
      addMetric: (name, unit, value) => metrics.addMetric(name, unit, value),
      addDimensionedMetric: (name, dimension, unit, value) =>
        metrics.singleMetric().addDimension(dimension.name, dimension.value).addMetric(name, unit, value),
      publishStoredMetrics: () => metrics.publishStoredMetrics(),
    },
  };
}
