// Forward destinations (lib/destinations.ts): with destinations of every kind configured, one promise per
// test; without them (the shipped config), none of it exists.
import { Annotations, Match, type Template } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  CONTEXT_KEY,
  type Config,
  type ForwardDestination,
  forwardDestinations,
  MAX_DESTINATIONS,
} from '../../config/index';
import { decodeLambdaConfig } from '../../config/lambda-config';
import {
  DLQ_RETENTION_SECONDS,
  destinationQueueNames,
  FORWARDER_BATCH_SIZE,
  forwarderTimeoutSeconds,
  LAMBDA_DEFAULTS,
} from '../../config/resources';
import { type DestinationEnvironment, destinationResourcesOf, ENV } from '../../config/runtime';
import {
  FORWARD_DIMENSION,
  FORWARD_METRICS,
  METRICS_NAMESPACE,
  outputSuffix,
  SERVICE,
  STACK_OUTPUTS,
} from '../../config/telemetry';
import { destinationOutputs } from '../../lambdas/adapters/stack-outputs';
import { DESTINATION_SECRET_LENGTH, FORWARDER_TABLE_ACTIONS } from '../../lib/destinations';
import { DESTINATION_FAILURE_MIN_ATTEMPTS, DESTINATION_FAILURE_RATE_PERCENT } from '../../lib/monitoring';
import type { WebhookInboxStack } from '../../lib/webhook-inbox-stack';
import {
  accountArn,
  actionsOf,
  allStatements,
  cdkJsonContext,
  destinationsConfigInput,
  functionIdOf,
  IMPORTED_BUS_ARN,
  IMPORTED_DESTINATION_SECRET_ARN,
  logicalIdOf,
  resourcesOf,
  STACK_NAME,
  type Statement,
  synthStack,
  TARGET_QUEUE_ARN,
  withDestinations,
} from './synth';

type Props = Record<string, unknown>;
type Intrinsic = string | { [fn: string]: unknown };

let template: Template;
let stack: WebhookInboxStack;
let config: Config;
let forwards: ForwardDestination[];

beforeAll(() => {
  // Template.fromStack refuses a template with a dependency cycle, so every test here also proves there is
  // none: neither the DLQs' allow policies nor the mapping condition on the forwarder's ARN make one.
  ({ template, stack } = synthStack(withDestinations()));
  config = stack.inbox.config;
  forwards = forwardDestinations(config);
});

const resources = () => template.toJSON().Resources as Record<string, { Type: string; Properties: Props }>;
const props = (logicalId: string) => resources()[logicalId]!.Properties;
const forwarderId = () => functionIdOf(template, SERVICE.forward);
const processorId = () => functionIdOf(template, SERVICE.process);
const roleOf = (functionId: string) =>
  (props(functionId).Role as { 'Fn::GetAtt': [string] })['Fn::GetAtt'][0];
const variables = (functionId: string) =>
  (props(functionId).Environment as { Variables: Record<string, Intrinsic> }).Variables;

/** Logical id of the queue CloudFormation names `name`. */
const queueId = (name: string) =>
  logicalIdOf(template, 'AWS::SQS::Queue', (q) => q.Properties?.QueueName === name);

/**
 * Evaluates Fn::Join, Ref and Fn::GetAtt to readable placeholders (`{orders-queue}` for a Ref, `{id.Arn}`
 * for an attribute, `{AWS::Region}` for a pseudo parameter), so a JSON value built from them parses.
 */
function evaluate(value: Intrinsic): string {
  if (typeof value === 'string') return value;
  const [fn, args] = Object.entries(value)[0] as [string, unknown];
  if (fn === 'Ref') return `{${String(args)}}`;
  if (fn === 'Fn::GetAtt') return `{${(args as string[]).join('.')}}`;
  if (fn === 'Fn::Join') {
    const [separator, parts] = args as [string, Intrinsic[]];
    return parts.map(evaluate).join(separator);
  }
  throw new Error(`unexpected intrinsic ${fn}`);
}

/** Statements of the policies attached to one role. */
function statementsOfRole(roleId: string): Statement[] {
  return Object.values(resourcesOf(template, 'AWS::IAM::Policy')).flatMap(({ Properties: policy = {} }) =>
    (policy.Roles as { Ref: string }[]).some((r) => r.Ref === roleId)
      ? (policy.PolicyDocument as { Statement: Statement[] }).Statement
      : [],
  );
}

const statementsWith = (roleId: string, action: string) =>
  statementsOfRole(roleId).filter((s) => actionsOf(s).includes(action));

describe('without destinations (the shipped config)', () => {
  let shipped: Template;
  let shippedStack: WebhookInboxStack;
  beforeAll(() => {
    ({ template: shipped, stack: shippedStack } = synthStack());
  });

  it('builds no forwarder, no destination queue, secret or bus, and no DESTINATION_RESOURCES', () => {
    expect(shippedStack.inbox.forwarderFunction).toBeUndefined();
    expect(shippedStack.inbox.destinations).toBeUndefined();
    expect(Object.keys(resourcesOf(shipped, 'AWS::Lambda::Function'))).toHaveLength(2);
    expect(Object.keys(resourcesOf(shipped, 'AWS::SQS::Queue'))).toHaveLength(2);
    expect(Object.keys(resourcesOf(shipped, 'AWS::Lambda::EventSourceMapping'))).toHaveLength(1);
    expect(Object.keys(resourcesOf(shipped, 'AWS::Events::EventBus'))).toHaveLength(0);
    expect(JSON.stringify(shipped.toJSON())).not.toContain(ENV.destinations);
    expect(JSON.stringify(shipped.toJSON())).not.toContain('lambda:UpdateEventSourceMapping');
  });

  it('publishes no forwarder or destination output', () => {
    const outputs = Object.keys(shipped.toJSON().Outputs as object);
    expect(outputs.filter((name) => /^(Destination|Forwarder|EventBus)/.test(name))).toEqual([]);
  });
});

describe('destination queues', () => {
  it('give each forward destination a queue and a DLQ named after the inbox queue, and the handlers none', () => {
    // The inbox DLQ has no fixed name; every other queue has.
    const names = Object.values(resourcesOf(template, 'AWS::SQS::Queue')).flatMap((q) =>
      q.Properties?.QueueName ? [q.Properties.QueueName] : [],
    );
    const expected = forwards.flatMap((d) => {
      const { queueName, dlqName } = destinationQueueNames(`${STACK_NAME}-Inbox-queue`, d.id);
      return [queueName, dlqName];
    });
    expect(forwards.map((d) => d.id)).toEqual(['orders', 'partner', 'events', 'audit', 'crm']);
    expect(names.sort()).toEqual([`${STACK_NAME}-Inbox-queue`, ...expected].sort());
  });

  it("redrive to their own DLQ after the destination's schedule plus one receive, and keep messages 14 days", () => {
    for (const destination of forwards) {
      const { queueName, dlqName } = destinationQueueNames(`${STACK_NAME}-Inbox-queue`, destination.id);
      expect(props(queueId(queueName))).toMatchObject({
        RedrivePolicy: {
          deadLetterTargetArn: { 'Fn::GetAtt': [queueId(dlqName), 'Arn'] },
          maxReceiveCount: destination.retrySchedule.length + 1,
        },
        MessageRetentionPeriod: 14 * 86_400,
        VisibilityTimeout: 6 * forwarderTimeoutSeconds(config),
      });
      expect(props(queueId(dlqName)).MessageRetentionPeriod).toBe(DLQ_RETENTION_SECONDS);
    }
    // orders has a schedule of its own (3 steps); the others take the inbox's (11).
    expect(props(queueId(`${STACK_NAME}-Inbox-queue-to-orders`))).toMatchObject({
      RedrivePolicy: { maxReceiveCount: 4 },
    });
    expect(props(queueId(`${STACK_NAME}-Inbox-queue-to-crm`))).toMatchObject({
      RedrivePolicy: { maxReceiveCount: 12 },
    });
    // The slowest HTTP destination (orders: 5 s connect + 25 s response) sets the forwarder's timeout:
    // twice that (a refused signature is re-sent once with secrets read afresh) and 15 s.
    expect(forwarderTimeoutSeconds(config)).toBe(75);
  });

  it('let only their own queue use each DLQ (by a name-built ARN: no cycle)', () => {
    const { queueName, dlqName } = destinationQueueNames(`${STACK_NAME}-Inbox-queue`, 'partner');
    expect(props(queueId(dlqName)).RedriveAllowPolicy).toEqual({
      redrivePermission: 'byQueue',
      sourceQueueArns: [accountArn('sqs', queueName)],
    });
  });

  it('are encrypted (SQS-managed SSE) and refuse non-TLS access, as the inbox queues', () => {
    for (const destination of forwards) {
      const names = destinationQueueNames(`${STACK_NAME}-Inbox-queue`, destination.id);
      for (const name of [names.queueName, names.dlqName]) {
        expect(props(queueId(name)).SqsManagedSseEnabled).toBe(true);
        template.hasResourceProperties('AWS::SQS::QueuePolicy', {
          Queues: [{ Ref: queueId(name) }],
          PolicyDocument: {
            Statement: Match.arrayWith([
              Match.objectLike({ Effect: 'Deny', Condition: { Bool: { 'aws:SecureTransport': 'false' } } }),
            ]),
          },
        });
      }
    }
  });

  it('fail the synth, naming the destination and the limit, when a name would be over 80 characters', () => {
    // partner is the longest id: `<inbox queue>-to-partner-dlq` is the inbox queue name and 15 characters.
    const queueName = 'q'.repeat(66);
    expect(() => synthStack(withDestinations({ inbox: { queueName } }))).toThrow(
      `${CONTEXT_KEY}.destinations.partner: its dead-letter queue would be named ${queueName}-to-partner-dlq ` +
        "(81 characters), over SQS's 80",
    );
    expect(() => synthStack(withDestinations({ inbox: { queueName: 'q'.repeat(65) } }))).not.toThrow();
  });
});

describe('forwarder event sources', () => {
  const mappings = () =>
    Object.values(resourcesOf(template, 'AWS::Lambda::EventSourceMapping')).map((m) => m.Properties ?? {});

  it("consume each destination queue through its own mapping, at most the destination's maxConcurrency", () => {
    const forwarder = mappings().filter(
      (m) => JSON.stringify(m.FunctionName) === JSON.stringify({ Ref: forwarderId() }),
    );
    expect(forwarder).toHaveLength(forwards.length);
    for (const destination of forwards) {
      const { queueName } = destinationQueueNames(`${STACK_NAME}-Inbox-queue`, destination.id);
      const mapping = forwarder.find(
        (m) => (m.EventSourceArn as { 'Fn::GetAtt': [string] })['Fn::GetAtt'][0] === queueId(queueName),
      );
      expect(mapping, destination.id).toEqual({
        FunctionName: { Ref: forwarderId() },
        EventSourceArn: { 'Fn::GetAtt': [queueId(queueName), 'Arn'] },
        BatchSize: FORWARDER_BATCH_SIZE,
        MaximumBatchingWindowInSeconds: 0,
        FunctionResponseTypes: ['ReportBatchItemFailures'],
        ScalingConfig: { MaximumConcurrency: destination.maxConcurrency },
      });
    }
    expect(forwards.map((d) => d.maxConcurrency)).toEqual([3, 5, 5, 10, 5]);
  });
});

describe('forwarder Lambda', () => {
  it('runs like the processor (nodejs22.x, arm64, JSON logs to its own group) with its own timeout and memory', () => {
    const forwarder = props(forwarderId());
    const processor = props(processorId());
    for (const key of ['Runtime', 'Architectures', 'TracingConfig', 'Handler']) {
      expect(forwarder[key], key).toEqual(processor[key]);
    }
    expect(forwarder).toMatchObject({
      Runtime: 'nodejs22.x',
      Architectures: ['arm64'],
      Timeout: forwarderTimeoutSeconds(config),
      MemorySize: LAMBDA_DEFAULTS.forwarderMemoryMb,
      LoggingConfig: { LogFormat: 'JSON', ApplicationLogLevel: 'INFO', SystemLogLevel: 'WARN' },
    });
    const { LogGroup } = forwarder.LoggingConfig as { LogGroup: { Ref: string } };
    expect(LogGroup.Ref).not.toBe((processor.LoggingConfig as { LogGroup: { Ref: string } }).LogGroup.Ref);
    expect(props(LogGroup.Ref).RetentionInDays).toBe(30);
  });

  it('gets the config, table, bucket and queues of the processor, and no provider secret ARNs', () => {
    const forwarder = variables(forwarderId());
    const processor = variables(processorId());
    for (const name of [ENV.config, ENV.table, ENV.bucket, ENV.queueUrl, ENV.dlqUrl]) {
      expect(forwarder[name], name).toEqual(processor[name]);
    }
    expect(decodeLambdaConfig(forwarder[ENV.config] as string)).toEqual(config);
    expect(forwarder).not.toHaveProperty([ENV.secretArns]);
    expect(forwarder).toMatchObject({ POWERTOOLS_SERVICE_NAME: SERVICE.forward });
  });

  it('and the processor get DESTINATION_RESOURCES: only what they cannot derive, the secrets and a created bus', () => {
    const parsed = (functionId: string) =>
      JSON.parse(evaluate(variables(functionId)[ENV.destinations] as Intrinsic)) as DestinationEnvironment;
    const secret = logicalIdOf(template, 'AWS::SecretsManager::Secret', (s) =>
      String(s.Properties?.Description).includes('destination "orders"'),
    );
    const bus = logicalIdOf(template, 'AWS::Events::EventBus', () => true);
    // The queues follow from QUEUE_URL, an imported bus and a target queue from the config.
    const expected = {
      orders: { secretArn: `{${secret}}` },
      partner: { secretArn: IMPORTED_DESTINATION_SECRET_ARN },
      events: { busArn: `{${bus}.Arn}` },
      audit: {},
      crm: {},
    };
    expect(parsed(forwarderId())).toEqual(expected);
    expect(parsed(processorId())).toEqual(expected);
  });

  it('are resolved by the Lambdas into every queue, from the inbox queue URL they are named after', () => {
    const queueUrl = 'https://sqs.eu-west-1.amazonaws.com/123456789012/stack-Inbox-queue';
    const made = destinationResourcesOf(config, queueUrl, { orders: { secretArn: 'arn:secret' } });
    const names = destinationQueueNames('stack-Inbox-queue', 'orders');
    expect(made.orders).toEqual({
      queueUrl: `https://sqs.eu-west-1.amazonaws.com/123456789012/${names.queueName}`,
      queueArn: `arn:aws:sqs:eu-west-1:123456789012:${names.queueName}`,
      dlqUrl: `https://sqs.eu-west-1.amazonaws.com/123456789012/${names.dlqName}`,
      dlqArn: `arn:aws:sqs:eu-west-1:123456789012:${names.dlqName}`,
      secretArn: 'arn:secret',
    });
    expect(made.audit?.busArn).toBe(IMPORTED_BUS_ARN);
    expect(made.crm?.targetQueueUrl).toBe('https://sqs.eu-west-1.amazonaws.com/210987654321/crm-inbound');
  });

  it('counts DESTINATION_RESOURCES in the 4 KB environment check: the most destinations the config allows fit', () => {
    const inboxInput = cdkJsonContext()[CONTEXT_KEY] as Record<string, unknown>;
    const synthWith = (count: number) => {
      const destinations = Object.fromEntries(
        Array.from({ length: count }, (_, i) => [
          `destination-${i}`,
          { type: 'http', url: `https://hooks-${i}.example.com/webhooks/inbox` },
        ]),
      );
      return synthStack({ context: { [CONTEXT_KEY]: { ...inboxInput, destinations } } }).stack;
    };
    Annotations.fromStack(synthWith(MAX_DESTINATIONS)).hasNoWarning('*', Match.stringLikeRegexp('4 KB'));
    expect(() => synthWith(MAX_DESTINATIONS + 1)).toThrow(/at most 10 destinations/);
  });
});

describe('permissions', () => {
  it('give the forwarder exactly its queue, table, bucket, secret, bus, target and event-source actions', () => {
    const actions = new Set(
      statementsOfRole(roleOf(forwarderId()))
        .filter((s) => s.Effect === 'Allow')
        .flatMap(actionsOf),
    );
    expect([...actions].sort()).toEqual(
      [
        ...FORWARDER_TABLE_ACTIONS,
        'events:PutEvents',
        'lambda:ListEventSourceMappings',
        'lambda:UpdateEventSourceMapping',
        'logs:CreateLogStream',
        'logs:PutLogEvents',
        's3:GetObject',
        's3:ListBucket',
        's3:PutObject',
        'secretsmanager:GetSecretValue',
        'sqs:ChangeMessageVisibility',
        'sqs:DeleteMessage',
        'sqs:GetQueueAttributes',
        'sqs:GetQueueUrl',
        'sqs:ReceiveMessage',
        'sqs:SendMessage',
      ].sort(),
    );
    expect(FORWARDER_TABLE_ACTIONS).toEqual(['dynamodb:GetItem', 'dynamodb:UpdateItem']);
  });

  it('let the forwarder read the HTTP destinations’ secrets only, and no provider secret', () => {
    const readers = allStatements(template).filter(
      ({ statement }) =>
        statement.Effect === 'Allow' && actionsOf(statement).includes('secretsmanager:GetSecretValue'),
    );
    const forwarderPolicy = logicalIdOf(
      template,
      'AWS::IAM::Policy',
      (p) =>
        JSON.stringify(p.Properties?.Roles) === JSON.stringify([{ Ref: roleOf(forwarderId()) }]) &&
        JSON.stringify(p.Properties).includes('secretsmanager:GetSecretValue'),
    );
    const [forwarder, ...others] = [
      ...readers.filter((r) => r.logicalId === forwarderPolicy),
      ...readers.filter((r) => r.logicalId !== forwarderPolicy),
    ];
    const created = logicalIdOf(template, 'AWS::SecretsManager::Secret', (s) =>
      String(s.Properties?.Description).includes('destination "orders"'),
    );
    expect(forwarder?.statement).toEqual({
      Effect: 'Allow',
      Action: 'secretsmanager:GetSecretValue',
      Resource: [{ Ref: created }, IMPORTED_DESTINATION_SECRET_ARN],
    });
    // The verify Lambda's statement (provider secrets) names neither destination secret.
    expect(others).toHaveLength(1);
    expect(JSON.stringify(others[0]?.statement)).not.toContain(created);
    expect(JSON.stringify(others[0]?.statement)).not.toContain(IMPORTED_DESTINATION_SECRET_ARN);
  });

  it('let the forwarder PutEvents on the created and the imported bus, and SendMessage to the target queue only', () => {
    const bus = logicalIdOf(template, 'AWS::Events::EventBus', () => true);
    expect(statementsWith(roleOf(forwarderId()), 'events:PutEvents')).toEqual([
      {
        Effect: 'Allow',
        Action: 'events:PutEvents',
        Resource: [{ 'Fn::GetAtt': [bus, 'Arn'] }, IMPORTED_BUS_ARN],
      },
    ]);
    const ownQueues = forwards.map((d) => ({
      'Fn::GetAtt': [queueId(destinationQueueNames(`${STACK_NAME}-Inbox-queue`, d.id).queueName), 'Arn'],
    }));
    // The target queue, and its own queues (a waiting delivery is sent anew; never to a DLQ).
    expect(statementsWith(roleOf(forwarderId()), 'sqs:SendMessage')).toEqual([
      { Effect: 'Allow', Action: 'sqs:SendMessage', Resource: TARGET_QUEUE_ARN },
      { Effect: 'Allow', Action: 'sqs:SendMessage', Resource: ownQueues },
    ]);
  });

  it('let the forwarder read the target queue’s attributes (its MaximumMessageSize), on that queue alone', () => {
    const onTarget = statementsWith(roleOf(forwarderId()), 'sqs:GetQueueAttributes').filter(
      (statement) => JSON.stringify(statement.Resource) === JSON.stringify(TARGET_QUEUE_ARN),
    );
    expect(onTarget).toEqual([
      { Effect: 'Allow', Action: 'sqs:GetQueueAttributes', Resource: TARGET_QUEUE_ARN },
    ]);
  });

  it('let the processor SendMessage to every destination queue (and to no DLQ)', () => {
    const queueArns = forwards.map((d) => ({
      'Fn::GetAtt': [queueId(destinationQueueNames(`${STACK_NAME}-Inbox-queue`, d.id).queueName), 'Arn'],
    }));
    expect(statementsWith(roleOf(processorId()), 'sqs:SendMessage')).toEqual([
      { Effect: 'Allow', Action: 'sqs:SendMessage', Resource: queueArns },
    ]);
  });

  it('let the forwarder update only event source mappings whose function is itself, and list them', () => {
    const role = roleOf(forwarderId());
    expect(statementsWith(role, 'lambda:ListEventSourceMappings')).toEqual([
      { Effect: 'Allow', Action: 'lambda:ListEventSourceMappings', Resource: '*' },
    ]);
    expect(statementsWith(role, 'lambda:UpdateEventSourceMapping')).toEqual([
      {
        Effect: 'Allow',
        Action: 'lambda:UpdateEventSourceMapping',
        Resource: accountArn('lambda', 'event-source-mapping:*'),
        Condition: { StringEquals: { 'lambda:FunctionArn': { 'Fn::GetAtt': [forwarderId(), 'Arn'] } } },
      },
    ]);
    // No other role may touch event source mappings.
    const others = allStatements(template).filter(
      ({ logicalId, statement }) =>
        actionsOf(statement).some((a) => a.startsWith('lambda:')) &&
        JSON.stringify(props(logicalId).Roles) !== JSON.stringify([{ Ref: role }]),
    );
    expect(others).toEqual([]);
  });
});

describe('signing secrets and the bus', () => {
  it('create a secret of 32 letters and digits for an HTTP destination without secretArn, retained', () => {
    const secrets = Object.entries(resourcesOf(template, 'AWS::SecretsManager::Secret')).filter(([, s]) =>
      String(s.Properties?.Description).includes('destination'),
    );
    expect(secrets).toHaveLength(1);
    const secret = secrets[0]?.[1] as { Properties: Props; DeletionPolicy?: string };
    expect(secret.Properties.GenerateSecretString).toEqual({
      PasswordLength: DESTINATION_SECRET_LENGTH,
      ExcludePunctuation: true,
      IncludeSpace: false,
    });
    expect(DESTINATION_SECRET_LENGTH % 4).toBe(0);
    expect(secret.DeletionPolicy).toBe('Retain');
    expect(Object.keys(stack.inbox.destinations?.secrets ?? {})).toEqual(['orders', 'partner']);
    expect(stack.inbox.destinations?.secrets.partner?.secretArn).toBe(IMPORTED_DESTINATION_SECRET_ARN);
  });

  it('refuse an imported secret ARN without its 6-character suffix, naming the key', () => {
    const input = destinationsConfigInput();
    const destinations = input.destinations as Record<string, Record<string, unknown>>;
    const partial = IMPORTED_DESTINATION_SECRET_ARN.replace(/-AbC123$/, '');
    const context = {
      [CONTEXT_KEY]: {
        ...input,
        destinations: { ...destinations, partner: { ...destinations.partner, secretArn: partial } },
      },
    };
    expect(() => synthStack({ context })).toThrow(
      `${CONTEXT_KEY}.destinations.partner.secretArn: must be the complete ARN`,
    );
  });

  it('create one bus, exposed as eventBus, for the eventbridge destinations without busArn', () => {
    const buses = Object.keys(resourcesOf(template, 'AWS::Events::EventBus'));
    expect(buses).toHaveLength(1);
    expect(stack.inbox.eventBus).toBeDefined();
    expect(stack.getLogicalId(stack.inbox.eventBus?.node.defaultChild as never)).toBe(buses[0]);
    const input = destinationsConfigInput();
    const { events: _created, ...rest } = input.destinations as Record<string, unknown>;
    const { template: noBus, stack: noBusStack } = synthStack({
      context: { [CONTEXT_KEY]: { ...input, destinations: rest } },
    });
    expect(Object.keys(resourcesOf(noBus, 'AWS::Events::EventBus'))).toHaveLength(0);
    expect(noBusStack.inbox.eventBus).toBeUndefined();
    expect(Object.keys(noBus.toJSON().Outputs as object)).not.toContain(STACK_OUTPUTS.eventBusArn);
  });
});

describe('alarms and dashboard', () => {
  const alarms = () =>
    Object.values(resourcesOf(template, 'AWS::CloudWatch::Alarm')).map((a) => a.Properties ?? {});
  // CloudFormation lists dimensions by name.
  const dimensionsOf = (id: string) => [
    { Name: FORWARD_DIMENSION, Value: id },
    { Name: 'service', Value: SERVICE.forward },
  ];

  it('are four per destination and one for the forwarder, notifying the alarm topic on ALARM and OK', () => {
    const topic = logicalIdOf(template, 'AWS::SNS::Topic', () => true);
    expect(alarms()).toHaveLength(6 + 1 + 4 * forwards.length);
    for (const alarm of alarms()) {
      expect(alarm.AlarmActions).toEqual([{ Ref: topic }]);
      expect(alarm.OKActions).toEqual([{ Ref: topic }]);
    }
    template.hasResourceProperties('AWS::CloudWatch::Alarm', {
      Namespace: 'AWS/Lambda',
      MetricName: 'Errors',
      Dimensions: [{ Name: 'FunctionName', Value: { Ref: forwarderId() } }],
    });
  });

  it("fire on each destination's failure rate, over a minimum of attempts, from its own metrics", () => {
    for (const { id } of forwards) {
      template.hasResourceProperties('AWS::CloudWatch::Alarm', {
        Threshold: DESTINATION_FAILURE_RATE_PERCENT,
        ComparisonOperator: 'GreaterThanThreshold',
        EvaluationPeriods: 2,
        TreatMissingData: 'notBreaching',
        Metrics: Match.arrayWith([
          Match.objectLike({
            Expression:
              `IF(FILL(delivered, 0) + FILL(failed, 0) >= ${DESTINATION_FAILURE_MIN_ATTEMPTS}, ` +
              '100 * FILL(failed, 0) / (FILL(delivered, 0) + FILL(failed, 0)), 0)',
          }),
          ...[
            ['delivered', FORWARD_METRICS.delivered],
            ['failed', FORWARD_METRICS.attemptFailed],
          ].map(([metricId, name]) =>
            Match.objectLike({
              Id: metricId,
              ReturnData: false,
              MetricStat: Match.objectLike({
                Metric: { Namespace: METRICS_NAMESPACE, MetricName: name, Dimensions: dimensionsOf(id) },
                Stat: 'Sum',
                Period: 300,
              }),
            }),
          ),
        ]),
      });
    }
  });

  it("fire when a destination's oldest delivery is late, on any dead letter, and when it is disabled", () => {
    for (const destination of forwards) {
      const { queueName, dlqName } = destinationQueueNames(`${STACK_NAME}-Inbox-queue`, destination.id);
      template.hasResourceProperties('AWS::CloudWatch::Alarm', {
        MetricName: 'ApproximateAgeOfOldestMessage',
        Dimensions: [{ Name: 'QueueName', Value: { 'Fn::GetAtt': [queueId(queueName), 'QueueName'] } }],
        Threshold: Math.max(15 * 60, 2 * Math.max(...destination.retrySchedule)),
      });
      template.hasResourceProperties('AWS::CloudWatch::Alarm', {
        MetricName: 'ApproximateNumberOfMessagesVisible',
        Dimensions: [{ Name: 'QueueName', Value: { 'Fn::GetAtt': [queueId(dlqName), 'QueueName'] } }],
        Threshold: 0,
        ComparisonOperator: 'GreaterThanThreshold',
      });
      template.hasResourceProperties('AWS::CloudWatch::Alarm', {
        Namespace: METRICS_NAMESPACE,
        MetricName: FORWARD_METRICS.disabled,
        Dimensions: dimensionsOf(destination.id),
        Threshold: 1,
        ComparisonOperator: 'GreaterThanOrEqualToThreshold',
        // A disabled destination's forwarder sees nothing: the alarm keeps its state until deliveries resume.
        TreatMissingData: 'ignore',
      });
    }
    // orders' longest step is 5 minutes: the 15-minute floor applies; the others wait up to 12 h.
    template.hasResourceProperties('AWS::CloudWatch::Alarm', {
      MetricName: 'ApproximateAgeOfOldestMessage',
      Threshold: 900,
    });
  });

  it('show a row per destination on the dashboard', () => {
    const [dashboard] = Object.values(resourcesOf(template, 'AWS::CloudWatch::Dashboard'));
    const body = evaluate(dashboard?.Properties?.DashboardBody as Intrinsic);
    for (const { id } of forwards) {
      for (const title of ['attempts', 'latency to 2xx (ms)', 'queue']) {
        expect(body).toContain(`"title":"Destination ${id}: ${title}"`);
      }
    }
    expect(body).toContain(FORWARD_METRICS.latency);
  });
});

describe('outputs', () => {
  const outputs = () => template.toJSON().Outputs as Record<string, { Value: Intrinsic }>;

  it("publish the forwarder's name, each destination's queues, the HTTP secrets and the created bus", () => {
    const crm = stack.inbox.destinations?.queues.crm;
    const added = Object.keys(outputs()).filter((name) => /^(Destination|Forwarder|EventBus)/.test(name));
    const perDestination = forwards.flatMap(({ id, type }) => [
      `${STACK_OUTPUTS.destinationQueueUrlPrefix}${outputSuffix(id)}`,
      `${STACK_OUTPUTS.destinationQueueArnPrefix}${outputSuffix(id)}`,
      `${STACK_OUTPUTS.destinationDlqUrlPrefix}${outputSuffix(id)}`,
      `${STACK_OUTPUTS.destinationDlqArnPrefix}${outputSuffix(id)}`,
      ...(type === 'http' ? [`${STACK_OUTPUTS.destinationSecretArnPrefix}${outputSuffix(id)}`] : []),
    ]);
    expect(added.sort()).toEqual(
      [STACK_OUTPUTS.forwarderFunctionName, STACK_OUTPUTS.eventBusArn, ...perDestination].sort(),
    );
    expect(outputs()[STACK_OUTPUTS.forwarderFunctionName]?.Value).toEqual({ Ref: forwarderId() });
    expect(outputs().DestinationDlqUrlCrm?.Value).toEqual({
      Ref: stack.getLogicalId(crm?.deadLetterQueue.node.defaultChild as never),
    });
    expect(outputs().DestinationSecretArnPartner?.Value).toBe(IMPORTED_DESTINATION_SECRET_ARN);
  });

  it("are what the CLI's parser reads: every configured destination's queues, secret, bus and target", () => {
    const deployed = Object.fromEntries(
      Object.entries(outputs()).map(([name, { Value }]) => [name, evaluate(Value)]),
    );
    const parsed = destinationOutputs(deployed, forwards);
    expect(parsed.missing).toEqual([]);
    expect(parsed.forwarderFunctionName).toBe(`{${forwarderId()}}`);
    const environment = JSON.parse(
      evaluate(variables(forwarderId())[ENV.destinations] as Intrinsic),
    ) as DestinationEnvironment;
    for (const [id, given] of Object.entries(environment))
      expect(parsed.destinations[id]).toMatchObject(given);
    expect(parsed.destinations.crm?.targetQueueUrl).toBe(
      'https://sqs.eu-west-1.amazonaws.com/210987654321/crm-inbound',
    );
    expect(parsed.destinations.orders?.queueUrl).toMatch(/^\{/);
  });
});
