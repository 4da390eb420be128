// The defaults the configuration reference (docs/configuration.md) documents, pinned as literals. The other template tests compare the template
// with the constants the stack itself imports, so they catch wiring mistakes but not a wrong default: a
// changed constant moves the template and the expectation together. Here each value is written out, next
// to the line of the page that promises it (checked to be on the page still), and read from a stack
// synthesized with an empty `webhookInbox` config and no props, or from the parsed empty config.
import type { Template } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import { type Config, parseConfig } from '../../config';
import { readDoc } from '../support/docs';
import { resourcesOf, synthStack } from './synth';

/** The reference with runs of spaces collapsed, so a quoted table row does not depend on column widths. */
const REFERENCE = readDoc('docs/configuration.md').replace(/ {2,}/g, ' ');

type Props = Record<string, unknown>;

let template: Template;
let functionUrlTemplate: Template;
let config: Config;
beforeAll(() => {
  template = synthStack({ context: { webhookInbox: {} } }).template;
  functionUrlTemplate = synthStack({
    context: { webhookInbox: {} },
    inbox: { api: 'function-url' },
  }).template;
  config = parseConfig({});
});

function only(t: Template, type: string, match: (props: Props) => boolean = () => true): Props {
  const found = Object.values(resourcesOf(t, type)).filter((r) => match(r.Properties ?? {}));
  if (found.length !== 1) throw new Error(`expected one ${type}, found ${found.length}`);
  return found[0]!.Properties ?? {};
}

const lambda = (t: Template, service: string) =>
  only(
    t,
    'AWS::Lambda::Function',
    (p) => (p.Environment as { Variables: Props }).Variables.POWERTOOLS_SERVICE_NAME === service,
  );
const verify = (t = template) => lambda(t, 'webhook-inbox-verify');
const processor = () => lambda(template, 'webhook-inbox-process');
const mainQueue = () => only(template, 'AWS::SQS::Queue', (p) => p.RedrivePolicy !== undefined);
const deadLetterQueue = () => only(template, 'AWS::SQS::Queue', (p) => p.RedrivePolicy === undefined);
const alarm = (metricName: string | undefined, description: RegExp) =>
  only(
    template,
    'AWS::CloudWatch::Alarm',
    (p) => p.MetricName === metricName && description.test(String(p.AlarmDescription)),
  );
const logGroupOf = (fn: Props) => {
  const ref = ((fn.LoggingConfig as Props).LogGroup as { Ref: string }).Ref;
  return template.toJSON().Resources[ref] as { Properties: Props; DeletionPolicy?: string };
};
const bucketExpiry = (ruleId: string) =>
  (
    only(template, 'AWS::S3::Bucket', (p) => JSON.stringify(p.LifecycleConfiguration ?? {}).includes(ruleId))
      .LifecycleConfiguration as { Rules: Props[] }
  ).Rules.find((rule) => rule.Id === ruleId)?.ExpirationInDays;
const stageSettings = () => (only(template, 'AWS::ApiGateway::Stage').MethodSettings as Props[])[0] as Props;

interface Pin {
  /** What is pinned. */
  name: string;
  /** The page's words for it, quoted (spaces collapsed). */
  readme: string;
  actual: () => unknown;
  expected: unknown;
}

const PINS: Pin[] = [
  // Configuration reference (`webhookInbox` in cdk.json).
  {
    name: 'toleranceSeconds',
    readme:
      "| `providers.<id>.toleranceSeconds` | the provider's own window (below): 300, Paddle 5, Linear 60 |",
    actual: () =>
      [config.providers.stripe, config.providers.paddle, config.providers.linear].map(
        (p) => p?.toleranceSeconds,
      ),
    expected: [300, 5, 60],
  },
  {
    name: 'contentTypes',
    readme: '| `providers.<id>.contentTypes` | `["application/json"]` (Slack adds forms) |',
    actual: () => [config.providers.github?.contentTypes, config.providers.slack?.contentTypes],
    expected: [['application/json'], ['application/json', 'application/x-www-form-urlencoded']],
  },
  {
    name: 'maxBodyBytes',
    readme: '| `providers.<id>.maxBodyBytes` | 1048576 |',
    actual: () => new Set(Object.values(config.providers).map((p) => p.maxBodyBytes)),
    expected: new Set([1_048_576]),
  },
  {
    name: 'dedupTtlSeconds',
    readme:
      '| `providers.<id>.dedupTtlSeconds` | 604800 (7 days); 3024000 (35 days) where no timestamp is signed |',
    actual: () =>
      ['stripe', 'standard-webhooks', 'github', 'shopify', 'square'].map(
        (id) => config.providers[id]?.dedupTtlSeconds,
      ),
    expected: [604_800, 604_800, 3_024_000, 3_024_000, 3_024_000],
  },
  {
    name: 'unknownEvents',
    readme: '| `providers.<id>.unknownEvents` | `ack` |',
    actual: () => new Set(Object.values(config.providers).map((p) => p.unknownEvents)),
    expected: new Set(['ack']),
  },
  {
    name: 'requireJson',
    readme: '| `providers.<id>.requireJson` | `true` (Slack: `false`) |',
    actual: () => [config.providers.github?.requireJson, config.providers.slack?.requireJson],
    expected: [true, false],
  },
  {
    name: 'archive.retentionDays (and the archive objects expiry)',
    readme: '| `archive.retentionDays` | 30 |',
    actual: () => [config.archive.retentionDays, bucketExpiry('expire-archive')],
    expected: [30, 30],
  },
  {
    name: 'archive.inlineMaxBytes',
    readme: '| `archive.inlineMaxBytes` | 3072 |',
    actual: () => config.archive.inlineMaxBytes,
    expected: 3072,
  },
  {
    name: 'inlineLimitBytes',
    readme: '| `inlineLimitBytes` | 196608 |',
    actual: () => config.inlineLimitBytes,
    expected: 196_608,
  },
  {
    name: 'queue.batchSize / maxBatchingWindowSeconds (event source mapping)',
    readme: '| `queue.batchSize` / `queue.maxBatchingWindowSeconds` | 10 / 0 |',
    actual: () => {
      const mapping = only(template, 'AWS::Lambda::EventSourceMapping');
      return [mapping.BatchSize, mapping.MaximumBatchingWindowInSeconds ?? 0];
    },
    expected: [10, 0],
  },
  {
    name: 'secretCacheSeconds',
    readme: '| `secretCacheSeconds` | 300 |',
    actual: () => config.secretCacheSeconds,
    expected: 300,
  },
  {
    name: 'claimLeaseSeconds',
    readme: '| `claimLeaseSeconds` | 30 |',
    actual: () => config.claimLeaseSeconds,
    expected: 30,
  },
  {
    name: 'resourceVersionTtlSeconds',
    readme: '| `resourceVersionTtlSeconds` | 2592000 (30 days) |',
    actual: () => config.resourceVersionTtlSeconds,
    expected: 2_592_000,
  },
  // Retries: what follows from the default schedule.
  {
    name: 'maxReceiveCount',
    readme: '| maxReceiveCount | 12 |',
    actual: () => (mainQueue().RedrivePolicy as Props).maxReceiveCount,
    expected: 12,
  },
  {
    name: 'queue visibility timeout',
    readme: '| queue visibility timeout | 180 s |',
    actual: () => mainQueue().VisibilityTimeout,
    expected: 180,
  },
  {
    name: 'queue retention',
    readme: '| queue retention | 345600 s (4 days) |',
    actual: () => mainQueue().MessageRetentionPeriod,
    expected: 345_600,
  },
  {
    name: 'DLQ retention',
    readme: '| DLQ retention | 1209600 s (14 days) |',
    actual: () => deadLetterQueue().MessageRetentionPeriod,
    expected: 1_209_600,
  },
  {
    name: 'payload object expiry',
    readme: '| payload object expiry | 30 days |',
    actual: () => bucketExpiry('expire-after-every-message'),
    expected: 30,
  },
  // Construct props.
  {
    name: 'stageName',
    readme: "| `stageName` | `'prod'` |",
    actual: () => only(template, 'AWS::ApiGateway::Stage').StageName,
    expected: 'prod',
  },
  {
    name: 'throttle',
    readme: '| `throttle` | `{ rateLimit: 200, burstLimit: 400 }` |',
    actual: () => [stageSettings().ThrottlingRateLimit, stageSettings().ThrottlingBurstLimit],
    expected: [200, 400],
  },
  {
    name: 'waf (REST)',
    readme: '| `waf` | `true` for REST, `false` otherwise |',
    actual: () => Object.keys(resourcesOf(template, 'AWS::WAFv2::WebACLAssociation')).length,
    expected: 1,
  },
  {
    name: 'wafRateLimit',
    readme: '| `wafRateLimit` | `2000` |',
    actual: () =>
      (only(template, 'AWS::WAFv2::WebACL').Rules as { Statement: Props }[])
        .map((rule) => (rule.Statement.RateBasedStatement as Props | undefined)?.Limit)
        .filter((limit) => limit !== undefined),
    expected: [2000],
  },
  {
    name: 'wafLogging (30 days)',
    readme: '| `wafLogging` | `true` | log blocked requests only, to `aws-waf-logs-<stack>-<id>` (30 days) |',
    actual: () =>
      only(template, 'AWS::Logs::LogGroup', (p) => String(p.LogGroupName).startsWith('aws-waf-logs-'))
        .RetentionInDays,
    expected: 30,
  },
  {
    name: 'tracing',
    readme: '| `tracing` | `false` |',
    actual: () => [
      only(template, 'AWS::ApiGateway::Stage').TracingEnabled,
      verify().TracingConfig,
      processor().TracingConfig,
    ],
    expected: [false, undefined, undefined],
  },
  {
    name: 'verifyTimeout / verifyMemorySize',
    readme: '| `verifyTimeout` / `verifyMemorySize` | 8 s / 512 MB |',
    actual: () => [verify().Timeout, verify().MemorySize],
    expected: [8, 512],
  },
  {
    name: 'verifyReservedConcurrency',
    readme: "| `verifyReservedConcurrency` | unreserved; `20` with `'function-url'` |",
    actual: () => [
      verify().ReservedConcurrentExecutions,
      verify(functionUrlTemplate).ReservedConcurrentExecutions,
    ],
    expected: [undefined, 20],
  },
  {
    name: 'processorTimeout / processorMemorySize',
    readme: '| `processorTimeout` / `processorMemorySize` | 30 s / 512 MB |',
    actual: () => [processor().Timeout, processor().MemorySize],
    expected: [30, 512],
  },
  {
    name: 'logLevel',
    readme: "| `logLevel` | `'INFO'` |",
    actual: () =>
      [verify(), processor()].map((fn) => [
        (fn.LoggingConfig as Props).ApplicationLogLevel,
        (fn.Environment as { Variables: Props }).Variables.POWERTOOLS_LOG_LEVEL,
      ]),
    expected: [
      ['INFO', 'INFO'],
      ['INFO', 'INFO'],
    ],
  },
  {
    name: 'platformLogLevel',
    readme: "| `platformLogLevel` | `'WARN'` |",
    actual: () => [verify(), processor()].map((fn) => (fn.LoggingConfig as Props).SystemLogLevel),
    expected: ['WARN', 'WARN'],
  },
  {
    name: 'logRetention (Lambda and API access log groups)',
    readme: '| `logRetention` | one month | Lambda and API access log groups |',
    actual: () => {
      const stage = only(template, 'AWS::ApiGateway::Stage');
      const accessRef = ((stage.AccessLogSetting as Props).DestinationArn as { 'Fn::GetAtt': string[] })[
        'Fn::GetAtt'
      ][0] as string;
      const access = template.toJSON().Resources[accessRef] as { Properties: Props };
      return [logGroupOf(verify()), logGroupOf(processor()), access].map((g) => g.Properties.RetentionInDays);
    },
    expected: [30, 30, 30],
  },
  {
    name: 'removalPolicy',
    readme:
      '| `removalPolicy` | `RETAIN` | table, payload and access log buckets, created secrets, log groups |',
    actual: () =>
      ['AWS::DynamoDB::Table', 'AWS::S3::Bucket', 'AWS::SecretsManager::Secret'].flatMap((type) =>
        Object.values(resourcesOf(template, type)).map((r) => r.DeletionPolicy),
      ),
    expected: Array(1 + 2 + 11).fill('Retain'),
  },
  {
    name: 'serverAccessLogsExpiry',
    readme: '| `serverAccessLogsExpiry` | 90 days |',
    actual: () => bucketExpiry('expire-access-logs'),
    expected: 90,
  },
  // Alarms.
  {
    name: 'queueAgeAlarmThreshold',
    readme: '| `queueAgeAlarmThreshold` | max(15 min, 2 × the longest retry step): 24 h |',
    actual: () => alarm('ApproximateAgeOfOldestMessage', /oldest/).Threshold,
    expected: 86_400,
  },
  {
    name: 'serverErrorRateAlarmPercent',
    readme: '| `serverErrorRateAlarmPercent` | `5` |',
    actual: () => alarm(undefined, /5xx/).Threshold,
    expected: 5,
  },
  {
    name: 'signatureFailureAlarmThreshold',
    readme: '| `signatureFailureAlarmThreshold` | `20` |',
    actual: () => alarm('SignatureFailure', /signature failures/).Threshold,
    expected: 20,
  },
];

describe('the documented defaults, as literals', () => {
  it.each(PINS)('$name is what docs/configuration.md says', ({ readme, actual, expected }) => {
    expect(REFERENCE).toContain(readme);
    expect(actual()).toEqual(expected);
  });
});
