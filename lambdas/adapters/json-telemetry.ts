// Structured JSON logs and CloudWatch Embedded Metric Format (EMF) lines on stdout, behind the handlers'
// LogSink/MetricSink. CloudWatch Logs indexes the JSON fields, and extracts the EMF lines as metrics
// without any API call from the Lambda.
//
// Why not Powertools Logger and Metrics: wired in with their middy middlewares (injectLambdaContext,
// logMetrics) in place of this adapter and middleware/log-context.ts, they add 32.8 KiB to the verify
// bundle, 1.14x -> 1.23x its SDK-only reference against a 1.15x target, and 1.04x-1.08x its import CPU,
// for the handful of features used here. Measured 2026-12-01 11:36 UTC, two runs of the cold-start
// section's Powertools row (bench/lib/powertools-variant.ts, Powertools 2.35.0 from a scratch install),
// load average 3.9-4.5 on the shared 2-vCPU machine; bench/RESULTS.md has the table. The output
// keeps their shape (level, message, timestamp, service, xray_trace_id; one EMF document per flush with
// the `service` dimension) and their environment variables, so log queries and alarms read the same. The
// EMF lines are the very text Powertools Metrics 2.x writes for the same calls, and keep the specification's
// limits (test/unit/lambdas/adapters/json-telemetry-emf.test.ts checks both).
import type { BatchMetricSink, LogAttributes, LogSink, MetricUnitName } from '../core/telemetry';

const LEVELS = { DEBUG: 10, INFO: 20, WARN: 30, ERROR: 40 } as const;
type Level = keyof typeof LEVELS;

/** EMF caps a document at 100 metrics, and a metric at 100 values; more go into further documents. */
const MAX_METRICS_PER_DOCUMENT = 100;
const MAX_VALUES_PER_METRIC = 100;

export interface JsonTelemetryOptions {
  service: string;
  namespace: string;
  /** @default POWERTOOLS_LOG_LEVEL, else INFO */
  logLevel?: string;
  /** @default a line to process.stdout */
  write?: (line: string) => void;
  /** @default Date.now */
  now?: () => number;
  /** @default process.env, read at each line (Lambda sets _X_AMZN_TRACE_ID per invocation) */
  env?: Record<string, string | undefined>;
}

interface StoredMetric {
  unit: MetricUnitName;
  values: number[];
}

function levelOf(name: string | undefined): number {
  const key = (name ?? 'INFO').toUpperCase();
  return key in LEVELS ? LEVELS[key as Level] : LEVELS.INFO;
}

export function jsonTelemetry(options: JsonTelemetryOptions): { logger: LogSink; metrics: BatchMetricSink } {
  const env = options.env ?? process.env;
  const write = options.write ?? ((line: string) => process.stdout.write(`${line}\n`));
  const now = options.now ?? Date.now;
  const threshold = levelOf(options.logLevel ?? env.POWERTOOLS_LOG_LEVEL);

  const logLine = (level: Level, message: string, attributes: LogAttributes): Record<string, unknown> => {
    // The fixed keys go last, so an attribute can never pass itself off as the level or the message.
    const line: Record<string, unknown> = { ...context, ...attributes };
    line.level = level;
    line.message = message;
    line.timestamp = new Date(now()).toISOString();
    line.service = options.service;
    // Lambda sets the variable on every invocation, traced or not: the id is only worth its 50 bytes when
    // the trace was sampled (X-Ray on, or a sampled caller).
    const trace = env._X_AMZN_TRACE_ID;
    if (trace?.includes('Sampled=1')) line.xray_trace_id = trace.match(/Root=([^;]+)/)?.[1];
    return line;
  };
  const log = (level: Level, message: string, attributes: LogAttributes) => {
    if (LEVELS[level] < threshold) return;
    write(JSON.stringify(logLine(level, message, attributes)));
  };

  /** Puts the EMF metadata and the metric values on `line`, which must carry the dimensions already. */
  const withMetrics = (
    line: Record<string, unknown>,
    metrics: [string, StoredMetric][],
    dimensions: string[],
  ) => {
    line._aws = {
      Timestamp: now(),
      CloudWatchMetrics: [
        {
          Namespace: options.namespace,
          Dimensions: [dimensions],
          Metrics: metrics.map(([name, { unit }]) => ({ Name: name, Unit: unit })),
        },
      ],
    };
    for (const [name, { values }] of metrics) line[name] = values.length === 1 ? values[0] : values;
    return line;
  };

  const document = (metrics: [string, StoredMetric][], dimensions: Record<string, string>) => {
    // `_aws` first, as Powertools writes it: a placeholder keeps the key order.
    const line = withMetrics({ _aws: undefined, ...dimensions }, metrics, Object.keys(dimensions));
    write(JSON.stringify(line));
  };

  const emf = (metrics: Map<string, StoredMetric>, dimensions: Record<string, string>) => {
    const entries = [...metrics];
    // One round per 100 values: a metric with more values goes on in the next round's documents.
    for (let offset = 0; entries.some(([, m]) => m.values.length > offset); offset += MAX_VALUES_PER_METRIC) {
      const round = entries
        .filter(([, metric]) => metric.values.length > offset)
        .map(([name, { unit, values }]): [string, StoredMetric] => [
          name,
          { unit, values: values.slice(offset, offset + MAX_VALUES_PER_METRIC) },
        ]);
      for (let start = 0; start < round.length; start += MAX_METRICS_PER_DOCUMENT) {
        document(round.slice(start, start + MAX_METRICS_PER_DOCUMENT), dimensions);
      }
    }
  };

  let context: LogAttributes = {};
  let stored = new Map<string, StoredMetric>();
  let base: Record<string, string> = { service: options.service };
  /** The batch's dimensions besides `service` (setDimensions). */
  let extra: Record<string, string> = {};

  return {
    logger: {
      debug: (message, attributes) => log('DEBUG', message, attributes),
      info: (message, attributes) => log('INFO', message, attributes),
      warn: (message, attributes) => log('WARN', message, attributes),
      error: (message, attributes) => log('ERROR', message, attributes),
      setContext: (keys) => {
        context = keys;
      },
    },
    metrics: {
      addMetric: (name, unit, value) => {
        // JSON has no NaN or Infinity (they print as null), and EMF takes numbers only: dropped.
        if (!Number.isFinite(value)) return;
        const metric = stored.get(name) ?? { unit, values: [] };
        metric.values.push(value);
        stored.set(name, metric);
      },
      addDimensionedMetric: (name, dimension, unit, value) => {
        if (!Number.isFinite(value)) return;
        document([[name, { unit, values: [value] }]], { ...base, [dimension.name]: dimension.value });
      },
      setDimensions: (dimensions) => {
        extra = { ...dimensions };
        base = { service: options.service, ...extra };
      },
      publishStoredMetrics: () => {
        if (stored.size === 0) return;
        const flushing = stored;
        stored = new Map();
        emf(flushing, base);
      },
      publishWithLine: (level, message, attributes) => {
        const upper = level.toUpperCase() as Level;
        const entries = [...stored];
        const fits =
          entries.length > 0 &&
          entries.length <= MAX_METRICS_PER_DOCUMENT &&
          entries.every(([, m]) => m.values.length <= MAX_VALUES_PER_METRIC);
        if (!fits || LEVELS[upper] < threshold) {
          // Nothing to carry, too much for one document, or the line is filtered: the metrics still go.
          log(upper, message, attributes);
          const flushing = stored;
          stored = new Map();
          if (flushing.size > 0) emf(flushing, base);
          return;
        }
        stored = new Map();
        // `service` is a field of every line already, and the batch's dimensions become fields of it.
        const line = logLine(upper, message, { ...attributes, ...extra });
        write(JSON.stringify(withMetrics(line, entries, Object.keys(base))));
      },
    },
  };
}
