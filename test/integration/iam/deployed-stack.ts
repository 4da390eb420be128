// One synthesized stack, run as deployed: its three Lambdas built as their entry files build them
// (lambdas/*/entry.ts), from the environment the template gives them, over the emulators; the resources
// provisioned under the names the template's tokens resolve to; and Secrets Manager, EventBridge, Lambda,
// CloudFormation, CloudWatch and STS answered by stubs (and the queues' redrive settings, which name the
// stack's account, from the template); the REST front door served on a local port for the command's HTTP
// requests. Every AWS call is recorded under the role (or the operator) that makes it, with the resource
// as the deployed code names it.

import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ResourceNotFoundException } from '@aws-sdk/client-secrets-manager';
import { CreateQueueCommand, GetQueueUrlCommand } from '@aws-sdk/client-sqs';
import { NodeHttpHandler } from '@smithy/node-http-handler';
import { Template } from 'aws-cdk-lib/assertions';
import type { SQSEvent } from 'aws-lambda';
import { z } from 'zod';
import { type Config, forwardDestinations } from '../../../config';
import { destinationQueueNames, FORWARDER_BATCH_SIZE } from '../../../config/resources';
import { type Runtime, runtimeFromEnv } from '../../../config/runtime';
import { STACK_OUTPUTS } from '../../../config/telemetry';
import {
  type AwsClients,
  createForwardClients,
  createProcessClients,
  createVerifyClients,
} from '../../../lambdas/adapters/clients';
import { DynamoClaims } from '../../../lambdas/adapters/dynamo-claims';
import { DynamoDestinationStates } from '../../../lambdas/adapters/dynamo-destination-states';
import { DynamoForwardLog } from '../../../lambdas/adapters/dynamo-forward-log';
import { DynamoInbox } from '../../../lambdas/adapters/dynamo-inbox';
import { DynamoResourceVersions } from '../../../lambdas/adapters/dynamo-resource-versions';
import { LambdaDestinationIntake } from '../../../lambdas/adapters/lambda-destination-intake';
import { S3PayloadWriter } from '../../../lambdas/adapters/s3-payload-writer';
import { S3PayloadReader } from '../../../lambdas/adapters/s3-payloads';
import { SecretsManagerSource } from '../../../lambdas/adapters/secrets';
import { messageControls, SqsForwardQueues } from '../../../lambdas/adapters/sqs-forward-queues';
import { SqsMessageControl } from '../../../lambdas/adapters/sqs-message-control';
import { SqsDeliveryQueue } from '../../../lambdas/adapters/sqs-queue';
import { SqsQueueOps } from '../../../lambdas/adapters/sqs-queue-ops';
import { systemClock } from '../../../lambdas/core/ports';
import { standardWebhooks } from '../../../lambdas/core/schemes/standard-webhooks';
import { noMetrics } from '../../../lambdas/core/telemetry';
import { defineEvent, PermanentError } from '../../../lambdas/events';
import { forwardLambda } from '../../../lambdas/forward/middy-chain';
import { buildSenders } from '../../../lambdas/forward/senders';
import { processLambda } from '../../../lambdas/process/middy-chain';
import { verifyLambda } from '../../../lambdas/verify/middy-chain';
import type { VerifyHandler } from '../../../lambdas/verify/verify-handler';
import { WebhookInboxStack } from '../../../lib/webhook-inbox-stack';
import type { Emulators } from '../../../local/emulators';
import { gateway } from '../../../local/gateway';
import { provisionResources } from '../../../local/resources';
import { SqsEventSource } from '../../../local/sqs-event-source';
import { createApp } from '../../infra/synth';
import { type Actor, type AwsCallLog, recordingTransport } from '../../support/aws-call-log';
import { functionUrlEvent } from '../../support/function-url-event';
import { ACCOUNT, DeployedTemplate, REGION } from '../../support/iam-template';
import { signedEvent } from '../../support/pipeline';

export type FrontDoor = 'rest' | 'http' | 'function-url';

export interface Variant {
  /** Its row in the table, and (alphanumeric) its stack name's suffix. */
  name: string;
  frontDoor: FrontDoor;
  /** The `webhookInbox` context: cdk.json's plus these destinations. */
  destinations: Record<string, Record<string, unknown>>;
  /**
   * Whether the operator's commands run on this stack too. They make the same calls whatever the front
   * door, so the front doors but one leave them out. @default true
   */
  operator?: boolean;
}

export const PROVIDER = 'standard-webhooks';

/** Bodies: accepted and processed, retried once, given up, and one too large to travel inline. */
export const EVENTS = { ok: 'msg_ok', retry: 'msg_retry', dead: 'msg_dead', large: 'msg_large' } as const;

const quiet = { info: () => undefined, warn: () => undefined, error: () => undefined };

export function stackNameOf(variant: Variant): string {
  return `WebhookInbox${variant.name.replace(/[^A-Za-z0-9]/g, '')}`;
}

export function synthVariant(
  variant: Variant,
  baseConfig: Record<string, unknown>,
): { deployed: DeployedTemplate; configInput: Record<string, unknown> } {
  const configInput = {
    ...baseConfig,
    // Short steps, so a retried delivery comes back within the test and a given-up one soon reaches the DLQ.
    queue: { ...(baseConfig.queue as object), retrySchedule: [1, 1] },
    ...(Object.keys(variant.destinations).length > 0 ? { destinations: variant.destinations } : {}),
  };
  const app = createApp({ context: { webhookInbox: configInput } });
  const stackName = stackNameOf(variant);
  const stack = new WebhookInboxStack(app, stackName, { inbox: { api: variant.frontDoor } });
  return { deployed: new DeployedTemplate(Template.fromStack(stack), stackName), configInput };
}

/** A queue URL's name: its last path segment. */
function nameOf(url: string): string {
  return url.slice(url.lastIndexOf('/') + 1);
}

/** Secrets Manager, as the stubs keep it: each secret's current and previous value. */
export class StubSecrets {
  readonly values = new Map<string, { current: string; previous?: string; created: Date }>();
  set(arn: string, value: string): void {
    const before = this.values.get(arn);
    this.values.set(arn, { current: value, previous: before?.current, created: new Date() });
  }
  install(log: AwsCallLog): void {
    log.stub('secretsmanager:GetSecretValue', (input) => {
      const secret = this.values.get(String(input.SecretId));
      const value = input.VersionStage === 'AWSPREVIOUS' ? secret?.previous : secret?.current;
      if (value === undefined) {
        throw new ResourceNotFoundException({ message: 'no such version', $metadata: {} });
      }
      return { ARN: input.SecretId, SecretString: value };
    });
    log.stub('secretsmanager:PutSecretValue', (input) => {
      this.set(String(input.SecretId), String(input.SecretString));
      return { ARN: input.SecretId };
    });
    log.stub('secretsmanager:ListSecretVersionIds', (input) => {
      const secret = this.values.get(String(input.SecretId));
      return {
        Versions: secret
          ? [
              { VersionId: 'v2', VersionStages: ['AWSCURRENT'], CreatedDate: secret.created },
              ...(secret.previous
                ? [{ VersionId: 'v1', VersionStages: ['AWSPREVIOUS'], CreatedDate: secret.created }]
                : []),
            ]
          : [],
      };
    });
  }
}

/** What the stubs let a test change once they are installed. */
export interface ServiceStubs {
  /**
   * The stack's outputs name this URL as the front door (`ApiUrl`, and each provider's endpoint under it),
   * so what the command sends to the inbox over HTTP reaches the test's own front door.
   */
  frontDoorAt(url: string): void;
}

/** The stubs for the services without an emulator that are not Secrets Manager. */
export function installServiceStubs(log: AwsCallLog, deployed: DeployedTemplate): ServiceStubs {
  const apiUrl = deployed.outputs[STACK_OUTPUTS.apiUrl] ?? '';
  let frontDoor = apiUrl;
  const outputValue = (value: string) =>
    apiUrl && value.startsWith(apiUrl) ? `${frontDoor}${value.slice(apiUrl.length)}` : value;
  log.stub('cloudformation:DescribeStacks', (input) => ({
    Stacks: [
      {
        StackName: input.StackName,
        StackStatus: 'UPDATE_COMPLETE',
        CreationTime: new Date(),
        Outputs: Object.entries(deployed.outputs).map(([OutputKey, OutputValue]) => ({
          OutputKey,
          OutputValue: outputValue(OutputValue),
        })),
      },
    ],
  }));
  log.stub('cloudformation:ListStackResources', () => ({
    StackResourceSummaries: deployed.stackResources().map((r) => ({
      LogicalResourceId: r.logicalId,
      PhysicalResourceId: r.physicalId,
      ResourceType: r.type,
      ResourceStatus: 'UPDATE_COMPLETE',
      LastUpdatedTimestamp: new Date(),
    })),
  }));
  installRedrivePolicyStub(log, deployed);
  installAlarmStubs(log, deployed);
  installLambdaAccountStubs(log, deployed);
  log.stub('events:PutEvents', (input) => ({
    FailedEntryCount: 0,
    Entries: (input.Entries as unknown[]).map((_, i) => ({ EventId: `event-${i}` })),
  }));
  log.stub('sts:GetCallerIdentity', () => ({
    Account: ACCOUNT,
    Arn: `arn:aws:sts::${ACCOUNT}:assumed-role/operator/someone`,
    UserId: 'AROAEXAMPLE:someone',
  }));
  log.stub('cloudwatch:GetMetricStatistics', () => ({ Datapoints: [] }));
  // One mapping per destination queue, as the stack has; disabling and enabling it is all the code does.
  const states = new Map<string, string>();
  log.stub('lambda:ListEventSourceMappings', (input) => {
    const uuid = `esm-${nameOf(String(input.EventSourceArn))}`;
    const functionArn = deployed.lambda('forwarder').arn;
    log.conditionKeys.set(uuid, { 'lambda:FunctionArn': functionArn });
    return {
      EventSourceMappings: [
        {
          UUID: uuid,
          EventSourceArn: input.EventSourceArn,
          FunctionArn: functionArn,
          State: states.get(uuid) ?? 'Enabled',
        },
      ],
    };
  });
  log.stub('lambda:UpdateEventSourceMapping', (input) => {
    states.set(String(input.UUID), input.Enabled ? 'Enabled' : 'Disabled');
    return { UUID: input.UUID, State: input.Enabled ? 'Enabled' : 'Disabled' };
  });
  // The emulator has no move tasks: the task is reported done at once (nothing to move is moved).
  log.stub('sqs:StartMessageMoveTask', () => ({ TaskHandle: 'task-1' }));
  log.stub('sqs:ListMessageMoveTasks', () => ({
    Results: [
      {
        TaskHandle: 'task-1',
        Status: 'COMPLETED',
        ApproximateNumberOfMessagesMoved: 0,
        StartedTimestamp: Date.now(),
      },
    ],
  }));
  return {
    frontDoorAt: (url) => {
      frontDoor = url;
    },
  };
}

/**
 * The queues' redrive settings as the template sets them, which name the DLQ by its ARN in the stack's
 * account (the emulator's queues carry its own account). Every other attribute is the emulator's.
 */
function installRedrivePolicyStub(log: AwsCallLog, deployed: DeployedTemplate): void {
  const REDRIVE = ['RedrivePolicy', 'RedriveAllowPolicy'];
  log.stub('sqs:GetQueueAttributes', (input) => {
    const names = (input.AttributeNames ?? []) as string[];
    if (names.length === 0 || !names.every((n) => REDRIVE.includes(n))) return undefined;
    const queue = deployed
      .stackResources()
      .find((r) => r.type === 'AWS::SQS::Queue' && r.physicalId === input.QueueUrl);
    if (!queue) return undefined;
    const attributes: Record<string, string> = {};
    for (const name of names) {
      const value = deployed.property(queue.logicalId, name);
      if (value !== undefined) attributes[name] = JSON.stringify(value);
    }
    return { Attributes: attributes };
  });
}

interface StubAlarm {
  state: string;
  reason: string;
  alarmActions: string[];
  okActions: string[];
  actionsEnabled: boolean;
}

/**
 * CloudWatch's alarms as the template defines them (each in OK, its actions enabled): SetAlarmState
 * changes the state and, where the new state's actions name an SNS topic, CloudWatch's history records
 * the publish as succeeded, in the words AWS documents.
 */
function installAlarmStubs(log: AwsCallLog, deployed: DeployedTemplate): void {
  const alarms = new Map<string, StubAlarm>(
    deployed
      .stackResources()
      .filter((r) => r.type === 'AWS::CloudWatch::Alarm')
      .map((r) => {
        const list = (name: string) => {
          const value = deployed.property(r.logicalId, name);
          return Array.isArray(value) ? value.map(String) : [];
        };
        return [
          r.physicalId,
          {
            state: 'OK',
            reason: 'Threshold Crossed: no datapoints were received',
            alarmActions: list('AlarmActions'),
            okActions: list('OKActions'),
            actionsEnabled: deployed.property(r.logicalId, 'ActionsEnabled') !== false,
          },
        ];
      }),
  );
  const history = new Map<string, { Timestamp: Date; HistorySummary: string; HistoryData: string }[]>();
  log.stub('cloudwatch:DescribeAlarms', (input) => ({
    MetricAlarms: ((input.AlarmNames ?? []) as string[]).flatMap((name) => {
      const alarm = alarms.get(name);
      return alarm
        ? [
            {
              AlarmName: name,
              StateValue: alarm.state,
              StateReason: alarm.reason,
              ActionsEnabled: alarm.actionsEnabled,
              AlarmActions: alarm.alarmActions,
              OKActions: alarm.okActions,
            },
          ]
        : [];
    }),
  }));
  log.stub('cloudwatch:SetAlarmState', (input) => {
    const name = String(input.AlarmName);
    const alarm = alarms.get(name);
    if (!alarm) throw new Error(`no alarm ${name}`);
    const changed = alarm.state !== input.StateValue;
    alarm.state = String(input.StateValue);
    alarm.reason = String(input.StateReason);
    const actions =
      alarm.state === 'ALARM' ? alarm.alarmActions : alarm.state === 'OK' ? alarm.okActions : [];
    if (changed && alarm.actionsEnabled) {
      const items = actions.map((arn) => ({
        Timestamp: new Date(),
        HistorySummary: `Successfully executed action ${arn}`,
        HistoryData: JSON.stringify({ actionState: 'Succeeded', notificationResource: arn }),
      }));
      history.set(name, [...items, ...(history.get(name) ?? [])]);
    }
    return {};
  });
  log.stub('cloudwatch:DescribeAlarmHistory', (input) => ({
    AlarmHistoryItems: (history.get(String(input.AlarmName)) ?? []).map((item) => ({
      AlarmName: input.AlarmName,
      HistoryItemType: 'Action',
      ...item,
    })),
  }));
}

/** Lambda's account settings (the default quota of 1,000) and each function's reservation in the template. */
function installLambdaAccountStubs(log: AwsCallLog, deployed: DeployedTemplate): void {
  const reserved = new Map(
    deployed
      .stackResources()
      .filter((r) => r.type === 'AWS::Lambda::Function')
      .map((r) => {
        const value = deployed.property(r.logicalId, 'ReservedConcurrentExecutions');
        return [r.physicalId, typeof value === 'number' ? value : undefined] as const;
      }),
  );
  const limit = 1000;
  const taken = [...reserved.values()].reduce<number>((sum, n) => sum + (n ?? 0), 0);
  log.stub('lambda:GetAccountSettings', () => ({
    AccountLimit: { ConcurrentExecutions: limit, UnreservedConcurrentExecutions: limit - taken },
  }));
  log.stub('lambda:GetFunctionConcurrency', (input) => {
    const name = String(input.FunctionName);
    const value = reserved.get(name.slice(name.lastIndexOf(':') + 1));
    return value === undefined ? {} : { ReservedConcurrentExecutions: value };
  });
}

/** The emulator queue URLs of the stack's queues and its SQS destinations' targets, by queue name. */
export async function provisionStack(
  setup: AwsClients,
  log: AwsCallLog,
  deployed: DeployedTemplate,
  config: Config,
  runtime: Runtime,
): Promise<void> {
  await provisionResources(setup, config, {
    tableName: runtime.tableName,
    queueName: nameOf(runtime.queueUrl),
    dlqName: nameOf(runtime.dlqUrl),
    bucketName: runtime.bucketName,
  });
  const names = new Set(Object.keys(deployed.queueArns()));
  for (const destination of forwardDestinations(config)) {
    const { queueName, dlqName } = destinationQueueNames(nameOf(runtime.queueUrl), destination.id);
    names.add(queueName).add(dlqName);
    if (destination.type === 'sqs')
      names.add(destination.queueArn.slice(destination.queueArn.lastIndexOf(':') + 1));
  }
  for (const name of names) {
    const existing = await setup.sqs.send(new GetQueueUrlCommand({ QueueName: name })).catch(() => undefined);
    const url =
      existing?.QueueUrl ?? (await setup.sqs.send(new CreateQueueCommand({ QueueName: name }))).QueueUrl;
    log.emulatorQueueUrls.set(name, url as string);
  }
}

/** The event the front door hands the verify Lambda for one signed delivery. */
function frontDoorEvent(
  frontDoor: FrontDoor,
  config: Config,
  delivery: { provider: string; secret: string; id: string; body: string },
) {
  const { provider, secret, id, body } = delivery;
  const rest = signedEvent(provider, config, { body, secret, timestamp: Math.floor(Date.now() / 1000), id });
  if (frontDoor !== 'function-url') return rest;
  return functionUrlEvent({
    rawPath: `/webhooks/${provider}`,
    headers: rest.headers as Record<string, string>,
    body: Buffer.from(rest.body ?? '', rest.isBase64Encoded ? 'base64' : 'utf8'),
  });
}

export interface StackRun {
  deployed: DeployedTemplate;
  config: Config;
  /** One delivery signed as the provider signs it, through the front door; the status answered. */
  verify(id: string, body: string, as?: { provider: string; secret: string }): Promise<number>;
  /** Runs the processor's event source until the main queue is empty. */
  process(): Promise<void>;
  /**
   * Runs the forwarder's event source on each destination queue until it is empty, or for the `waiting`
   * destinations (disabled, so their deliveries stay hidden for minutes) until nothing is visible.
   */
  forward(waiting?: readonly string[]): Promise<void>;
  /**
   * The REST API in front of the verify Lambda on a local port, as local mode's gateway answers (405 for
   * another method): the URL a command's HTTP requests to the inbox go to. Each delivery it accepts is
   * processed at once, as the processor's event source would.
   */
  frontDoor(): Promise<{ url: string; close(): Promise<void> }>;
  close(): void;
}

export async function runStack(input: {
  log: AwsCallLog;
  emulators: Emulators;
  setup: AwsClients;
  deployed: DeployedTemplate;
  secrets: StubSecrets;
  frontDoor: FrontDoor;
}): Promise<StackRun> {
  const { log, emulators, setup, deployed, secrets } = input;
  const endpoints = { ...emulators.clientOptions, region: REGION };
  const verifyRuntime = runtimeFromEnv(deployed.lambda('verify').env);
  const processRuntime = runtimeFromEnv(deployed.lambda('processor').env);
  const { config } = processRuntime;
  await provisionStack(setup, log, deployed, config, processRuntime);
  const secret = standardWebhooks.generateSecret();
  secrets.set(verifyRuntime.secretArns[PROVIDER] as string, secret);

  // As lambdas/verify/entry.ts builds it; only the bucket's URL is the emulator's.
  const verifyClients = createVerifyClients(endpoints);
  const verifyHandler = verifyLambda({
    config: verifyRuntime.config,
    inbox: new DynamoClaims(verifyClients.dynamodb, verifyRuntime.tableName),
    queue: new SqsDeliveryQueue(verifyClients.sqs, verifyRuntime.queueUrl),
    payloads: new S3PayloadWriter({
      bucket: verifyRuntime.bucketName,
      bucketUrl: `${emulators.endpoints.s3}/${verifyRuntime.bucketName}/`,
      signing: verifyClients.sqs.config,
      requestHandler: recordingTransport(log, new NodeHttpHandler()),
    }),
    secrets: new SecretsManagerSource(verifyClients.secrets, verifyRuntime.secretArns, {
      cacheSeconds: verifyRuntime.config.secretCacheSeconds,
    }),
    clock: systemClock,
    logger: quiet,
    metrics: noMetrics,
  });

  // As lambdas/process/entry.ts builds it, with handlers that succeed, fail once, and give up.
  const retried = new Set<string>();
  const handlers = [
    defineEvent({
      provider: PROVIDER,
      type: '*',
      schema: z.object({}).loose(),
      handle: async (_data, context) => {
        if (context.dedupKey === EVENTS.dead) throw new PermanentError('downstream_rejected');
        if (context.dedupKey === EVENTS.retry && !retried.has(context.dedupKey)) {
          retried.add(context.dedupKey);
          throw new Error('downstream unavailable');
        }
      },
    }),
  ];
  const processClients = createProcessClients(endpoints);
  const processHandler = processLambda({
    config,
    inbox: new DynamoInbox(processClients.dynamodb, processRuntime.tableName),
    payloads: new S3PayloadReader(processClients.s3, processRuntime.bucketName),
    messages: new SqsMessageControl(processClients.sqs, processRuntime.queueUrl),
    versions: new DynamoResourceVersions(processClients.dynamodb, processRuntime.tableName),
    handlers,
    forwards: new SqsForwardQueues(processClients.sqs, processRuntime.destinations),
    clock: systemClock,
    defaultLeaseMs: 30_000,
    logger: quiet,
    metrics: noMetrics,
  });
  const counts = new SqsQueueOps(setup.sqs);
  const emulated = (url: string) => log.emulatorQueueUrls.get(nameOf(url)) as string;
  /**
   * Runs the event source until the queue is empty; for a destination's queue, until nothing is visible
   * or delayed (a delivery waiting on a disabled destination, or out a retry step, stays hidden for
   * minutes: its calls so far are what counts).
   */
  const drain = async (actor: Actor, source: SqsEventSource, queueUrl: string, hiddenDone = false) => {
    const deadline = Date.now() + 30_000;
    while (Date.now() < deadline) {
      await log.as(actor, () => source.runOnce(1));
      const left = await counts.counts(emulated(queueUrl));
      if (left.visible + left.delayed + (hiddenDone ? 0 : left.inFlight) === 0) return;
    }
    throw new Error(`${actor}: ${nameOf(queueUrl)} did not empty`);
  };
  const processSource = new SqsEventSource(new SqsQueueOps(processClients.sqs), {
    queueUrl: processRuntime.queueUrl,
    queueArn: `arn:aws:sqs:${REGION}:${ACCOUNT}:${nameOf(processRuntime.queueUrl)}`,
    batchSize: 10,
    maxBatchingWindowSeconds: 0,
    functionTimeoutMs: 30_000,
    handler: processHandler,
  });

  const hasForwarder = deployed.hasLambda('forwarder');
  let forwardAll = async (_waiting: readonly string[]) => undefined;
  const closers: (() => void)[] = [];
  if (hasForwarder) {
    // As lambdas/forward/entry.ts builds it (senders through buildSenders, as destinationSenders does),
    // loopback allowed for the test's HTTP receiver.
    const lambda = deployed.lambda('forwarder');
    const runtime = runtimeFromEnv(lambda.env);
    const clients = createForwardClients(endpoints);
    const made = runtime.destinations;
    const forwarder = forwardLambda({
      config: runtime.config,
      senders: buildSenders({
        secrets: new SecretsManagerSource(
          clients.secrets,
          Object.fromEntries(
            Object.entries(made).flatMap(([id, m]) => (m.secretArn ? [[id, m.secretArn]] : [])),
          ),
          { cacheSeconds: runtime.config.secretCacheSeconds },
        ),
        // One emulator serves every region, as local mode's senders assume.
        eventbridge: () => clients.eventbridge,
        sqs: () => clients.sqs,
        payloads: new S3PayloadReader(clients.s3, runtime.bucketName),
        destinations: made,
        allowLoopback: true,
      }),
      history: new DynamoForwardLog(clients.dynamodb, runtime.tableName),
      states: new DynamoDestinationStates(clients.dynamodb, runtime.tableName),
      intake: new LambdaDestinationIntake(
        clients.lambda,
        lambda.arn,
        Object.fromEntries(Object.entries(made).map(([id, m]) => [id, m.queueArn])),
        { sleep: async () => undefined },
      ),
      payloads: new S3PayloadReader(clients.s3, runtime.bucketName),
      messagesFor: messageControls(clients.sqs, made),
      queues: new SqsForwardQueues(clients.sqs, made),
      clock: systemClock,
      logger: quiet,
      metrics: noMetrics,
    });
    for (const [id, m] of Object.entries(made)) {
      if (m.secretArn && !secrets.values.has(m.secretArn))
        secrets.set(m.secretArn, `${id}${'0'.repeat(32)}`.slice(0, 32));
    }
    forwardAll = async (waiting: readonly string[]) => {
      for (const [id, m] of Object.entries(made)) {
        const waits = waiting.includes(id);
        const source = new SqsEventSource(new SqsQueueOps(clients.sqs), {
          queueUrl: m.queueUrl,
          queueArn: m.queueArn,
          batchSize: FORWARDER_BATCH_SIZE,
          maxBatchingWindowSeconds: 0,
          functionTimeoutMs: 30_000,
          handler: (event: SQSEvent, context) => forwarder(event, context),
        });
        await drain('forwarder', source, m.queueUrl, waits);
      }
    };
    closers.push(() => {
      for (const client of Object.values(clients)) client.destroy();
    });
  }

  return {
    deployed,
    config,
    verify: async (id, body, as = { provider: PROVIDER, secret }) =>
      (
        await log.as('verify', () =>
          verifyHandler(frontDoorEvent(input.frontDoor, verifyRuntime.config, { ...as, id, body })),
        )
      ).statusCode,
    process: () => drain('processor', processSource, processRuntime.queueUrl),
    forward: (waiting = []) => forwardAll(waiting),
    frontDoor: async () => {
      if (input.frontDoor !== 'rest') throw new Error('the local front door is the REST API only');
      const processing: Promise<void>[] = [];
      const accept: VerifyHandler = async (event, context) => {
        const result = await log.as('verify', () => verifyHandler(event, context));
        if (result.statusCode === 202) {
          processing.push(log.unrecorded(() => drain('processor', processSource, processRuntime.queueUrl)));
        }
        return result;
      };
      const server = createServer(gateway(accept, () => undefined, '127.0.0.1'));
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      const { port } = server.address() as AddressInfo;
      return {
        url: `http://127.0.0.1:${port}`,
        close: async () => {
          await Promise.all(processing);
          server.closeAllConnections();
          await new Promise<void>((resolve) => server.close(() => resolve()));
        },
      };
    },
    close: () => {
      for (const client of [...Object.values(verifyClients), ...Object.values(processClients)])
        client.destroy();
      for (const close of closers) close();
    },
  };
}
