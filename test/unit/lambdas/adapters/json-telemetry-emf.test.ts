// The hand-written EMF adapter writes what Powertools Metrics writes for the same calls, and what it writes
// is valid CloudWatch Embedded Metric Format: the specification's rules, checked line by line.
// https://docs.aws.amazon.com/AmazonCloudWatch/latest/monitoring/CloudWatch_Embedded_Metric_Format_Specification.html
import { Metrics } from '@aws-lambda-powertools/metrics';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { PROCESS_METRICS, VERIFY_METRICS } from '../../../../config/telemetry';
import { jsonTelemetry } from '../../../../lambdas/adapters/json-telemetry';
import type { MetricSink } from '../../../../lambdas/core/telemetry';

const NOW = Date.UTC(2026, 10, 30, 12, 0, 0);
const NAMESPACE = 'WebhookInbox';
const SERVICE = 'webhook-inbox-verify';

/** CloudWatch's units, as the specification's schema lists them. */
const UNITS = new Set([
  ...['Seconds', 'Microseconds', 'Milliseconds', 'Percent', 'Count', 'Count/Second', 'None'],
  ...['Bytes', 'Kilobytes', 'Megabytes', 'Gigabytes', 'Terabytes', 'Bits', 'Kilobits', 'Megabits'],
  ...['Gigabits', 'Terabits', 'Bytes/Second', 'Kilobytes/Second', 'Megabytes/Second', 'Gigabytes/Second'],
  ...['Terabytes/Second', 'Bits/Second', 'Kilobits/Second', 'Megabits/Second', 'Gigabits/Second'],
  'Terabits/Second',
]);
const MAX_METRICS = 100;
const MAX_VALUES = 100;
const MAX_DIMENSIONS = 30;
const MAX_NAME_LENGTH = 255;
const MAX_EVENT_BYTES = 256 * 1024;
const CLOUDWATCH_PAST_MS = 14 * 86_400_000;
const CLOUDWATCH_FUTURE_MS = 2 * 3_600_000;

/** What went to process.stdout while `run` ran, one entry per line (stderr, Powertools' warnings, dropped). */
function stdoutLines(run: () => void): string[] {
  const chunks: string[] = [];
  const stdout = vi.spyOn(process.stdout, 'write').mockImplementation((chunk) => {
    chunks.push(String(chunk));
    return true;
  });
  const stderr = vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
  try {
    run();
  } finally {
    stdout.mockRestore();
    stderr.mockRestore();
  }
  return chunks.join('').split('\n').filter(Boolean);
}

const ours = (): MetricSink => jsonTelemetry({ service: SERVICE, namespace: NAMESPACE, env: {} }).metrics;

/** Powertools Metrics behind the same surface: a dimensioned metric is its documented single metric. */
function powertools(): MetricSink {
  const metrics = new Metrics({ namespace: NAMESPACE, serviceName: SERVICE });
  return {
    addMetric: (name, unit, value) => metrics.addMetric(name, unit, value),
    addDimensionedMetric: (name, dimension, unit, value) => {
      const single = metrics.singleMetric();
      single.addDimension(dimension.name, dimension.value);
      single.addMetric(name, unit, value);
    },
    publishStoredMetrics: () => metrics.publishStoredMetrics(),
  };
}

type Scenario = [string, (sink: MetricSink) => void];

const SCENARIOS: Scenario[] = [
  [
    'stored metrics in every unit the handlers use, one of them with several values',
    (sink) => {
      sink.addMetric(VERIFY_METRICS.accepted, 'Count', 1);
      sink.addMetric(VERIFY_METRICS.enqueueLatency, 'Milliseconds', 12.5);
      sink.addMetric(VERIFY_METRICS.enqueueLatency, 'Milliseconds', 7);
      sink.addMetric('Wait', 'Seconds', 2);
      sink.addMetric('Body', 'Bytes', 2048);
      sink.publishStoredMetrics();
    },
  ],
  [
    'a dimensioned metric, written at once, next to stored ones',
    (sink) => {
      sink.addMetric(VERIFY_METRICS.signatureFailure, 'Count', 1);
      sink.addDimensionedMetric(
        VERIFY_METRICS.rejected,
        { name: 'reason', value: 'bad_signature' },
        'Count',
        1,
      );
      sink.publishStoredMetrics();
    },
  ],
  [
    '150 metrics in one flush',
    (sink) => {
      for (let i = 0; i < 150; i += 1) sink.addMetric(`M${i}`, 'Count', i);
      sink.publishStoredMetrics();
    },
  ],
  [
    '250 values of one metric in one flush',
    (sink) => {
      for (let i = 0; i < 250; i += 1) sink.addMetric(PROCESS_METRICS.messageAge, 'Milliseconds', i);
      sink.publishStoredMetrics();
    },
  ],
  [
    'a flush with nothing stored',
    (sink) => {
      sink.addMetric(PROCESS_METRICS.processed, 'Count', 1);
      sink.publishStoredMetrics();
      sink.publishStoredMetrics();
    },
  ],
];

/** The specification's rules that a line breaks; none for a valid EMF document. */
function emfViolations(line: string, now: number): string[] {
  const problems: string[] = [];
  const fail = (problem: string) => problems.push(problem);
  if (Buffer.byteLength(line) > MAX_EVENT_BYTES) fail('larger than a log event');
  const root = JSON.parse(line) as Record<string, unknown>;
  const isName = (value: unknown) =>
    typeof value === 'string' && value.length >= 1 && value.length <= MAX_NAME_LENGTH;
  const isObject = (value: unknown): value is Record<string, unknown> =>
    typeof value === 'object' && value !== null && !Array.isArray(value);
  const onlyKeys = (value: Record<string, unknown>, allowed: string[], what: string) => {
    for (const key of Object.keys(value)) if (!allowed.includes(key)) fail(`${what} has a member ${key}`);
  };
  const metadata = root._aws;
  if (!isObject(metadata)) return ['no _aws object'];
  onlyKeys(metadata, ['Timestamp', 'CloudWatchMetrics'], '_aws');
  const timestamp = metadata.Timestamp;
  if (!Number.isInteger(timestamp)) fail('Timestamp is not epoch milliseconds as an integer');
  else if (
    (timestamp as number) < now - CLOUDWATCH_PAST_MS ||
    (timestamp as number) > now + CLOUDWATCH_FUTURE_MS
  )
    fail('Timestamp outside what CloudWatch accepts');
  const directives = metadata.CloudWatchMetrics;
  if (!Array.isArray(directives) || directives.length === 0) return [...problems, 'no CloudWatchMetrics'];
  const dimensionNames = new Set<string>();
  const metricNames = new Set<string>();
  for (const directive of directives as unknown[]) {
    if (!isObject(directive)) {
      fail('a MetricDirective is not an object');
      continue;
    }
    onlyKeys(directive, ['Namespace', 'Dimensions', 'Metrics'], 'a MetricDirective');
    if (!isName(directive.Namespace)) fail('Namespace is not a 1-255 character string');
    const sets = directive.Dimensions;
    if (!Array.isArray(sets) || sets.length === 0)
      fail('Dimensions is not a non-empty array of DimensionSets');
    for (const set of Array.isArray(sets) ? sets : []) {
      if (!Array.isArray(set) || set.length > MAX_DIMENSIONS)
        fail(`a DimensionSet over ${MAX_DIMENSIONS} keys`);
      for (const key of Array.isArray(set) ? set : []) {
        if (!isName(key)) fail('a dimension key is not a 1-255 character string');
        else if (typeof root[key] !== 'string' || root[key] === '')
          fail(`dimension ${key} has no string value`);
        else dimensionNames.add(key);
      }
    }
    const definitions = directive.Metrics;
    if (!Array.isArray(definitions) || definitions.length === 0 || definitions.length > MAX_METRICS)
      fail(`Metrics is not an array of 1 to ${MAX_METRICS} MetricDefinitions`);
    for (const definition of Array.isArray(definitions) ? definitions : []) {
      if (!isObject(definition)) {
        fail('a MetricDefinition is not an object');
        continue;
      }
      onlyKeys(definition, ['Name', 'Unit', 'StorageResolution'], 'a MetricDefinition');
      const { Name: name, Unit: unit, StorageResolution: resolution } = definition;
      if (!isName(name)) fail('a metric Name is not a 1-255 character string');
      if (unit !== undefined && !UNITS.has(unit as string)) fail(`metric ${name} has unit ${String(unit)}`);
      if (resolution !== undefined && resolution !== 1 && resolution !== 60)
        fail(`metric ${name} resolution`);
      if (metricNames.has(name as string)) fail(`metric ${name} is defined twice`);
      metricNames.add(name as string);
      const value = root[name as string];
      const values = Array.isArray(value) ? value : [value];
      if (values.length === 0 || values.length > MAX_VALUES)
        fail(`metric ${name} has ${values.length} values`);
      if (!values.every((v) => typeof v === 'number' && Number.isFinite(v)))
        fail(`metric ${name} is not numeric`);
    }
  }
  for (const name of metricNames)
    if (dimensionNames.has(name)) fail(`${name} is both a dimension and a metric`);
  return problems;
}

beforeEach(() => {
  vi.useFakeTimers({ toFake: ['Date'] });
  vi.setSystemTime(NOW);
  // Powertools writes nothing in dev mode, and keeps its store per invocation under Lambda's concurrency.
  vi.stubEnv('POWERTOOLS_DEV', undefined);
  vi.stubEnv('POWERTOOLS_METRICS_DISABLED', 'false');
  vi.stubEnv('AWS_LAMBDA_MAX_CONCURRENCY', undefined);
});

afterEach(() => {
  vi.useRealTimers();
  vi.unstubAllEnvs();
});

describe('EMF lines, against Powertools Metrics for the same calls', () => {
  it.each(SCENARIOS)('%s: the same documents, field by field and in the same order', (_, run) => {
    const expected = stdoutLines(() => run(powertools()));
    const actual = stdoutLines(() => run(ours()));
    expect(expected.length).toBeGreaterThan(0);
    expect(actual.map((line) => JSON.parse(line))).toEqual(expected.map((line) => JSON.parse(line)));
    // The keys in the same order too: what a log query or a reader sees is the same text.
    expect(actual).toEqual(expected);
  });
});

describe('EMF lines, against the specification', () => {
  const SPEC_SCENARIOS: Scenario[] = [
    ...SCENARIOS,
    [
      'every metric the Lambdas emit, by its own name, with the rejection reason dimension',
      (sink) => {
        for (const name of [...Object.values(VERIFY_METRICS), ...Object.values(PROCESS_METRICS)])
          sink.addMetric(name, 'Count', 1);
        sink.addDimensionedMetric(
          VERIFY_METRICS.rejected,
          { name: 'reason', value: 'stale_timestamp' },
          'Count',
          1,
        );
        sink.publishStoredMetrics();
      },
    ],
    [
      '150 metrics, one of them with 250 values',
      (sink) => {
        for (let i = 0; i < 250; i += 1) sink.addMetric('Many', 'Milliseconds', i);
        for (let i = 0; i < 149; i += 1) sink.addMetric(`M${i}`, 'Count', i);
        sink.publishStoredMetrics();
      },
    ],
  ];

  it.each(SPEC_SCENARIOS)('%s: every line is a valid document', (_, run) => {
    const lines = stdoutLines(() => run(ours()));
    expect(lines.length).toBeGreaterThan(0);
    expect(lines.flatMap((line) => emfViolations(line, NOW))).toEqual([]);
  });

  it('keeps every value it was given, across the documents it splits them into', () => {
    const lines = stdoutLines(() => {
      const sink = ours();
      for (let i = 0; i < 250; i += 1) sink.addMetric('Many', 'Milliseconds', i);
      for (let i = 0; i < 149; i += 1) sink.addMetric(`M${i}`, 'Count', i);
      sink.publishStoredMetrics();
    });
    const documents = lines.map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(documents.flatMap((document) => document.Many ?? [])).toEqual([...Array(250).keys()]);
    for (let i = 0; i < 149; i += 1) expect(documents.filter((d) => d[`M${i}`] === i)).toHaveLength(1);
  });

  it('drops a value that is not a finite number, which JSON would print as null', () => {
    const lines = stdoutLines(() => {
      const sink = ours();
      sink.addMetric(PROCESS_METRICS.messageAge, 'Milliseconds', Number.NaN);
      sink.addMetric(PROCESS_METRICS.messageAge, 'Milliseconds', 5);
      sink.addMetric(PROCESS_METRICS.messageAge, 'Milliseconds', Number.POSITIVE_INFINITY);
      sink.addDimensionedMetric(VERIFY_METRICS.rejected, { name: 'reason', value: 'x' }, 'Count', Number.NaN);
      sink.publishStoredMetrics();
    });
    expect(lines.flatMap((line) => emfViolations(line, NOW))).toEqual([]);
    expect(lines.map((line) => JSON.parse(line)[PROCESS_METRICS.messageAge])).toEqual([5]);
  });

  // The checker itself: each of these breaks one rule, and must be caught.
  const valid = () => ({
    _aws: {
      Timestamp: NOW,
      CloudWatchMetrics: [
        { Namespace: 'NS', Dimensions: [['service']], Metrics: [{ Name: 'M', Unit: 'Count' }] },
      ],
    },
    service: 'svc',
    M: 1,
  });
  it.each<[string, (document: ReturnType<typeof valid>) => unknown]>([
    ['a Timestamp in seconds as a string', (d) => Object.assign(d._aws, { Timestamp: String(NOW / 1000) })],
    ['a null metric value', (d) => Object.assign(d, { M: null })],
    ['101 values', (d) => Object.assign(d, { M: Array(101).fill(1) })],
    [
      '31 dimensions',
      (d) => Object.assign(d._aws.CloudWatchMetrics[0] ?? {}, { Dimensions: [Array(31).fill('service')] }),
    ],
    [
      'a unit CloudWatch does not know',
      (d) => Object.assign(d._aws.CloudWatchMetrics[0]?.Metrics[0] ?? {}, { Unit: 'ms' }),
    ],
    ['a dimension without a value', (d) => Object.assign(d, { service: undefined })],
    [
      'a metric named like a dimension',
      (d) => Object.assign(d._aws.CloudWatchMetrics[0] ?? {}, { Dimensions: [['M']] }),
    ],
    [
      '101 metrics',
      (d) => Object.assign(d._aws.CloudWatchMetrics[0] ?? {}, { Metrics: Array(101).fill({ Name: 'M' }) }),
    ],
  ])('the checker catches %s', (_, breakIt) => {
    expect(emfViolations(JSON.stringify(valid()), NOW)).toEqual([]);
    const broken = valid();
    breakIt(broken);
    expect(emfViolations(JSON.stringify(broken), NOW)).not.toEqual([]);
  });
});

describe('a delivery line that carries its metrics (publishWithLine)', () => {
  const record = (sink: MetricSink) => {
    sink.addMetric(VERIFY_METRICS.accepted, 'Count', 1);
    sink.addMetric(VERIFY_METRICS.enqueueLatency, 'Milliseconds', 9);
  };

  it('is one line: the log fields, and the very metrics document Powertools writes for the same calls', () => {
    const lines = stdoutLines(() => {
      const telemetry = jsonTelemetry({ service: SERVICE, namespace: NAMESPACE, env: {} });
      record(telemetry.metrics);
      telemetry.metrics.publishWithLine?.('info', 'delivery accepted', { provider: 'github', status: 202 });
    });
    expect(lines).toHaveLength(1);
    expect(emfViolations(lines[0] as string, NOW)).toEqual([]);
    const line = JSON.parse(lines[0] as string) as Record<string, unknown>;
    expect(line).toMatchObject({
      level: 'INFO',
      message: 'delivery accepted',
      provider: 'github',
      status: 202,
    });
    const [expected] = stdoutLines(() => {
      const sink = powertools();
      record(sink);
      sink.publishStoredMetrics();
    }).map((text) => JSON.parse(text) as Record<string, unknown>);
    // Every key of Powertools' document is on the line with the same value: _aws, the dimension, the metrics.
    for (const [key, value] of Object.entries(expected as Record<string, unknown>))
      expect(line[key]).toEqual(value);
  });

  it('still writes the metrics when the line itself is below the log level', () => {
    const lines = stdoutLines(() => {
      const telemetry = jsonTelemetry({ service: SERVICE, namespace: NAMESPACE, logLevel: 'WARN', env: {} });
      record(telemetry.metrics);
      telemetry.metrics.publishWithLine?.('info', 'delivery accepted', { provider: 'github' });
    });
    expect(lines).toHaveLength(1);
    expect(emfViolations(lines[0] as string, NOW)).toEqual([]);
    expect(JSON.parse(lines[0] as string)).not.toHaveProperty('message');
  });

  it('is a plain log line when no metric is stored', () => {
    const lines = stdoutLines(() => {
      const telemetry = jsonTelemetry({ service: SERVICE, namespace: NAMESPACE, env: {} });
      telemetry.metrics.publishWithLine?.('warn', 'delivery conflict', { provider: 'github' });
    });
    expect(lines.map((text) => JSON.parse(text))).toEqual([
      expect.objectContaining({ level: 'WARN', message: 'delivery conflict' }),
    ]);
    expect(JSON.parse(lines[0] as string)).not.toHaveProperty('_aws');
  });
});
