// What the cost of a webhook depends on, read from a synthesized CloudFormation template: each Lambda's
// memory, architecture, timeout and log group, the SQS event source's batch settings, the table's billing
// mode, PITR and TTL, the access log format, WAF, the payload bucket's expiry, and what is billed by the
// month (secrets, alarm metrics, dashboards). Functions are found by structure, not by name: the processor
// is the event source mapping's target, the verify Lambda is the one API Gateway may invoke.

import { ENV } from '../../config/runtime';

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
  /** The config variable (ENV.config in config/runtime.ts), when it is a literal string. */
  configEnv: string | null;
}

export interface TemplateFacts {
  api: 'rest' | 'http';
  verify: FunctionFacts;
  processor: FunctionFacts;
  eventSource: { batchSize: number; maxBatchingWindowSeconds: number; functionResponseTypes: string[] };
  table: { billingMode: string; pitr: boolean; ttlAttribute: string | null; tableClass: string };
  accessLog: { format: string; retentionDays: number | null };
  /** REST stages only: execution logging level (ERROR logs nothing for a 2xx). */
  executionLogLevel: string | null;
  waf: { webAcls: number; rules: number; ruleNames: string[] };
  payloadExpirationDays: number | null;
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
    configEnv: typeof config === 'string' ? config : null,
  };
}

export function templateFacts(template: CfnTemplate, api: 'rest' | 'http'): TemplateFacts {
  const [, mapping] = exactlyOne(template, 'AWS::Lambda::EventSourceMapping', () => true);
  const mp = props(mapping);
  const processorId = refOf(mp.FunctionName);
  if (!processorId) throw new Error('the event source mapping names no function');
  const [, permission] = exactlyOne(
    template,
    'AWS::Lambda::Permission',
    (r) => props(r).Principal === 'apigateway.amazonaws.com',
  );
  const verifyId = refOf(props(permission).FunctionName);
  if (!verifyId) throw new Error('the API Gateway permission names no function');

  const [, table] = exactlyOne(template, 'AWS::DynamoDB::Table', () => true);
  const tp = props(table);
  const ttl = tp.TimeToLiveSpecification as { [key: string]: Json } | undefined;

  let accessLog: TemplateFacts['accessLog'];
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
  } else {
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

  let payloadExpirationDays: number | null = null;
  for (const [, bucket] of only(template, 'AWS::S3::Bucket')) {
    const rules = ((props(bucket).LifecycleConfiguration as { [key: string]: Json } | undefined)?.Rules ??
      []) as { [key: string]: Json }[];
    for (const rule of rules) {
      if (rule.Status === 'Enabled' && typeof rule.ExpirationInDays === 'number')
        payloadExpirationDays = rule.ExpirationInDays;
    }
  }

  const alarms = only(template, 'AWS::CloudWatch::Alarm');
  // A metric-math alarm is billed per metric it reads; a plain alarm reads one.
  const alarmMetrics = alarms.reduce((sum, [, r]) => {
    const metrics = props(r).Metrics;
    if (!Array.isArray(metrics)) return sum + 1;
    return sum + metrics.filter((m) => m && typeof m === 'object' && 'MetricStat' in m).length;
  }, 0);

  return {
    api,
    verify: functionFacts(template, verifyId),
    processor: functionFacts(template, processorId),
    eventSource: {
      // CloudFormation's default batch size for SQS is 10; the batching window defaults to 0.
      batchSize: typeof mp.BatchSize === 'number' ? mp.BatchSize : 10,
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
    payloadExpirationDays,
    monthly: {
      secrets: only(template, 'AWS::SecretsManager::Secret').length,
      alarms: alarms.length,
      alarmMetrics,
      dashboards: only(template, 'AWS::CloudWatch::Dashboard').length,
    },
  };
}
