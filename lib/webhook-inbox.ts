// The WebhookInbox construct: front door, verify Lambda, inbox table, queue with dead-letter queue, payload
// bucket and its access log bucket, processor Lambda, provider secrets, alarms, and, when the config has
// forward destinations, their queues and the forwarder Lambda (lib/destinations.ts). Reusable: give it a
// resolved config (`parseConfig`) and, optionally, props. Resource settings shared with local mode come
// from config/resources.ts.
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Annotations, Duration, Names, RemovalPolicy, Stack, Token } from 'aws-cdk-lib';
import type * as apigw from 'aws-cdk-lib/aws-apigateway';
import type * as apigwv2 from 'aws-cdk-lib/aws-apigatewayv2';
import type * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import type * as events from 'aws-cdk-lib/aws-events';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import { SqsEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import * as nodejs from 'aws-cdk-lib/aws-lambda-nodejs';
import * as logs from 'aws-cdk-lib/aws-logs';
import * as s3 from 'aws-cdk-lib/aws-s3';
import type * as secretsmanager from 'aws-cdk-lib/aws-secretsmanager';
import type * as sns from 'aws-cdk-lib/aws-sns';
import * as subscriptions from 'aws-cdk-lib/aws-sns-subscriptions';
import type * as sqs from 'aws-cdk-lib/aws-sqs';
import type * as wafv2 from 'aws-cdk-lib/aws-wafv2';
import { Construct } from 'constructs';
import { CONTEXT_KEY, type Config, forwardDestinations, type ResolvedProvider } from '../config/index';
import { encodeLambdaConfig } from '../config/lambda-config';
import { LIST_INDEX } from '../config/list-index';
import {
  forwarderTimeoutSeconds,
  INBOX_TABLE,
  LAMBDA_DEFAULTS,
  MIN_TIMEOUT_SECONDS,
  payloadBucketLifecycle,
  queueSettings,
} from '../config/resources';
import { ENV } from '../config/runtime';
import { METRICS_NAMESPACE, outputSuffix, SERVICE } from '../config/telemetry';
import { ARCHIVE_PREFIX } from '../lambdas/core/archive';
import { PAYLOADS_PREFIX } from '../lambdas/core/envelope';
import { createAlarmTopic } from './alarm-topic';
import { InboxDestinations } from './destinations';
import {
  createFunctionUrlFrontDoor,
  createHttpFrontDoor,
  createRestFrontDoor,
  type FrontDoor,
  type ThrottleSettings,
  WEBHOOK_RESOURCE,
} from './front-door';
import {
  estimateEnvironmentBytes,
  LAMBDA_ENVIRONMENT_LIMIT_BYTES,
  lambdaApplicationLogLevel,
  SECRET_ARN_BYTES_UPPER_BOUND,
} from './lambda-environment';
import { type ForwardingAlarms, type InboxAlarms, InboxMonitoring, queueAgeThreshold } from './monitoring';
import { createQueuePair } from './queue-pair';
import { signingSecret } from './secrets';
import { grantOnTable } from './table-grant';

const PROJECT_ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');

/** Entry points of the Lambdas (each exports `handler`). */
export const LAMBDA_ENTRIES = {
  verify: join(PROJECT_ROOT, 'lambdas/verify/entry.ts'),
  process: join(PROJECT_ROOT, 'lambdas/process/entry.ts'),
  forward: join(PROJECT_ROOT, 'lambdas/forward/entry.ts'),
} as const;

/**
 * The bundle is ESM and contains the AWS SDK v3, some of whose dependencies still call `require`; the banner
 * gives them one.
 */
const ESM_REQUIRE_BANNER =
  "import { createRequire } from 'module'; const require = createRequire(import.meta.url);";

export type PowertoolsLogLevel = 'DEBUG' | 'INFO' | 'WARN' | 'ERROR';

export type FrontDoorKind = 'rest' | 'http' | 'function-url';

/**
 * The verify Lambda's reserved concurrency behind a function URL, its only rate cap: Lambda allows a
 * function URL ten requests a second per unit of concurrency, so 20 matches the API stages' default
 * 200 requests a second.
 */
export const FUNCTION_URL_RESERVED_CONCURRENCY = 20;

/** How long the created access log bucket keeps the payload bucket's server access logs. */
export const ACCESS_LOG_EXPIRY_DAYS = 90;

export interface WebhookInboxProps {
  /** The resolved configuration, from `parseConfig` (config/index.ts). */
  readonly config: Config;

  /**
   * Front door. `rest`: API Gateway REST API with WAF, request validation and 404/405 answered by API
   * Gateway. `http`: API Gateway HTTP API, cheaper per request, but no WAF (HTTP APIs cannot be associated
   * with a web ACL) and 404 for wrong methods. `function-url`: a Lambda function URL on the verify Lambda,
   * no API Gateway: no charge beyond Lambda, but no WAF, no access log and no per-client rate limit; the
   * verify Lambda's reserved concurrency is the rate cap.
   * @default 'rest'
   */
  readonly api?: FrontDoorKind;

  /**
   * Stage name of the REST API; part of every endpoint URL, so changing it means re-registering endpoints.
   * The HTTP API always uses its `$default` stage.
   * @default 'prod'
   */
  readonly stageName?: string;

  /**
   * Stage-wide throttling. Requests above it get 429, which every supported provider retries. API Gateway
   * only: must not be set with `api: 'function-url'` (use `verifyReservedConcurrency`).
   * @default { rateLimit: 200, burstLimit: 400 }
   */
  readonly throttle?: ThrottleSettings;

  /**
   * Associate a WAFv2 web ACL (IP reputation list and per-IP rate limit) with the REST stage. Must not be
   * `true` with `api: 'http'` or `api: 'function-url'`.
   * @default true for `rest`, false otherwise
   */
  readonly waf?: boolean;

  /**
   * Requests per source IP per 5 minutes before WAF blocks that IP (blocked requests get 403 and providers
   * retry). Raise it for senders that deliver bursts from few IPs (Stripe, Shopify bulk operations).
   * @default 2000
   */
  readonly wafRateLimit?: number;

  /**
   * Log requests WAF blocks to a CloudWatch log group named `aws-waf-logs-<stack>-<id>`.
   * @default true
   */
  readonly wafLogging?: boolean;

  /**
   * Active X-Ray tracing on the API stage and both Lambdas.
   * @default false
   */
  readonly tracing?: boolean;

  /** @default Duration.seconds(LAMBDA_DEFAULTS.verifyTimeoutSeconds) */
  readonly verifyTimeout?: Duration;
  /** @default LAMBDA_DEFAULTS.verifyMemoryMb */
  readonly verifyMemorySize?: number;
  /**
   * Reserved concurrency of the verify Lambda: a cap on what webhook traffic can take from the account.
   * Behind a function URL it is the only rate cap (about ten requests a second per unit; above it Lambda
   * answers 429). Reserving needs an account concurrency quota that leaves 100 unreserved.
   * @default - unreserved with `rest` and `http`; FUNCTION_URL_RESERVED_CONCURRENCY (20) with `function-url`
   */
  readonly verifyReservedConcurrency?: number;

  /** Also sets the queue's visibility timeout (six times this). @default Duration.seconds(LAMBDA_DEFAULTS.processorTimeoutSeconds) */
  readonly processorTimeout?: Duration;
  /** @default LAMBDA_DEFAULTS.processorMemoryMb */
  readonly processorMemorySize?: number;
  /**
   * Most concurrent processor invocations the SQS event source starts (2 to 1000), to protect what your
   * event handlers call.
   * @default - no limit other than the account's concurrency
   */
  readonly processorMaxConcurrency?: number;
  /**
   * Extra environment variables for the processor, for your event handlers.
   * @default - none
   */
  readonly processorEnvironment?: Record<string, string>;

  /**
   * The application log level of the Lambdas (`POWERTOOLS_LOG_LEVEL`). At INFO each delivery gets one line
   * per Lambda, which carries its metrics; at WARN and ERROR the metrics still go, in lines of their own.
   * Lambda's own filter (JSON log format) is set to INFO for WARN and ERROR, since it would drop the
   * metric lines (they have no level, which Lambda counts as INFO). @default 'INFO'
   */
  readonly logLevel?: PowertoolsLogLevel;
  /**
   * Lambda's system (platform) log level. At WARN, Lambda writes no START and REPORT lines for each
   * invocation (about 280 bytes a delivery, a third of the log bill) but still writes timeouts and
   * crashes; Lambda's Duration, Errors and Throttles metrics are unaffected. 'INFO' brings the per-
   * invocation lines back. @default 'WARN'
   */
  readonly platformLogLevel?: 'DEBUG' | 'INFO' | 'WARN';
  /** Retention of the Lambda log groups and the API access log group. @default logs.RetentionDays.ONE_MONTH */
  readonly logRetention?: logs.RetentionDays;

  /**
   * What happens to the inbox table, the payload bucket, the created secrets and the log groups when they
   * leave the stack. A bucket is only deleted when empty.
   * @default RemovalPolicy.RETAIN
   */
  readonly removalPolicy?: RemovalPolicy;

  /**
   * Name of the main queue. It has a fixed name so the dead-letter queue's redrive allow policy can name it
   * without a circular reference.
   * @default `${stackName}-${id}-queue` (or a unique name derived from the construct path when that is too
   * long or the stack name is not known at synth time)
   */
  readonly queueName?: string;

  /**
   * S3 server access logs for the payload bucket, which holds webhook bodies over `inlineLimitBytes` (they
   * may carry personal data): who read or wrote which object, and when. Must not be false with
   * `serverAccessLogsBucket`.
   * @default true
   */
  readonly serverAccessLogs?: boolean;
  /**
   * An existing bucket for the payload bucket's server access logs; you grant the S3 logging service
   * access to it.
   * @default - a new bucket, `accessLogsBucket`
   */
  readonly serverAccessLogsBucket?: s3.IBucket;
  /** Key prefix of the payload bucket's access logs. @default 'payloads/' */
  readonly serverAccessLogsPrefix?: string;
  /**
   * How long the created access log bucket keeps the logs.
   * @default Duration.days(ACCESS_LOG_EXPIRY_DAYS) (90 days)
   */
  readonly serverAccessLogsExpiry?: Duration;

  /**
   * An existing SNS topic for alarm notifications. The construct cannot change its policy: the topic policy
   * must allow `cloudwatch.amazonaws.com` to `sns:Publish` (an explicit statement is needed once the topic
   * has any policy of its own), and, if the topic is encrypted with a customer managed key, the key policy
   * must allow it `kms:Decrypt` and `kms:GenerateDataKey*` (docs/configuration.md, Alarms).
   * @default - a new topic, `alarmTopic`, that this account's CloudWatch alarms may publish to
   */
  readonly alarmTopic?: sns.ITopic;
  /**
   * Email address to subscribe to the alarm topic (the recipient must confirm).
   * @default - no subscription
   */
  readonly alarmEmail?: string;
  /**
   * Alarm when the oldest message in the main queue is older than this.
   * @default the larger of 15 minutes and twice the longest step of `config.queue.retrySchedule` (a message
   * waiting out one retry step is not late; one that has been failing for two of them is worth a look)
   */
  readonly queueAgeAlarmThreshold?: Duration;
  /**
   * Alarm when more than this percentage of API responses in 5 minutes are 5xx.
   * @default 5
   */
  readonly serverErrorRateAlarmPercent?: number;
  /**
   * Alarm when more than this many deliveries fail signature or timestamp checks in 5 minutes.
   * @default 20
   */
  readonly signatureFailureAlarmThreshold?: number;
  /**
   * Create a CloudWatch dashboard.
   * @default true
   */
  readonly dashboard?: boolean;
}

export class WebhookInbox extends Construct {
  public readonly config: Config;
  /** Which front door was built. */
  public readonly apiKind: FrontDoorKind;
  /** The REST API, when `api` is `rest`. */
  public readonly restApi?: apigw.RestApi;
  /** The HTTP API, when `api` is `http`. */
  public readonly httpApi?: apigwv2.HttpApi;
  /** The verify Lambda's function URL, when `api` is `function-url`. */
  public readonly functionUrl?: lambda.FunctionUrl;
  /** Base URL of the stage or function URL, no trailing slash. */
  public readonly apiUrl: string;
  /** Provider id to the URL to register with that provider. */
  public readonly endpoints: Readonly<Record<string, string>>;
  /** API Gateway's access log group; undefined with `function-url` (Lambda's own logs only). */
  public readonly apiAccessLogGroup?: logs.ILogGroup;
  /** The web ACL on the REST stage, when WAF is on. */
  public readonly webAcl?: wafv2.CfnWebACL;

  public readonly verifyFunction: nodejs.NodejsFunction;
  public readonly processorFunction: nodejs.NodejsFunction;
  /** The forwarder Lambda, when the config has forward destinations (http, eventbridge, sqs). */
  public readonly forwarderFunction?: nodejs.NodejsFunction;
  /** The forward destinations' queues, DLQs, secrets and bus, when the config has any. */
  public readonly destinations?: InboxDestinations;
  /** The bus created for eventbridge destinations without `busArn`, if any: add your rules to it. */
  public readonly eventBus?: events.EventBus;
  public readonly table: dynamodb.Table;
  public readonly queue: sqs.Queue;
  public readonly deadLetterQueue: sqs.Queue;
  public readonly payloadBucket: s3.Bucket;
  /** The bucket the construct created for the payload bucket's server access logs, if it created one. */
  public readonly accessLogsBucket?: s3.Bucket;
  /** Provider id to its signing secret (created, or imported from `secretArn` in the config). */
  public readonly secrets: Readonly<Record<string, secretsmanager.ISecret>>;

  public readonly alarmTopic: sns.ITopic;
  public readonly alarms: InboxAlarms;
  /** The forwarder's and each destination's alarms, when the config has forward destinations. */
  public readonly forwardingAlarms?: ForwardingAlarms;
  public readonly dashboard?: cloudwatch.Dashboard;

  constructor(scope: Construct, id: string, props: WebhookInboxProps) {
    super(scope, id);
    const { config } = props;
    this.config = config;
    this.apiKind = props.api ?? 'rest';
    const waf = props.waf ?? this.apiKind === 'rest';
    if (waf && this.apiKind === 'http') {
      throw new Error(
        'WebhookInbox: waf cannot be true with api "http" (HTTP APIs cannot have a WAF web ACL)',
      );
    }
    if (waf && this.apiKind === 'function-url') {
      throw new Error(
        'WebhookInbox: waf cannot be true with api "function-url" (a function URL has no WAF; put CloudFront with a web ACL in front of it yourself)',
      );
    }
    for (const [prop, timeout, min] of [
      ['verifyTimeout', props.verifyTimeout, MIN_TIMEOUT_SECONDS.verify],
      ['processorTimeout', props.processorTimeout, MIN_TIMEOUT_SECONDS.processor],
    ] as const) {
      if (timeout && timeout.toSeconds() < min) {
        throw new Error(
          `WebhookInbox: ${prop} must be at least ${min} s (got ${timeout.toSeconds()} s): the Lambda gives up early, before its timeout, to hand its work back`,
        );
      }
    }
    if (props.throttle && this.apiKind === 'function-url') {
      throw new Error(
        'WebhookInbox: throttle is for API Gateway stages; with api "function-url" the rate cap is verifyReservedConcurrency',
      );
    }
    const serverAccessLogs = props.serverAccessLogs ?? true;
    if (!serverAccessLogs && props.serverAccessLogsBucket) {
      throw new Error('WebhookInbox: serverAccessLogsBucket is set but serverAccessLogs is false');
    }
    const removalPolicy = props.removalPolicy ?? RemovalPolicy.RETAIN;
    const logRetention = props.logRetention ?? logs.RetentionDays.ONE_MONTH;
    const processorTimeout =
      props.processorTimeout ?? Duration.seconds(LAMBDA_DEFAULTS.processorTimeoutSeconds);
    const settings = queueSettings(config, processorTimeout.toSeconds());

    this.table = new dynamodb.Table(this, 'InboxTable', {
      partitionKey: { name: INBOX_TABLE.partitionKey, type: dynamodb.AttributeType.STRING },
      billingMode: dynamodb.BillingMode.PAY_PER_REQUEST,
      timeToLiveAttribute: INBOX_TABLE.ttlAttribute,
      pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
      encryption: dynamodb.TableEncryption.AWS_MANAGED,
      removalPolicy,
    });
    // The listing index (config/list-index.ts): `deliveries list` and the console read it with the operator's
    // own credentials; no Lambda reads it. One index only: CloudFormation adds one GSI per stack update.
    this.table.addGlobalSecondaryIndex({
      indexName: LIST_INDEX.name,
      partitionKey: { name: LIST_INDEX.partitionKey, type: dynamodb.AttributeType.STRING },
      sortKey: { name: LIST_INDEX.sortKey, type: dynamodb.AttributeType.STRING },
      projectionType: dynamodb.ProjectionType.INCLUDE,
      nonKeyAttributes: [...LIST_INDEX.nonKeyAttributes],
    });

    const accessLogsPrefix = props.serverAccessLogsPrefix ?? 'payloads/';
    if (serverAccessLogs && !props.serverAccessLogsBucket) {
      this.accessLogsBucket = this.createAccessLogsBucket(
        props.serverAccessLogsExpiry ?? Duration.days(ACCESS_LOG_EXPIRY_DAYS),
        removalPolicy,
      );
    }
    const lifecycle = payloadBucketLifecycle(config);
    this.payloadBucket = new s3.Bucket(this, 'PayloadBucket', {
      blockPublicAccess: s3.BlockPublicAccess.BLOCK_ALL,
      objectOwnership: s3.ObjectOwnership.BUCKET_OWNER_ENFORCED,
      encryption: s3.BucketEncryption.S3_MANAGED,
      enforceSSL: true,
      lifecycleRules: [
        {
          // Longer than any message that can point at an object lives, redrives included (see
          // payloadExpiryDays), and than the archive that reuses the object (payloadBucketLifecycle).
          id: 'expire-after-every-message',
          prefix: PAYLOADS_PREFIX,
          expiration: Duration.days(lifecycle.payloadsDays),
          abortIncompleteMultipartUploadAfter: Duration.days(1),
        },
        {
          // The archive's own objects (docs/archive-and-replay.md): archive.retentionDays after the write.
          id: 'expire-archive',
          prefix: ARCHIVE_PREFIX,
          expiration: Duration.days(lifecycle.archiveDays),
          abortIncompleteMultipartUploadAfter: Duration.days(1),
        },
      ],
      serverAccessLogsBucket: props.serverAccessLogsBucket,
      serverAccessLogsPrefix: props.serverAccessLogsBucket ? accessLogsPrefix : undefined,
      removalPolicy,
    });
    if (this.accessLogsBucket) this.deliverAccessLogs(this.accessLogsBucket, accessLogsPrefix);

    // A fixed name, so the DLQ's redrive allow policy can name the queue without a cycle (queue-pair.ts).
    const queueName = props.queueName ?? defaultQueueName(this);
    ({ queue: this.queue, deadLetterQueue: this.deadLetterQueue } = createQueuePair(this, {
      ids: { queue: 'Queue', deadLetterQueue: 'DeadLetterQueue', redriveSource: 'RedriveSource' },
      queueName,
      settings,
    }));

    this.secrets = Object.fromEntries(
      Object.values(config.providers).map((provider) => [
        provider.id,
        this.providerSecret(provider, removalPolicy),
      ]),
    );
    const forwarderTimeout = Duration.seconds(forwarderTimeoutSeconds(config));
    if (forwardDestinations(config).length > 0) {
      this.destinations = new InboxDestinations(this, 'Destinations', {
        config,
        inboxQueueName: queueName,
        forwarderTimeout,
        removalPolicy,
      });
      this.eventBus = this.destinations.eventBus;
    }
    // The processor (which fans out) and the forwarder both learn the destinations' resources.
    const destinationEnvironment = this.destinations?.environment();

    const common = {
      removalPolicy,
      logRetention,
      logLevel: props.logLevel ?? 'INFO',
      platformLogLevel: props.platformLogLevel ?? 'WARN',
      tracing: props.tracing ?? false,
    };
    const configJson = encodeLambdaConfig(config);
    const sharedEnvironment = {
      [ENV.config]: configJson,
      [ENV.table]: this.table.tableName,
      [ENV.queueUrl]: this.queue.queueUrl,
      [ENV.dlqUrl]: this.deadLetterQueue.queueUrl,
      [ENV.bucket]: this.payloadBucket.bucketName,
    };
    const clash = Object.keys(props.processorEnvironment ?? {}).filter(
      (name) => name in sharedEnvironment || name === ENV.destinations,
    );
    if (clash.length > 0) {
      throw new Error(
        `WebhookInbox: processorEnvironment may not set ${clash.join(', ')} (set by the construct)`,
      );
    }
    const secretArns = Object.fromEntries(Object.entries(this.secrets).map(([p, s]) => [p, s.secretArn]));
    this.verifyFunction = this.createFunction('Verify', {
      ...common,
      entry: LAMBDA_ENTRIES.verify,
      description: 'webhook-inbox: verifies, claims and enqueues each delivery',
      service: SERVICE.verify,
      timeout: props.verifyTimeout ?? Duration.seconds(LAMBDA_DEFAULTS.verifyTimeoutSeconds),
      memorySize: props.verifyMemorySize ?? LAMBDA_DEFAULTS.verifyMemoryMb,
      reservedConcurrentExecutions:
        props.verifyReservedConcurrency ??
        (this.apiKind === 'function-url' ? FUNCTION_URL_RESERVED_CONCURRENCY : undefined),
      environment: {
        ...sharedEnvironment,
        // Only the verify Lambda reads secrets, so only it learns where they are.
        [ENV.secretArns]: Stack.of(this).toJsonString(secretArns),
        // It writes large bodies with a signed PUT rather than the S3 client (S3PayloadWriter), so it is
        // given the bucket's regional virtual-hosted address, with the partition's own domain suffix.
        [ENV.bucketUrl]: `https://${this.payloadBucket.bucketRegionalDomainName}/`,
      },
      unresolvedBytes: {
        [ENV.secretArns]: JSON.stringify(
          Object.fromEntries(
            Object.keys(secretArns).map((p) => [p, 'x'.repeat(SECRET_ARN_BYTES_UPPER_BOUND)]),
          ),
        ).length,
      },
    });
    this.processorFunction = this.createFunction('Processor', {
      ...common,
      entry: LAMBDA_ENTRIES.process,
      description: 'webhook-inbox: routes queued deliveries to the event handlers',
      service: SERVICE.process,
      timeout: processorTimeout,
      memorySize: props.processorMemorySize ?? LAMBDA_DEFAULTS.processorMemoryMb,
      environment: {
        ...sharedEnvironment,
        ...destinationEnvironment?.variables,
        ...props.processorEnvironment,
      },
      unresolvedBytes: destinationEnvironment?.unresolvedBytes,
    });
    this.grantLeastPrivilege(secretArns);
    if (this.destinations) {
      this.forwarderFunction = this.createFunction('Forwarder', {
        ...common,
        entry: LAMBDA_ENTRIES.forward,
        description: 'webhook-inbox: forwards queued deliveries to their destinations',
        service: SERVICE.forward,
        timeout: forwarderTimeout,
        memorySize: LAMBDA_DEFAULTS.forwarderMemoryMb,
        environment: { ...sharedEnvironment, ...destinationEnvironment?.variables },
        unresolvedBytes: destinationEnvironment?.unresolvedBytes,
      });
      this.destinations.connect({
        forwarder: this.forwarderFunction,
        processor: this.processorFunction,
        table: this.table,
        payloadBucket: this.payloadBucket,
      });
    }
    this.processorFunction.addEventSource(
      new SqsEventSource(this.queue, {
        batchSize: settings.batchSize,
        maxBatchingWindow:
          settings.maxBatchingWindowSeconds > 0
            ? Duration.seconds(settings.maxBatchingWindowSeconds)
            : undefined,
        reportBatchItemFailures: true,
        maxConcurrency: props.processorMaxConcurrency,
      }),
    );

    const frontDoorProps = {
      handler: this.verifyFunction,
      throttle: props.throttle ?? { rateLimit: 200, burstLimit: 400 },
      accessLogRetention: logRetention,
      logRemovalPolicy: removalPolicy,
      tracing: common.tracing,
      stageName: props.stageName ?? 'prod',
      waf: waf ? { rateLimit: props.wafRateLimit ?? 2000, logging: props.wafLogging ?? true } : undefined,
    };
    let frontDoor: FrontDoor;
    if (this.apiKind === 'rest') {
      const rest = createRestFrontDoor(this, frontDoorProps);
      this.restApi = rest.api;
      this.webAcl = rest.webAcl;
      frontDoor = rest;
    } else if (this.apiKind === 'http') {
      const http = createHttpFrontDoor(this, frontDoorProps);
      this.httpApi = http.api;
      frontDoor = http;
    } else {
      const url = createFunctionUrlFrontDoor(this, frontDoorProps);
      this.functionUrl = url.functionUrl;
      frontDoor = url;
    }
    this.apiUrl = frontDoor.url;
    this.apiAccessLogGroup = frontDoor.accessLogGroup;
    this.endpoints = Object.fromEntries(
      Object.keys(config.providers).map((p) => [p, `${frontDoor.url}/${WEBHOOK_RESOURCE}/${p}`]),
    );

    this.alarmTopic = props.alarmTopic ?? createAlarmTopic(this, 'AlarmTopic');
    if (props.alarmEmail)
      this.alarmTopic.addSubscription(new subscriptions.EmailSubscription(props.alarmEmail));
    const monitoring = new InboxMonitoring(this, 'Monitoring', {
      topic: this.alarmTopic,
      frontDoor,
      verifyFunction: this.verifyFunction,
      processorFunction: this.processorFunction,
      queue: this.queue,
      deadLetterQueue: this.deadLetterQueue,
      queueAgeThreshold: props.queueAgeAlarmThreshold ?? queueAgeThreshold(config.queue.retrySchedule),
      serverErrorRatePercent: props.serverErrorRateAlarmPercent ?? 5,
      signatureFailureThreshold: props.signatureFailureAlarmThreshold ?? 20,
      dashboard: props.dashboard ?? true,
      forwarding:
        this.destinations && this.forwarderFunction
          ? {
              forwarderFunction: this.forwarderFunction,
              destinations: this.destinations.monitoringTargets(),
            }
          : undefined,
    });
    this.alarms = monitoring.alarms;
    this.forwardingAlarms = monitoring.forwardingAlarms;
    this.dashboard = monitoring.dashboard;
  }

  /**
   * The provider's signing secret. Its SecretString is the secret text itself; the verify Lambda reads the
   * AWSCURRENT and AWSPREVIOUS versions, so `put-secret-value` rotates without rejecting in-flight retries.
   * A created secret starts as a random value: usable as is for providers where you choose the secret
   * (GitHub, partners), to be replaced with the provider's value elsewhere (Stripe, Slack, Shopify, ...).
   */
  private providerSecret(provider: ResolvedProvider, removalPolicy: RemovalPolicy): secretsmanager.ISecret {
    return signingSecret(this, `ProviderSecret${outputSuffix(provider.id)}`, {
      importArn: provider.secretArn,
      configKey: `${CONTEXT_KEY}.providers.${provider.id}.secretArn`,
      description:
        `webhook-inbox signing secret for provider "${provider.id}" (scheme ${provider.scheme}). ` +
        'The secret string is the secret text itself, not JSON. Set it to the value the provider shows: ' +
        'aws secretsmanager put-secret-value --secret-id <this ARN> --secret-string <secret>. ' +
        'The previous value stays valid as AWSPREVIOUS until the next change.',
      generate: { passwordLength: 48, excludePunctuation: true },
      removalPolicy,
    });
  }

  /**
   * The payload bucket's server access log bucket: private, TLS only, SSE-S3 (server access log delivery
   * cannot use the aws/s3 KMS key), ACLs off, logs expire after `expiry`.
   */
  private createAccessLogsBucket(expiry: Duration, removalPolicy: RemovalPolicy): s3.Bucket {
    return new s3.Bucket(this, 'AccessLogsBucket', {
      blockPublicAccess: s3.BlockPublicAccess.BLOCK_ALL,
      objectOwnership: s3.ObjectOwnership.BUCKET_OWNER_ENFORCED,
      encryption: s3.BucketEncryption.S3_MANAGED,
      enforceSSL: true,
      lifecycleRules: [{ id: 'expire-access-logs', expiration: expiry }],
      removalPolicy,
    });
  }

  /**
   * Server access logging from the payload bucket to `logs`, granted by bucket policy to the S3 logging
   * service for this bucket and account only (with ACLs off, a policy is the only way; set here rather than
   * through the Bucket prop, whose grant depends on a feature flag of the app).
   */
  private deliverAccessLogs(logs: s3.Bucket, prefix: string): void {
    (this.payloadBucket.node.defaultChild as s3.CfnBucket).loggingConfiguration = {
      destinationBucketName: logs.bucketName,
      logFilePrefix: prefix,
    };
    logs.addToResourcePolicy(
      new iam.PolicyStatement({
        principals: [new iam.ServicePrincipal('logging.s3.amazonaws.com')],
        actions: ['s3:PutObject'],
        resources: [logs.arnForObjects(`${prefix}*`)],
        conditions: {
          ArnLike: { 'aws:SourceArn': this.payloadBucket.bucketArn },
          StringEquals: { 'aws:SourceAccount': Stack.of(this).account },
        },
      }),
    );
  }

  private createFunction(
    name: string,
    options: {
      entry: string;
      description: string;
      service: string;
      timeout: Duration;
      memorySize: number;
      reservedConcurrentExecutions?: number;
      environment: Record<string, string>;
      unresolvedBytes?: Record<string, number>;
      removalPolicy: RemovalPolicy;
      logRetention: logs.RetentionDays;
      logLevel: PowertoolsLogLevel;
      platformLogLevel: 'DEBUG' | 'INFO' | 'WARN';
      tracing: boolean;
    },
  ): nodejs.NodejsFunction {
    const logGroup = new logs.LogGroup(this, `${name}Logs`, {
      retention: options.logRetention,
      removalPolicy: options.removalPolicy,
    });
    // An explicit role that can write to its own log group only, instead of the AWSLambdaBasicExecutionRole
    // managed policy (which allows any log group).
    const role = new iam.Role(this, `${name}Role`, {
      assumedBy: new iam.ServicePrincipal('lambda.amazonaws.com'),
      description: `webhook-inbox ${name.toLowerCase()} Lambda`,
    });
    logGroup.grantWrite(role);
    const environment = {
      ...options.environment,
      POWERTOOLS_SERVICE_NAME: options.service,
      POWERTOOLS_METRICS_NAMESPACE: METRICS_NAMESPACE,
      POWERTOOLS_LOG_LEVEL: options.logLevel,
      NODE_OPTIONS: '--enable-source-maps',
    };
    const fn = new nodejs.NodejsFunction(this, `${name}Function`, {
      entry: options.entry,
      handler: 'handler',
      description: options.description,
      runtime: lambda.Runtime.NODEJS_22_X,
      architecture: lambda.Architecture.ARM_64,
      memorySize: options.memorySize,
      timeout: options.timeout,
      reservedConcurrentExecutions: options.reservedConcurrentExecutions,
      role,
      logGroup,
      // JSON, so Lambda can filter by level: our lines are JSON already and pass through as written (EMF
      // included), and the platform's own lines follow platformLogLevel. Lambda's application filter is
      // never above INFO, or it would drop the metrics (lambda-environment.ts): logLevel's stricter
      // levels are our logger's own (POWERTOOLS_LOG_LEVEL).
      loggingFormat: lambda.LoggingFormat.JSON,
      applicationLogLevelV2: lambda.ApplicationLogLevel[lambdaApplicationLogLevel(options.logLevel)],
      systemLogLevelV2: lambda.SystemLogLevel[options.platformLogLevel],
      tracing: options.tracing ? lambda.Tracing.ACTIVE : lambda.Tracing.DISABLED,
      environment,
      awsSdkConnectionReuse: false,
      projectRoot: PROJECT_ROOT,
      depsLockFilePath: join(PROJECT_ROOT, 'package-lock.json'),
      bundling: {
        forceDockerBundling: false,
        format: nodejs.OutputFormat.ESM,
        target: 'node22',
        mainFields: ['module', 'main'],
        minify: true,
        sourceMap: true,
        sourcesContent: false,
        bundleAwsSDK: true,
        banner: ESM_REQUIRE_BANNER,
      },
    });
    const bytes = estimateEnvironmentBytes(environment, options.unresolvedBytes);
    if (bytes > LAMBDA_ENVIRONMENT_LIMIT_BYTES) {
      Annotations.of(fn).addWarningV2(
        'webhook-inbox:environment-size',
        `The ${name} Lambda's environment may reach ${bytes} bytes, over Lambda's 4 KB limit; deployment ` +
          'will fail. Use fewer providers, fewer destinations or fewer non-default settings.',
      );
    }
    return fn;
  }

  /** Exactly the actions each Lambda's code performs, on exactly the resources it touches. */
  private grantLeastPrivilege(secretArns: Record<string, string>): void {
    const verify = this.verifyFunction;
    const processor = this.processorFunction;
    // The claim is a conditional PutItem, the read that classifies a refused claim a GetItem, a release an
    // UpdateItem (the record stays; lambdas/adapters/dynamo-claims.ts): the verify Lambda deletes nothing.
    grantOnTable(this.table, verify, 'dynamodb:PutItem', 'dynamodb:UpdateItem', 'dynamodb:GetItem');
    this.queue.grant(verify, 'sqs:SendMessage');
    // Large bodies only: the archive is the processor's, and verify can neither write nor read it.
    verify.addToRolePolicy(
      new iam.PolicyStatement({
        actions: ['s3:PutObject'],
        resources: [this.payloadBucket.arnForObjects(`${PAYLOADS_PREFIX}*`)],
      }),
    );
    verify.addToRolePolicy(
      new iam.PolicyStatement({
        actions: ['secretsmanager:GetSecretValue'],
        resources: Object.values(secretArns),
      }),
    );

    grantOnTable(this.table, processor, 'dynamodb:GetItem', 'dynamodb:UpdateItem');
    // No queue grant here: the SQS event source (added below) grants ReceiveMessage, DeleteMessage,
    // GetQueueAttributes, GetQueueUrl and ChangeMessageVisibility on the queue, which is all the processor
    // does with it. It never sends to the DLQ: a retry's backoff and a give-up are both a visibility change,
    // and SQS's redrive policy does the moving (so every DLQ message can be redriven from the console).
    processor.addToRolePolicy(
      new iam.PolicyStatement({
        // PutObject: an old payload object is rewritten when read, so a redriven message still finds it;
        // and the archive's objects (core/archive.ts), which it writes and never reads.
        actions: ['s3:GetObject', 's3:PutObject'],
        resources: [this.payloadBucket.arnForObjects(`${PAYLOADS_PREFIX}*`)],
      }),
    );
    processor.addToRolePolicy(
      new iam.PolicyStatement({
        actions: ['s3:PutObject'],
        resources: [this.payloadBucket.arnForObjects(`${ARCHIVE_PREFIX}*`)],
      }),
    );
    // Without ListBucket, S3 answers a missing key with 403 AccessDenied rather than 404 NoSuchKey, and a
    // payload that is gone would be retried as an outage instead of dead-lettered as payload_missing.
    processor.addToRolePolicy(
      new iam.PolicyStatement({ actions: ['s3:ListBucket'], resources: [this.payloadBucket.bucketArn] }),
    );
  }
}

const MAX_QUEUE_NAME = 80;

function defaultQueueName(scope: Construct): string {
  const { stackName } = Stack.of(scope);
  const readable = `${stackName}-${scope.node.id}-queue`;
  if (!Token.isUnresolved(stackName) && readable.length <= MAX_QUEUE_NAME && /^[\w-]+$/.test(readable)) {
    return readable;
  }
  return `${Names.uniqueResourceName(scope, { maxLength: MAX_QUEUE_NAME - '-queue'.length, separator: '-' })}-queue`;
}
