// The logging and metrics surface the handlers need. Powertools' Logger and Metrics satisfy it on AWS;
// local mode passes a readable console logger and a no-op metrics sink.

export type LogAttributes = Record<string, string | number | boolean | undefined>;

export interface LogSink {
  /** What the runbook does not need: off unless the log level is DEBUG. */
  debug?(message: string, attributes: LogAttributes): void;
  info(message: string, attributes: LogAttributes): void;
  warn(message: string, attributes: LogAttributes): void;
  error(message: string, attributes: LogAttributes): void;
  /** Keys put on every line until the next call (the middy layer sets the request id per invocation). */
  setContext?(keys: LogAttributes): void;
}

export type MetricUnitName = 'Count' | 'Milliseconds' | 'Seconds' | 'Bytes';

export interface MetricSink {
  addMetric(name: string, unit: MetricUnitName, value: number): unknown;
  /** A metric flushed on its own, with its own dimension (for per-reason counts). */
  addDimensionedMetric(
    name: string,
    dimension: { name: string; value: string },
    unit: MetricUnitName,
    value: number,
  ): void;
  publishStoredMetrics(): void;
  /**
   * Dimensions besides `service` for the metrics stored from now on, until set again: a batch's (the
   * forwarder's `destination`). Lines that carry the metrics carry these fields too.
   */
  setDimensions?(dimensions: Record<string, string>): void;
  /**
   * Writes `message` as a log line that carries the stored metrics too (an EMF document is a JSON log
   * line with an `_aws` key, so one line does both), then clears them. A sink that cannot leaves it to
   * the caller: see logWithMetrics.
   */
  publishWithLine?(level: 'info' | 'warn' | 'error', message: string, attributes: LogAttributes): void;
}

/**
 * One line for a delivery: the log line and the metrics stored for it, written as one line where the
 * sink can (a third of the bytes of a line and a separate EMF document), else as the two.
 */
export function logWithMetrics(
  logger: LogSink,
  metrics: MetricSink,
  level: 'info' | 'warn' | 'error',
  message: string,
  attributes: LogAttributes,
): void {
  if (metrics.publishWithLine) {
    metrics.publishWithLine(level, message, attributes);
    return;
  }
  logger[level](message, attributes);
  metrics.publishStoredMetrics();
}

/** A sink that can put a batch's dimensions on its metrics (the forwarder's). */
export type BatchMetricSink = MetricSink & Required<Pick<MetricSink, 'setDimensions'>>;

export const noMetrics: BatchMetricSink = {
  addMetric: () => undefined,
  addDimensionedMetric: () => undefined,
  publishStoredMetrics: () => undefined,
  setDimensions: () => undefined,
};
