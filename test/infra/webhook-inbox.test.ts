// The REST stack as shipped (cdk.json config, default props): one test per promise the template makes.
import { Annotations, Match, type Template } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Config } from '../../config/index';
import { decodeLambdaConfig } from '../../config/lambda-config';
import { QUEUE_MAX_MESSAGE_BYTES } from '../../config/limits';
import {
  DLQ_RETENTION_SECONDS,
  INBOX_TABLE,
  LAMBDA_DEFAULTS,
  payloadExpiryDays,
  queueRetentionSeconds,
} from '../../config/resources';
import { ENV } from '../../config/runtime';
import {
  METRICS_NAMESPACE,
  outputSuffix,
  SERVICE,
  STACK_OUTPUTS,
  VERIFY_METRICS,
} from '../../config/telemetry';
import { ACCESS_LOG_EXPIRY_DAYS } from '../../lib/webhook-inbox';
import type { WebhookInboxStack } from '../../lib/webhook-inbox-stack';
import {
  accountArn,
  actionsOf,
  allStatements,
  functionIdOf,
  logicalIdOf,
  projectConfig,
  resourcesOf,
  STACK_NAME,
  synthStack,
} from './synth';

let template: Template;
let stack: WebhookInboxStack;
let config: Config;

/** The Lambdas of the shipped stack: without destinations there is no forwarder (destinations.test.ts). */
const INBOX_SERVICES = [SERVICE.verify, SERVICE.process];

type Props = Record<string, unknown>;
const props = (r: { Properties?: Props }) => r.Properties ?? {};

const functionId = (service: string) => functionIdOf(template, service);

function functionProps(service: string): Props {
  return props(template.toJSON().Resources[functionId(service)]);
}

function roleOf(service: string): string {
  return (functionProps(service).Role as { 'Fn::GetAtt': [string, string] })['Fn::GetAtt'][0];
}

/** Actions each role's policies allow, by role logical id. */
function allowedActionsByRole(): Map<string, Set<string>> {
  const byRole = new Map<string, Set<string>>();
  for (const policy of Object.values(resourcesOf(template, 'AWS::IAM::Policy'))) {
    const roles = (props(policy).Roles as { Ref: string }[]).map((r) => r.Ref);
    const statements = (
      props(policy).PolicyDocument as { Statement: { Effect: string; Action: string | string[] }[] }
    ).Statement;
    for (const role of roles) {
      const set = byRole.get(role) ?? new Set<string>();
      for (const s of statements) if (s.Effect === 'Allow') for (const a of [s.Action].flat()) set.add(a);
      byRole.set(role, set);
    }
  }
  return byRole;
}

beforeAll(() => {
  ({ template, stack } = synthStack());
  config = projectConfig();
});

describe('API Gateway REST API', () => {
  it('treats every content type as binary, so the Lambda gets the exact bytes (binaryMediaTypes */*)', () => {
    template.hasResourceProperties('AWS::ApiGateway::RestApi', { BinaryMediaTypes: ['*/*'] });
  });

  it('has only /webhooks/{provider}, where POST is the one method that invokes a Lambda', () => {
    const resources = Object.values(resourcesOf(template, 'AWS::ApiGateway::Resource')).map(
      (r) => props(r).PathPart,
    );
    expect(resources.sort()).toEqual(['webhooks', '{provider}']);

    const methods = Object.values(resourcesOf(template, 'AWS::ApiGateway::Method')).map(props);
    const lambdaMethods = methods.filter((m) => (m.Integration as Props).Type === 'AWS_PROXY');
    expect(lambdaMethods.map((m) => m.HttpMethod)).toEqual(['POST']);
    const providerResource = logicalIdOf(
      template,
      'AWS::ApiGateway::Resource',
      (r) => props(r).PathPart === '{provider}',
    );
    expect(lambdaMethods[0]).toMatchObject({
      ResourceId: { Ref: providerResource },
      RequestParameters: { 'method.request.path.provider': true },
    });
    // The verify Lambda may be invoked by POST /webhooks/* of this API in this account only.
    template.hasResourceProperties('AWS::Lambda::Permission', {
      Principal: 'apigateway.amazonaws.com',
      SourceAccount: { Ref: 'AWS::AccountId' },
      SourceArn: { 'Fn::Join': ['', Match.arrayWith([Match.stringLikeRegexp('/POST/webhooks/\\*$')])] },
    });
    expect(resourcesOf(template, 'AWS::Lambda::Permission')).toSatisfy(
      (p: object) => Object.keys(p).length === 1,
    );
  });

  it('answers other methods on /webhooks/{provider} with 405 and Allow: POST from a mock, not the Lambda', () => {
    template.hasResourceProperties('AWS::ApiGateway::Method', {
      HttpMethod: 'ANY',
      Integration: Match.objectLike({
        Type: 'MOCK',
        RequestTemplates: { 'application/json': '{"statusCode":405}' },
        IntegrationResponses: [
          Match.objectLike({
            StatusCode: '405',
            ResponseParameters: { 'method.response.header.Allow': "'POST'" },
          }),
        ],
      }),
    });
    template.hasResourceProperties('AWS::ApiGateway::GatewayResponse', {
      ResponseType: 'UNSUPPORTED_MEDIA_TYPE',
      StatusCode: '405',
      ResponseParameters: { 'gatewayresponse.header.Allow': "'POST'" },
    });
  });

  it('answers unknown paths with 404 instead of 403 Missing Authentication Token', () => {
    template.hasResourceProperties('AWS::ApiGateway::GatewayResponse', {
      ResponseType: 'MISSING_AUTHENTICATION_TOKEN',
      StatusCode: '404',
    });
  });

  it('throttles the stage, logs access to a log group with retention, and never logs request data', () => {
    const stage = Object.values(resourcesOf(template, 'AWS::ApiGateway::Stage')).map(props)[0]!;
    expect(stage.MethodSettings).toEqual([
      expect.objectContaining({
        ThrottlingRateLimit: 200,
        ThrottlingBurstLimit: 400,
        DataTraceEnabled: false,
        LoggingLevel: 'ERROR',
      }),
    ]);
    const logGroup = (stage.AccessLogSetting as { DestinationArn: { 'Fn::GetAtt': [string] } })
      .DestinationArn['Fn::GetAtt'][0];
    expect(template.toJSON().Resources[logGroup].Properties.RetentionInDays).toBe(30);
    expect(stage.TracingEnabled).toBe(false);
  });
});

describe('WAF', () => {
  it('associates a regional web ACL with the REST stage', () => {
    const webAcl = logicalIdOf(template, 'AWS::WAFv2::WebACL', () => true);
    const stageId = logicalIdOf(template, 'AWS::ApiGateway::Stage', () => true);
    template.hasResourceProperties('AWS::WAFv2::WebACL', { Scope: 'REGIONAL', DefaultAction: { Allow: {} } });
    template.hasResourceProperties('AWS::WAFv2::WebACLAssociation', {
      WebACLArn: { 'Fn::GetAtt': [webAcl, 'Arn'] },
      ResourceArn: { 'Fn::Join': ['', Match.arrayWith([{ Ref: stageId }])] },
    });
  });

  it('blocks by AWS IP reputation and a per-IP rate limit, and leaves out the common rule set (8 KB body limit)', () => {
    const [acl] = Object.values(resourcesOf(template, 'AWS::WAFv2::WebACL')).map(props);
    const rules = acl!.Rules as Props[];
    expect(rules).toHaveLength(2);
    expect(rules).toContainEqual(
      expect.objectContaining({
        Statement: {
          ManagedRuleGroupStatement: { VendorName: 'AWS', Name: 'AWSManagedRulesAmazonIpReputationList' },
        },
        OverrideAction: { None: {} },
      }),
    );
    expect(rules).toContainEqual(
      expect.objectContaining({
        Action: { Block: {} },
        Statement: { RateBasedStatement: { Limit: 2000, AggregateKeyType: 'IP', EvaluationWindowSec: 300 } },
      }),
    );
    expect(JSON.stringify(rules)).not.toContain('AWSManagedRulesCommonRuleSet');
  });

  it('logs blocked requests only, to an aws-waf-logs-* group', () => {
    template.hasResourceProperties('AWS::Logs::LogGroup', {
      LogGroupName: Match.stringLikeRegexp('^aws-waf-logs-'),
    });
    template.hasResourceProperties('AWS::WAFv2::LoggingConfiguration', {
      LoggingFilter: Match.objectLike({ DefaultBehavior: 'DROP' }),
    });
  });
});

describe('inbox table', () => {
  it(`keys on the ${INBOX_TABLE.partitionKey} string attribute, on demand`, () => {
    template.hasResourceProperties('AWS::DynamoDB::Table', {
      KeySchema: [{ AttributeName: INBOX_TABLE.partitionKey, KeyType: 'HASH' }],
      AttributeDefinitions: Match.arrayWith([
        { AttributeName: INBOX_TABLE.partitionKey, AttributeType: 'S' },
      ]),
      BillingMode: 'PAY_PER_REQUEST',
    });
  });

  it('has exactly one index, the listing index, with its keys and projection as docs/listing.md gives them', () => {
    // Literals, not the constants the stack imports: a renamed key or a wider projection must show here.
    // One index only: CloudFormation cannot add two GSIs to a deployed table in one update.
    const [table] = Object.values(resourcesOf(template, 'AWS::DynamoDB::Table')) as {
      Properties: Record<string, unknown>;
    }[];
    expect(table?.Properties.GlobalSecondaryIndexes).toEqual([
      {
        IndexName: 'list-by-time',
        KeySchema: [
          { AttributeName: 'listKey', KeyType: 'HASH' },
          { AttributeName: 'listSort', KeyType: 'RANGE' },
        ],
        Projection: { ProjectionType: 'INCLUDE', NonKeyAttributes: ['deliveryId'] },
      },
    ]);
    expect(table?.Properties.AttributeDefinitions).toEqual(
      expect.arrayContaining([
        { AttributeName: 'listKey', AttributeType: 'S' },
        { AttributeName: 'listSort', AttributeType: 'S' },
      ]),
    );
  });

  it('grants no Lambda the listing index: table actions name the table only', () => {
    const dynamoResources = allStatements(template)
      .filter(({ statement }) => actionsOf(statement).some((a) => a.startsWith('dynamodb:')))
      .flatMap(({ statement }) => [statement.Resource].flat());
    expect(dynamoResources.length).toBeGreaterThan(0);
    expect(JSON.stringify(dynamoResources)).not.toContain('/index/');
  });

  it(`expires items through TTL on ${INBOX_TABLE.ttlAttribute}`, () => {
    template.hasResourceProperties('AWS::DynamoDB::Table', {
      TimeToLiveSpecification: { AttributeName: 'expiresAt', Enabled: true },
    });
  });

  it('has point-in-time recovery and KMS encryption, and is retained when removed from the stack', () => {
    template.hasResource('AWS::DynamoDB::Table', {
      Properties: Match.objectLike({
        PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true },
        SSESpecification: { SSEEnabled: true },
      }),
      DeletionPolicy: 'Retain',
      UpdateReplacePolicy: 'Retain',
    });
  });
});

describe('queues', () => {
  const queues = () => {
    const all = Object.entries(resourcesOf(template, 'AWS::SQS::Queue'));
    const main = all.find(([, q]) => props(q).RedrivePolicy);
    const dlq = all.find(([, q]) => !props(q).RedrivePolicy);
    if (!main || !dlq) throw new Error('expected a queue and a dead-letter queue');
    const withId = ([id, q]: [string, { Properties?: Props }]): Props & { id: string } => ({
      id,
      ...props(q),
    });
    return { main: withId(main), dlq: withId(dlq) };
  };

  it('redrives to the DLQ after one receive per retry step plus the first (maxReceiveCount 12 by default)', () => {
    const { main, dlq } = queues();
    expect(main.RedrivePolicy).toEqual({
      deadLetterTargetArn: { 'Fn::GetAtt': [dlq.id, 'Arn'] },
      maxReceiveCount: config.queue.retrySchedule.length + 1,
    });
    expect(config.queue.retrySchedule).toHaveLength(11);
  });

  it('lets only the main queue use the DLQ (redriveAllowPolicy byQueue, by a name-built ARN: no cycle)', () => {
    const { main, dlq } = queues();
    expect(dlq.RedriveAllowPolicy).toEqual({
      redrivePermission: 'byQueue',
      sourceQueueArns: [accountArn('sqs', main.QueueName as string)],
    });
    expect(main.QueueName).toBe(`${STACK_NAME}-Inbox-queue`);
  });

  it('keeps dead letters longer than the queue keeps messages', () => {
    const { main, dlq } = queues();
    expect(main.MessageRetentionPeriod).toBe(queueRetentionSeconds(config));
    expect(dlq.MessageRetentionPeriod).toBe(DLQ_RETENTION_SECONDS);
    expect(dlq.MessageRetentionPeriod as number).toBeGreaterThan(main.MessageRetentionPeriod as number);
  });

  it('sets the visibility timeout to at least six times the processor timeout', () => {
    const { main } = queues();
    const timeout = functionProps(SERVICE.process).Timeout as number;
    expect(timeout).toBe(LAMBDA_DEFAULTS.processorTimeoutSeconds);
    expect(main.VisibilityTimeout as number).toBeGreaterThanOrEqual(6 * timeout);
  });

  it('encrypts both queues (SQS-managed SSE), denies non-TLS access and allows 1 MiB messages', () => {
    const { main, dlq } = queues();
    for (const q of [main, dlq]) {
      expect(q).toMatchObject({ SqsManagedSseEnabled: true, MaximumMessageSize: QUEUE_MAX_MESSAGE_BYTES });
      template.hasResourceProperties('AWS::SQS::QueuePolicy', {
        Queues: [{ Ref: q.id }],
        PolicyDocument: {
          Statement: Match.arrayWith([
            Match.objectLike({ Effect: 'Deny', Condition: { Bool: { 'aws:SecureTransport': 'false' } } }),
          ]),
        },
      });
    }
  });
});

describe('processor event source', () => {
  it('reports partial batch failures (FunctionResponseTypes ReportBatchItemFailures)', () => {
    template.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
      FunctionResponseTypes: ['ReportBatchItemFailures'],
    });
  });

  it('takes batch size and batching window from the config', () => {
    const [mapping] = Object.values(resourcesOf(template, 'AWS::Lambda::EventSourceMapping')).map(props);
    expect(mapping!.BatchSize).toBe(config.queue.batchSize);
    expect(mapping!.MaximumBatchingWindowInSeconds ?? 0).toBe(config.queue.maxBatchingWindowSeconds);
    expect(mapping!.FunctionName).toEqual({ Ref: functionId(SERVICE.process) });
  });
});

describe('Lambdas', () => {
  it('run on arm64', () => {
    for (const service of INBOX_SERVICES) {
      expect(functionProps(service).Architectures).toEqual(['arm64']);
    }
  });

  it('run on nodejs22.x', () => {
    for (const service of INBOX_SERVICES) {
      expect(functionProps(service).Runtime).toBe('nodejs22.x');
    }
  });

  it('take timeouts and memory from LAMBDA_DEFAULTS and log to their own group with retention', () => {
    expect(functionProps(SERVICE.verify)).toMatchObject({
      Timeout: LAMBDA_DEFAULTS.verifyTimeoutSeconds,
      MemorySize: LAMBDA_DEFAULTS.verifyMemoryMb,
    });
    expect(functionProps(SERVICE.process)).toMatchObject({
      Timeout: LAMBDA_DEFAULTS.processorTimeoutSeconds,
      MemorySize: LAMBDA_DEFAULTS.processorMemoryMb,
    });
    for (const service of INBOX_SERVICES) {
      const { LogGroup } = functionProps(service).LoggingConfig as { LogGroup: { Ref: string } };
      expect(template.toJSON().Resources[LogGroup.Ref].Properties.RetentionInDays).toBe(30);
    }
  });

  it('log JSON, filtered by Lambda at the app level INFO and the platform level WARN (no START/REPORT lines)', () => {
    for (const service of INBOX_SERVICES) {
      expect(functionProps(service).LoggingConfig).toMatchObject({
        LogFormat: 'JSON',
        ApplicationLogLevel: 'INFO',
        SystemLogLevel: 'WARN',
      });
    }
  });

  it('get the runtime environment of config/runtime.ts, and only verify learns the secret ARNs', () => {
    const verify = (functionProps(SERVICE.verify).Environment as { Variables: Props }).Variables;
    const processor = (functionProps(SERVICE.process).Environment as { Variables: Props }).Variables;
    for (const name of [ENV.config, ENV.table, ENV.queueUrl, ENV.dlqUrl, ENV.bucket]) {
      expect(verify).toHaveProperty([name]);
      expect(processor).toHaveProperty([name]);
    }
    expect(verify).toHaveProperty([ENV.secretArns]);
    expect(processor).not.toHaveProperty([ENV.secretArns]);
    // Verify's signed PutObject goes to the bucket's regional virtual-hosted name, the partition's suffix
    // included; the processor reads through the S3 client and needs no URL.
    expect(verify[ENV.bucketUrl]).toEqual({
      'Fn::Join': [
        '',
        ['https://', { 'Fn::GetAtt': [expect.stringMatching(/PayloadBucket/), 'RegionalDomainName'] }, '/'],
      ],
    });
    expect(processor).not.toHaveProperty([ENV.bucketUrl]);
    expect(verify).toMatchObject({
      POWERTOOLS_SERVICE_NAME: SERVICE.verify,
      POWERTOOLS_METRICS_NAMESPACE: METRICS_NAMESPACE,
      POWERTOOLS_LOG_LEVEL: 'INFO',
      NODE_OPTIONS: '--enable-source-maps',
    });
    expect(processor).toMatchObject({ POWERTOOLS_SERVICE_NAME: SERVICE.process });
  });

  it('pass the resolved stack config, which the Lambdas decode without the schema, unchanged', () => {
    for (const service of INBOX_SERVICES) {
      const encoded = (functionProps(service).Environment as { Variables: Props }).Variables[
        ENV.config
      ] as string;
      expect(decodeLambdaConfig(encoded)).toEqual(config);
    }
  });

  it("keep their environment under Lambda's 4 KB limit with every default provider", () => {
    expect(Object.keys(config.providers)).toHaveLength(11);
    Annotations.fromStack(stack).hasNoWarning('*', Match.stringLikeRegexp('4 KB'));
  });

  // The warning must be able to fire, or its absence above proves nothing: a config whose providers'
  // secret ARNs alone push the verify Lambda's environment over 4096 bytes, and processor variables that
  // push the processor's.
  it("warn at synth when a config pushes the verify Lambda's environment over Lambda's 4 KB limit", () => {
    const providers = Object.fromEntries(
      Array.from({ length: 40 }, (_, i) => [`partner-${String(i).padStart(2, '0')}`, { scheme: 'github' }]),
    );
    const crowded = synthStack({ context: { webhookInbox: { providers } } }).stack;
    const warnings = Annotations.fromStack(crowded).findWarning(
      '*',
      Match.stringLikeRegexp(
        "The Verify Lambda's environment may reach \\d+ bytes, over Lambda's 4 KB limit",
      ),
    );
    expect(warnings).toHaveLength(1);
    const bytes = Number(/may reach (\d+) bytes/.exec(String(warnings[0]?.entry.data))?.[1]);
    expect(bytes).toBeGreaterThan(4096);
  });

  it("warn at synth when processorEnvironment pushes the processor's environment over 4 KB, and only there", () => {
    const padded = synthStack({
      inbox: { processorEnvironment: { HANDLER_SETTINGS: 'x'.repeat(4096) } },
    }).stack;
    const warnings = Annotations.fromStack(padded).findWarning('*', Match.stringLikeRegexp('4 KB limit'));
    expect(warnings.map((w) => String(w.entry.data).split("'")[0])).toEqual(['The Processor Lambda']);
  });
});

describe('least privilege', () => {
  it('allows no wildcard action ("*" or "service:*") anywhere in the template', () => {
    const allowed = allStatements(template).filter(({ statement }) => statement.Effect === 'Allow');
    expect(allowed.length).toBeGreaterThan(0);
    for (const { statement } of allowed) {
      for (const action of actionsOf(statement)) {
        expect(action).not.toBe('*');
        expect(action).not.toMatch(/^[a-z0-9-]+:\*$/);
      }
    }
  });

  it('lets only the verify role read secrets, and only the provider secrets', () => {
    const readers = allStatements(template).filter(
      ({ statement }) =>
        statement.Effect === 'Allow' && actionsOf(statement).some((a) => a.startsWith('secretsmanager:')),
    );
    expect(readers).toHaveLength(1);
    const [{ logicalId, statement }] = readers as [(typeof readers)[0]];
    const policy = template.toJSON().Resources[logicalId].Properties;
    expect(policy.Roles).toEqual([{ Ref: roleOf(SERVICE.verify) }]);
    expect(actionsOf(statement)).toEqual(['secretsmanager:GetSecretValue']);
    const secretIds = Object.keys(resourcesOf(template, 'AWS::SecretsManager::Secret'));
    expect(statement.Resource).toEqual(secretIds.map((id) => ({ Ref: id })));
  });

  it('gives the verify Lambda exactly its DynamoDB, SQS, S3 and secret actions', () => {
    expect([...(allowedActionsByRole().get(roleOf(SERVICE.verify)) ?? [])].sort()).toEqual(
      [
        'dynamodb:GetItem',
        'dynamodb:PutItem',
        'dynamodb:UpdateItem',
        'logs:CreateLogStream',
        'logs:PutLogEvents',
        's3:PutObject',
        'secretsmanager:GetSecretValue',
        'sqs:SendMessage',
      ].sort(),
    );
  });

  it('gives the processor exactly its DynamoDB, S3, backoff and event-source actions, and no SendMessage', () => {
    // No sqs:SendMessage at all: every DLQ message gets there through the redrive policy, so SQS sets its
    // DeadLetterQueueSourceArn and the console's "Start DLQ redrive" can move every one of them back.
    expect([...(allowedActionsByRole().get(roleOf(SERVICE.process)) ?? [])].sort()).toEqual(
      [
        'dynamodb:GetItem',
        'dynamodb:UpdateItem',
        'logs:CreateLogStream',
        'logs:PutLogEvents',
        's3:GetObject',
        's3:ListBucket',
        's3:PutObject',
        'sqs:ChangeMessageVisibility',
        'sqs:DeleteMessage',
        'sqs:GetQueueAttributes',
        'sqs:GetQueueUrl',
        'sqs:ReceiveMessage',
      ].sort(),
    );
  });

  it('uses no AWS managed policy on the Lambda roles', () => {
    for (const service of INBOX_SERVICES) {
      expect(template.toJSON().Resources[roleOf(service)].Properties.ManagedPolicyArns).toBeUndefined();
    }
  });
});

/** Both buckets: every public access blocked, encrypted with S3-managed keys. */
const PRIVATE_SSE_S3_BUCKET = {
  PublicAccessBlockConfiguration: {
    BlockPublicAcls: true,
    BlockPublicPolicy: true,
    IgnorePublicAcls: true,
    RestrictPublicBuckets: true,
  },
  BucketEncryption: {
    ServerSideEncryptionConfiguration: [{ ServerSideEncryptionByDefault: { SSEAlgorithm: 'AES256' } }],
  },
};

describe('payload bucket', () => {
  it('blocks public access, requires TLS, encrypts with S3-managed keys and expires objects after every message that can point at them', () => {
    template.hasResourceProperties('AWS::S3::Bucket', {
      ...PRIVATE_SSE_S3_BUCKET,
      LifecycleConfiguration: {
        Rules: Match.arrayWith([
          Match.objectLike({
            ExpirationInDays: Math.max(payloadExpiryDays(), config.archive.retentionDays),
            Status: 'Enabled',
          }),
        ]),
      },
    });
    template.hasResourceProperties('AWS::S3::BucketPolicy', {
      PolicyDocument: {
        Statement: Match.arrayWith([
          Match.objectLike({ Effect: 'Deny', Condition: { Bool: { 'aws:SecureTransport': 'false' } } }),
        ]),
      },
    });
  });
});

describe('payload bucket server access logs', () => {
  const buckets = () => resourcesOf(template, 'AWS::S3::Bucket');
  const payloadBucketId = () =>
    logicalIdOf(template, 'AWS::S3::Bucket', (b) => props(b).LoggingConfiguration !== undefined);
  const logBucketId = () =>
    logicalIdOf(template, 'AWS::S3::Bucket', (b) => props(b).LoggingConfiguration === undefined);

  it('are on by default, to a bucket of their own under payloads/', () => {
    expect(Object.keys(buckets())).toHaveLength(2);
    expect(props(buckets()[payloadBucketId()]!).LoggingConfiguration).toEqual({
      DestinationBucketName: { Ref: logBucketId() },
      LogFilePrefix: 'payloads/',
    });
  });

  it(`go to a private, TLS-only, SSE-S3 bucket without ACLs that expires them after ${ACCESS_LOG_EXPIRY_DAYS} days`, () => {
    expect(props(buckets()[logBucketId()]!)).toMatchObject({
      ...PRIVATE_SSE_S3_BUCKET,
      OwnershipControls: { Rules: [{ ObjectOwnership: 'BucketOwnerEnforced' }] },
      LifecycleConfiguration: {
        Rules: [expect.objectContaining({ ExpirationInDays: ACCESS_LOG_EXPIRY_DAYS, Status: 'Enabled' })],
      },
    });
    expect(props(buckets()[logBucketId()]!)).not.toHaveProperty('AccessControl');
    expect(buckets()[logBucketId()]!.DeletionPolicy).toBe('Retain');
  });

  it('are delivered by bucket policy to the S3 logging service, for this bucket and account only, over TLS', () => {
    const [policy] = Object.values(resourcesOf(template, 'AWS::S3::BucketPolicy'))
      .map(props)
      .filter((p) => JSON.stringify(p.Bucket) === JSON.stringify({ Ref: logBucketId() }));
    const statements = (policy!.PolicyDocument as { Statement: Props[] }).Statement;
    expect(statements).toContainEqual({
      Effect: 'Allow',
      Principal: { Service: 'logging.s3.amazonaws.com' },
      Action: 's3:PutObject',
      Resource: { 'Fn::Join': ['', [{ 'Fn::GetAtt': [logBucketId(), 'Arn'] }, '/payloads/*']] },
      Condition: {
        ArnLike: { 'aws:SourceArn': { 'Fn::GetAtt': [payloadBucketId(), 'Arn'] } },
        StringEquals: { 'aws:SourceAccount': { Ref: 'AWS::AccountId' } },
      },
    });
    expect(statements).toContainEqual(
      expect.objectContaining({ Effect: 'Deny', Condition: { Bool: { 'aws:SecureTransport': 'false' } } }),
    );
  });
});

describe('provider secrets', () => {
  it('creates one secret per configured provider, retained on removal', () => {
    const secrets = Object.values(resourcesOf(template, 'AWS::SecretsManager::Secret'));
    expect(secrets).toHaveLength(Object.keys(config.providers).length);
    for (const secret of secrets) {
      expect(secret.DeletionPolicy).toBe('Retain');
      expect(props(secret).Description).toContain('put-secret-value');
    }
  });
});

describe('alarms', () => {
  it('notify the alarm topic on ALARM and OK', () => {
    const topic = logicalIdOf(template, 'AWS::SNS::Topic', () => true);
    const alarms = Object.values(resourcesOf(template, 'AWS::CloudWatch::Alarm')).map(props);
    expect(alarms).toHaveLength(6);
    for (const alarm of alarms) {
      expect(alarm.AlarmActions).toEqual([{ Ref: topic }]);
      expect(alarm.OKActions).toEqual([{ Ref: topic }]);
    }
  });

  it('fire on any message in the DLQ', () => {
    const dlq = logicalIdOf(template, 'AWS::SQS::Queue', (q) => !props(q).RedrivePolicy);
    template.hasResourceProperties('AWS::CloudWatch::Alarm', {
      MetricName: 'ApproximateNumberOfMessagesVisible',
      Dimensions: [{ Name: 'QueueName', Value: { 'Fn::GetAtt': [dlq, 'QueueName'] } }],
      Threshold: 0,
      ComparisonOperator: 'GreaterThanThreshold',
    });
  });

  it('fire when the oldest queued message has waited two of the longest retry steps (24 h by default)', () => {
    template.hasResourceProperties('AWS::CloudWatch::Alarm', {
      MetricName: 'ApproximateAgeOfOldestMessage',
      Threshold: 86_400,
    });
  });

  it('fire on a spike of SignatureFailure in the verify service', () => {
    template.hasResourceProperties('AWS::CloudWatch::Alarm', {
      Namespace: METRICS_NAMESPACE,
      MetricName: VERIFY_METRICS.signatureFailure,
      Dimensions: [{ Name: 'service', Value: SERVICE.verify }],
      Statistic: 'Sum',
      Period: 300,
      Threshold: 20,
    });
  });

  it('fire on the 5xx share of API responses and on processor errors and throttles', () => {
    template.hasResourceProperties('AWS::CloudWatch::Alarm', {
      Metrics: Match.arrayWith([
        Match.objectLike({ Expression: 'IF(requests > 0, 100 * errors / requests, 0)' }),
        Match.objectLike({
          Id: 'errors',
          MetricStat: Match.objectLike({ Metric: Match.objectLike({ MetricName: '5XXError' }) }),
        }),
      ]),
      Threshold: 5,
    });
    for (const metric of ['Errors', 'Throttles']) {
      template.hasResourceProperties('AWS::CloudWatch::Alarm', {
        Namespace: 'AWS/Lambda',
        MetricName: metric,
        Dimensions: [{ Name: 'FunctionName', Value: { Ref: functionId(SERVICE.process) } }],
      });
    }
  });

  it('come with a dashboard that shows the EMF metrics', () => {
    const [dashboard] = Object.values(resourcesOf(template, 'AWS::CloudWatch::Dashboard')).map(props);
    const body = JSON.stringify(dashboard!.DashboardBody);
    for (const metric of Object.values(VERIFY_METRICS)) expect(body).toContain(metric);
  });
});

describe('outputs', () => {
  it('publish every name the CLI reads, one endpoint and one secret ARN per provider', () => {
    const outputs = template.toJSON().Outputs as Record<string, unknown>;
    const expected = [
      STACK_OUTPUTS.apiUrl,
      STACK_OUTPUTS.queueUrl,
      STACK_OUTPUTS.queueArn,
      STACK_OUTPUTS.dlqUrl,
      STACK_OUTPUTS.dlqArn,
      STACK_OUTPUTS.tableName,
      STACK_OUTPUTS.bucketName,
      ...Object.keys(config.providers).flatMap((id) => [
        `${STACK_OUTPUTS.endpointPrefix}${outputSuffix(id)}`,
        `${STACK_OUTPUTS.secretArnPrefix}${outputSuffix(id)}`,
      ]),
    ];
    expect(Object.keys(outputs).sort()).toEqual(expected.sort());
  });

  it('give each provider the URL <api url>/webhooks/<provider id>', () => {
    template.hasOutput('EndpointStandardWebhooks', {
      Value: { 'Fn::Join': ['', Match.arrayWith([Match.stringLikeRegexp('/webhooks/standard-webhooks$')])] },
    });
  });
});
