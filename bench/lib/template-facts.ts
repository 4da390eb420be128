// What the cost of a webhook depends on, read from a synthesized CloudFormation template: each Lambda's
// memory, architecture, timeout and log group, the SQS event source's batch settings, the table's billing
// mode, PITR and TTL, the access log format, WAF, the payload bucket's expiry and that of its server access
// logs, and what is billed by the month (secrets, alarm metrics, dashboards). Resources are found by
// structure, not by name: the processor is the event source mapping's target, the verify Lambda is the one
// API Gateway may invoke or the function URL targets, the payload bucket is the one the Lambdas are given,
// the processor reads the queue the verify Lambda sends to, and the forwarder (when the config has
// destinations) is the function behind the other event source mappings.

import { ENV } from '../../config/runtime';
import { PAYLOADS_PREFIX } from '../../lambdas/core/envelope';
import type { FrontDoorKind } from '../../lib/webhook-inbox';

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
interface Resource {
  Type: string;
  Properties?: { [key: string]: Json };
}
export interface CfnTemplate {
  Resources: Record<string, Resource>;
}

export interface FunctionFacts {
  logicalId: string;
  memoryMb: number;
  architectures: string[];
  runtime: string;
  timeoutSeconds: number;
  tracing: string;
  logRetentionDays: number | null;
  /** LoggingConfig.LogFormat; Lambda's default is Text. */
  logFormat: string;
  /** LoggingConfig.SystemLogLevel (JSON format only); Lambda's default is INFO. */
  systemLogLevel: string;
  /** The config variable (ENV.config in config/runtime.ts), when it is a literal string. */
  configEnv: string | null;
  /** Logical id of the bucket in ENV.bucket, when it is a reference. */
  bucketRef: string | null;
  /** Logical id of the queue in ENV.queueUrl, when it is a reference. */
  queueRef: string | null;
}

export interface ForwarderFacts extends FunctionFacts {
  /** One event source mapping per destination queue. */
  mappings: number;
  batchSize: number;
}

export interface TemplateFacts {
  api: FrontDoorKind;
  verify: FunctionFacts;
  processor: FunctionFacts;
  /** The forwarder, when the config has destinations with queues. */
  forwarder: ForwarderFacts | null;
  eventSource: { batchSize: number; maxBatchingWindowSeconds: number; functionResponseTypes: string[] };
  table: { billingMode: string; pitr: boolean; ttlAttribute: string | null; tableClass: string };
  /** API Gateway's access log; null for a function URL, which has none. */
  accessLog: { format: string; retentionDays: number | null } | null;
  /** REST stages only: execution logging level (ERROR logs nothing for a 2xx). */
  executionLogLevel: string | null;
  waf: { webAcls: number; rules: number; ruleNames: string[] };
  payloadExpirationDays: number | null;
  /** The payload bucket's server access logs: null when off; expiry null when they never expire. */
  payloadAccessLogs: { expirationDays: number | null } | null;
  monthly: { secrets: number; alarms: number; alarmMetrics: number; dashboards: number };
}

function props(resource: Resource | undefined): { [key: string]: Json } {
  return resource?.Properties ?? {};
}

function refOf(value: Json | undefined): string | undefined {
  if (value && typeof value === 'object' && !Array.isArray(value)) {
    if (typeof value.Ref === 'string') return value.Ref;
    const getAtt = value['Fn::GetAtt'];
    if (Array.isArray(getAtt) && typeof getAtt[0] === 'string') return getAtt[0];
  }
  return undefined;
}

function only(template: CfnTemplate, type: string): [string, Resource][] {
  return Object.entries(template.Resources).filter(([, r]) => r.Type === type);
}

function exactlyOne(
  template: CfnTemplate,
  type: string,
  match: (r: Resource) => boolean,
): [string, Resource] {
  const found = only(template, type).filter(([, r]) => match(r));
  if (found.length !== 1) throw new Error(`expected one ${type}, found ${found.length}`);
  return found[0] as [string, Resource];
}

/** The soonest expiry of the objects under `prefix` (the archive's own rule must not shorten the payloads'). */
function expirationDaysOf(bucket: Resource | undefined, prefix = ''): number | null {
  const rules = ((props(bucket).LifecycleConfiguration as { [key: string]: Json } | undefined)?.Rules ??
    []) as { [key: string]: Json }[];
  const days = rules
    .filter((rule) => rule.Status === 'Enabled' && typeof rule.ExpirationInDays === 'number')
    .filter((rule) => typeof rule.Prefix !== 'string' || prefix.startsWith(rule.Prefix))
    .map((rule) => rule.ExpirationInDays as number);
  return days.length > 0 ? Math.min(...days) : null;
}

function retentionOf(template: CfnTemplate, logicalId: string | undefined): number | null {
  if (logicalId === undefined) return null;
  const days = props(template.Resources[logicalId]).RetentionInDays;
  return typeof days === 'number' ? days : null;
}

function functionFacts(template: CfnTemplate, logicalId: string): FunctionFacts {
  const p = props(template.Resources[logicalId]);
  const logging = (p.LoggingConfig ?? {}) as { [key: string]: Json };
  const variables = ((p.Environment as { [key: string]: Json } | undefined)?.Variables ?? {}) as {
    [key: string]: Json;
  };
  const config = variables[ENV.config];
  return {
    logicalId,
    // CloudFormation's defaults when a property is absent: 128 MB, x86_64, 3 s.
    memoryMb: typeof p.MemorySize === 'number' ? p.MemorySize : 128,
    architectures: Array.isArray(p.Architectures) ? p.Architectures.map(String) : ['x86_64'],
    runtime: String(p.Runtime ?? ''),
    timeoutSeconds: typeof p.Timeout === 'number' ? p.Timeout : 3,
    tracing: String((p.TracingConfig as { [key: string]: Json } | undefined)?.Mode ?? 'PassThrough'),
    logRetentionDays: retentionOf(template, refOf(logging.LogGroup)),
    logFormat: String(logging.LogFormat ?? 'Text'),
    systemLogLevel: String(logging.SystemLogLevel ?? 'INFO'),
    configEnv: typeof config === 'string' ? config : null,
    bucketRef: refOf(variables[ENV.bucket]) ?? null,
    queueRef: refOf(variables[ENV.queueUrl]) ?? null,
  };
}

/** The verify Lambda: the function URL's target, or the function API Gateway may invoke. */
function verifyFunctionId(template: CfnTemplate, api: FrontDoorKind): string | undefined {
  if (api === 'function-url') {
    const [, url] = exactlyOne(template, 'AWS::Lambda::Url', () => true);
    return refOf(props(url).TargetFunctionArn);
  }
  const [, permission] = exactlyOne(
    template,
    'AWS::Lambda::Permission',
    (r) => props(r).Principal === 'apigateway.amazonaws.com',
  );
  return refOf(props(permission).FunctionName);
}

/** CloudFormation's default batch size for SQS is 10. */
function batchSizeOf(mapping: { [key: string]: Json }): number {
  return typeof mapping.BatchSize === 'number' ? mapping.BatchSize : 10;
}

/** The function behind every event source mapping but the processor's, if there are any. */
function forwarderFacts(template: CfnTemplate, processorMapping: string): ForwarderFacts | null {
  const mappings = only(template, 'AWS::Lambda::EventSourceMapping').filter(
    ([id]) => id !== processorMapping,
  );
  const ids = new Set(mappings.map(([, r]) => refOf(props(r).FunctionName)));
  if (mappings.length === 0) return null;
  const [forwarderId] = ids;
  if (ids.size !== 1 || !forwarderId) throw new Error(`expected one forwarder, found ${ids.size}`);
  const sizes = new Set(mappings.map(([, r]) => batchSizeOf(props(r))));
  if (sizes.size !== 1) throw new Error('the forwarder mappings have different batch sizes');
  return {
    ...functionFacts(template, forwarderId),
    mappings: mappings.length,
    batchSize: [...sizes][0] as number,
  };
}

export function templateFacts(template: CfnTemplate, api: FrontDoorKind): TemplateFacts {
  const verifyId = verifyFunctionId(template, api);
  if (!verifyId) throw new Error(`no function found behind the ${api} front door`);
  const verify = functionFacts(template, verifyId);
  const [mappingId, mapping] = exactlyOne(
    template,
    'AWS::Lambda::EventSourceMapping',
    (r) => verify.queueRef !== null && refOf(props(r).EventSourceArn) === verify.queueRef,
  );
  const mp = props(mapping);
  const processorId = refOf(mp.FunctionName);
  if (!processorId) throw new Error('the event source mapping names no function');

  const [, table] = exactlyOne(template, 'AWS::DynamoDB::Table', () => true);
  const tp = props(table);
  const ttl = tp.TimeToLiveSpecification as { [key: string]: Json } | undefined;

  let accessLog: TemplateFacts['accessLog'] = null;
  let executionLogLevel: string | null = null;
  if (api === 'rest') {
    const [, stage] = exactlyOne(template, 'AWS::ApiGateway::Stage', () => true);
    const sp = props(stage);
    const setting = (sp.AccessLogSetting ?? {}) as { [key: string]: Json };
    accessLog = {
      format: String(setting.Format ?? ''),
      retentionDays: retentionOf(template, refOf(setting.DestinationArn)),
    };
    const methods = (sp.MethodSettings ?? []) as { [key: string]: Json }[];
    executionLogLevel = methods.map((m) => String(m.LoggingLevel ?? 'OFF')).join(',') || 'OFF';
  } else if (api === 'http') {
    const [, stage] = exactlyOne(template, 'AWS::ApiGatewayV2::Stage', () => true);
    const setting = (props(stage).AccessLogSettings ?? {}) as { [key: string]: Json };
    accessLog = {
      format: String(setting.Format ?? ''),
      retentionDays: retentionOf(template, refOf(setting.DestinationArn)),
    };
  }

  const webAcls = only(template, 'AWS::WAFv2::WebACL');
  const ruleNames = webAcls.flatMap(([, r]) =>
    ((props(r).Rules ?? []) as { [key: string]: Json }[]).map((rule) => String(rule.Name)),
  );

  const payloadBucketId = verify.bucketRef;
  if (!payloadBucketId) throw new Error(`the verify Lambda's ${ENV.bucket} names no bucket`);
  const payloadBucket = template.Resources[payloadBucketId];
  const logging = props(payloadBucket).LoggingConfiguration as { [key: string]: Json } | undefined;
  // A log bucket outside the template (serverAccessLogsBucket) has an expiry this cannot see: null.
  const payloadAccessLogs = logging
    ? { expirationDays: expirationDaysOf(template.Resources[refOf(logging.DestinationBucketName) ?? '']) }
    : null;

  const alarms = only(template, 'AWS::CloudWatch::Alarm');
  // A metric-math alarm is billed per metric it reads; a plain alarm reads one.
  const alarmMetrics = alarms.reduce((sum, [, r]) => {
    const metrics = props(r).Metrics;
    if (!Array.isArray(metrics)) return sum + 1;
    return sum + metrics.filter((m) => m && typeof m === 'object' && 'MetricStat' in m).length;
  }, 0);

  return {
    api,
    verify,
    processor: functionFacts(template, processorId),
    forwarder: forwarderFacts(template, mappingId),
    eventSource: {
      // The batching window defaults to 0.
      batchSize: batchSizeOf(mp),
      maxBatchingWindowSeconds:
        typeof mp.MaximumBatchingWindowInSeconds === 'number' ? mp.MaximumBatchingWindowInSeconds : 0,
      functionResponseTypes: Array.isArray(mp.FunctionResponseTypes)
        ? mp.FunctionResponseTypes.map(String)
        : [],
    },
    table: {
      billingMode: String(tp.BillingMode ?? 'PROVISIONED'),
      pitr:
        (tp.PointInTimeRecoverySpecification as { [key: string]: Json } | undefined)
          ?.PointInTimeRecoveryEnabled === true,
      ttlAttribute: ttl?.Enabled === true ? String(ttl.AttributeName) : null,
      tableClass: String(tp.TableClass ?? 'STANDARD'),
    },
    accessLog,
    executionLogLevel,
    waf: { webAcls: webAcls.length, rules: ruleNames.length, ruleNames },
    payloadExpirationDays: expirationDaysOf(payloadBucket, PAYLOADS_PREFIX),
    payloadAccessLogs,
    monthly: {
      secrets: only(template, 'AWS::SecretsManager::Secret').length,
      alarms: alarms.length,
      alarmMetrics,
      dashboards: only(template, 'AWS::CloudWatch::Dashboard').length,
    },
  };
}
