// The logging and metrics surface the handlers need. Powertools' Logger and Metrics satisfy it on AWS;
// local mode passes a readable console logger and a no-op metrics sink.

export type LogAttributes = Record<string, string | number | boolean | undefined>;

export interface LogSink {
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
}

export const noMetrics: MetricSink = {
  addMetric: () => undefined,
  addDimensionedMetric: () => undefined,
  publishStoredMetrics: () => undefined,
};
