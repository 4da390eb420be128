// Non-default props and config: one stack built with all of them, each promise checked separately.
import { Duration, RemovalPolicy, Stack } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import * as s3 from 'aws-cdk-lib/aws-s3';
import * as sns from 'aws-cdk-lib/aws-sns';
import { beforeAll, describe, expect, it } from 'vitest';
import { parseConfig } from '../../config/index';
import { ENV } from '../../config/runtime';
import { WebhookInbox, type WebhookInboxProps } from '../../lib/webhook-inbox';
import { createApp, resourcesOf } from './synth';

const IMPORTED_ARN = 'arn:aws:secretsmanager:eu-west-1:123456789012:secret:partners/acme-AbC123';

let template: Template;
let stack: Stack;

beforeAll(() => {
  stack = new Stack(createApp(), 'Custom');
  const config = parseConfig({
    providers: {
      github: { scheme: 'github' },
      acme: {
        scheme: 'generic-hmac',
        options: { signatureHeader: 'X-Acme-Signature', encoding: 'base64' },
        secretArn: IMPORTED_ARN,
      },
    },
    queue: {
      retrySchedule: ['1m', '2m', '4m', '8m', '16m', '32m', '1h'],
      batchSize: 5,
      maxBatchingWindowSeconds: 2,
    },
  });
  new WebhookInbox(stack, 'Inbox', {
    config,
    waf: false,
    tracing: true,
    processorTimeout: Duration.seconds(60),
    processorMaxConcurrency: 4,
    verifyReservedConcurrency: 50,
    removalPolicy: RemovalPolicy.DESTROY,
    alarmTopic: sns.Topic.fromTopicArn(stack, 'Ops', 'arn:aws:sns:eu-west-1:123456789012:ops'),
    processorEnvironment: { CRM_URL: 'https://crm.example' },
    dashboard: false,
    serverAccessLogsExpiry: Duration.days(30),
    serverAccessLogsPrefix: 'inbox/',
    logLevel: 'DEBUG',
    platformLogLevel: 'INFO',
  });
  template = Template.fromStack(stack);
});

const verifyEnvironment = () =>
  Object.values(resourcesOf(template, 'AWS::Lambda::Function'))
    .map(
      (f) =>
        (f.Properties?.Environment as { Variables: Record<string, unknown> } | undefined)?.Variables ?? {},
    )
    .find((v) => ENV.secretArns in v)!;

describe('a provider with secretArn', () => {
  it('imports that secret instead of creating one, and lets verify read it by its ARN', () => {
    template.resourceCountIs('AWS::SecretsManager::Secret', 1);
    template.hasResourceProperties('AWS::IAM::Policy', {
      PolicyDocument: {
        Statement: Match.arrayWith([
          Match.objectLike({
            Action: 'secretsmanager:GetSecretValue',
            Resource: Match.arrayWith([IMPORTED_ARN]),
          }),
        ]),
      },
    });
    expect(JSON.stringify(verifyEnvironment()[ENV.secretArns])).toContain(IMPORTED_ARN);
  });

  it('must be complete (with the six-character suffix IAM grants need), or synth fails naming the key', () => {
    const partial = new Stack(createApp(), 'Partial');
    const secretArn = 'arn:aws:secretsmanager:eu-west-1:123456789012:secret:github';
    const config = parseConfig({ providers: { github: { scheme: 'github', secretArn } } });
    expect(() => new WebhookInbox(partial, 'Inbox', { config })).toThrow(
      'webhookInbox.providers.github.secretArn: must be the complete ARN',
    );
  });
});

describe('props', () => {
  it('logLevel and platformLogLevel reach both Lambdas as Lambda log levels (and POWERTOOLS_LOG_LEVEL)', () => {
    const functions = Object.values(resourcesOf(template, 'AWS::Lambda::Function')).filter(
      (f) =>
        (f.Properties?.Environment as { Variables?: Record<string, unknown> })?.Variables
          ?.POWERTOOLS_LOG_LEVEL,
    );
    expect(functions).toHaveLength(2);
    for (const f of functions) {
      expect(f.Properties?.LoggingConfig).toMatchObject({
        ApplicationLogLevel: 'DEBUG',
        SystemLogLevel: 'INFO',
      });
      expect(
        (f.Properties?.Environment as { Variables: Record<string, unknown> } | undefined)?.Variables
          .POWERTOOLS_LOG_LEVEL,
      ).toBe('DEBUG');
    }
  });

  it('waf: false leaves the REST stage without a web ACL', () => {
    template.resourceCountIs('AWS::ApiGateway::RestApi', 1);
    template.resourceCountIs('AWS::WAFv2::WebACL', 0);
    template.resourceCountIs('AWS::WAFv2::WebACLAssociation', 0);
  });

  it('tracing: true turns on X-Ray for the stage and both Lambdas', () => {
    template.hasResourceProperties('AWS::ApiGateway::Stage', { TracingEnabled: true });
    const functions = Object.values(resourcesOf(template, 'AWS::Lambda::Function'));
    for (const fn of functions) expect(fn.Properties?.TracingConfig).toEqual({ Mode: 'Active' });
  });

  it('processorTimeout sets the queue visibility to six times it', () => {
    template.hasResourceProperties('AWS::SQS::Queue', { VisibilityTimeout: 360 });
  });

  it('the config sets maxReceiveCount (7 retry steps: 8), batch size and batching window; the props cap concurrency', () => {
    template.hasResourceProperties('AWS::SQS::Queue', {
      RedrivePolicy: Match.objectLike({ maxReceiveCount: 8 }),
    });
    template.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
      BatchSize: 5,
      MaximumBatchingWindowInSeconds: 2,
      ScalingConfig: { MaximumConcurrency: 4 },
    });
    template.hasResourceProperties('AWS::Lambda::Function', { ReservedConcurrentExecutions: 50 });
  });

  it('removalPolicy applies to the table, bucket and log groups', () => {
    for (const type of ['AWS::DynamoDB::Table', 'AWS::S3::Bucket', 'AWS::Logs::LogGroup']) {
      for (const resource of Object.values(resourcesOf(template, type))) {
        expect(resource.DeletionPolicy).toBe('Delete');
      }
    }
  });

  it('alarmTopic sends every alarm to the existing topic and creates none', () => {
    template.resourceCountIs('AWS::SNS::Topic', 0);
    for (const alarm of Object.values(resourcesOf(template, 'AWS::CloudWatch::Alarm'))) {
      expect(alarm.Properties?.AlarmActions).toEqual(['arn:aws:sns:eu-west-1:123456789012:ops']);
    }
  });

  it('processorEnvironment may not replace a variable the construct sets', () => {
    const clash = new Stack(createApp(), 'Clash');
    expect(
      () =>
        new WebhookInbox(clash, 'Inbox', {
          config: parseConfig(undefined),
          processorEnvironment: { [ENV.queueUrl]: 'https://elsewhere' },
        }),
    ).toThrow(`processorEnvironment may not set ${ENV.queueUrl}`);
  });

  it('processorEnvironment reaches the processor only, and dashboard: false builds none', () => {
    template.hasResourceProperties('AWS::Lambda::Function', {
      Environment: { Variables: Match.objectLike({ CRM_URL: 'https://crm.example' }) },
    });
    expect(verifyEnvironment()).not.toHaveProperty('CRM_URL');
    template.resourceCountIs('AWS::CloudWatch::Dashboard', 0);
  });

  it("serverAccessLogsExpiry and serverAccessLogsPrefix set the created log bucket's expiry and the key prefix", () => {
    template.hasResourceProperties('AWS::S3::Bucket', {
      LoggingConfiguration: Match.objectLike({ LogFilePrefix: 'inbox/' }),
    });
    template.hasResourceProperties('AWS::S3::Bucket', {
      LifecycleConfiguration: { Rules: [Match.objectLike({ ExpirationInDays: 30 })] },
    });
  });
});

describe('server access log props', () => {
  const inboxTemplate = (props: Partial<WebhookInboxProps>) => {
    const custom = new Stack(createApp(), 'Logs');
    new WebhookInbox(custom, 'Inbox', { config: parseConfig(undefined), ...props });
    return Template.fromStack(custom);
  };
  const loggingConfigurations = (t: Template) =>
    Object.values(resourcesOf(t, 'AWS::S3::Bucket')).flatMap((b) =>
      b.Properties?.LoggingConfiguration ? [b.Properties.LoggingConfiguration] : [],
    );

  it('serverAccessLogs: false creates no log bucket and leaves the payload bucket unlogged', () => {
    const t = inboxTemplate({ serverAccessLogs: false });
    t.resourceCountIs('AWS::S3::Bucket', 1);
    expect(loggingConfigurations(t)).toEqual([]);
  });

  it('serverAccessLogsBucket logs to that bucket instead of a created one', () => {
    const t = inboxTemplate({
      serverAccessLogsBucket: s3.Bucket.fromBucketName(new Stack(), 'Existing', 'org-access-logs'),
    });
    t.resourceCountIs('AWS::S3::Bucket', 1);
    expect(loggingConfigurations(t)).toEqual([
      { DestinationBucketName: 'org-access-logs', LogFilePrefix: 'payloads/' },
    ]);
  });

  it.each([
    ['verifyTimeout', 2, 'verifyTimeout must be at least 3 s'],
    ['processorTimeout', 4, 'processorTimeout must be at least 5 s'],
  ] as const)(
    'refuses a %s of %i s, which the early timeout would leave no time in',
    (prop, seconds, message) => {
      const config = parseConfig({ providers: { github: { scheme: 'github' } } });
      expect(
        () =>
          new WebhookInbox(new Stack(createApp(), `Short${prop}`), 'Inbox', {
            config,
            [prop]: Duration.seconds(seconds),
          }),
      ).toThrow(message);
    },
  );

  it('refuses serverAccessLogsBucket with serverAccessLogs: false', () => {
    expect(() =>
      inboxTemplate({
        serverAccessLogs: false,
        serverAccessLogsBucket: s3.Bucket.fromBucketName(new Stack(), 'Existing', 'org-access-logs'),
      }),
    ).toThrow('serverAccessLogsBucket is set but serverAccessLogs is false');
  });
});
