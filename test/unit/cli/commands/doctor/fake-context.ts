// A DoctorContext of small fakes: every port answers as a healthy stack would, and a test overrides the
// one it is about. CloudWatch's alarms and Lambda's account settings are fakes that record their calls.

import type {
  AlarmActionRecord,
  AlarmOps,
  AlarmState,
  AlarmSummary,
  DoctorContext,
  StackResource,
} from '../../../../../cli/commands/doctor/ports';
import type { Target } from '../../../../../cli/shared/target-types';
import { type Config, parseConfig } from '../../../../../config';

export const TOPIC = 'arn:aws:sns:eu-west-1:123456789012:WebhookInbox-AlarmTopic';
export const QUEUE_ARN = 'arn:aws:sqs:eu-west-1:123456789012:inbox-queue';
export const DLQ_ARN = 'arn:aws:sqs:eu-west-1:123456789012:inbox-dlq';

export const RESOURCES: StackResource[] = [
  {
    logicalId: 'InboxVerifyFunction1A2B3C4D',
    physicalId: 'WebhookInbox-Verify',
    type: 'AWS::Lambda::Function',
  },
  {
    logicalId: 'InboxProcessorFunctionAAAA1111',
    physicalId: 'WebhookInbox-Processor',
    type: 'AWS::Lambda::Function',
  },
  {
    logicalId: 'InboxFunctionUrl99887766',
    physicalId: 'arn:aws:lambda:eu-west-1:1:function:v',
    type: 'AWS::Lambda::Url',
  },
  {
    logicalId: 'InboxDeadLetters12345678',
    physicalId: 'WebhookInbox-DeadLetters-X',
    type: 'AWS::CloudWatch::Alarm',
  },
  {
    logicalId: 'InboxQueueAge12345678',
    physicalId: 'WebhookInbox-QueueAge-Y',
    type: 'AWS::CloudWatch::Alarm',
  },
];

export const accessDenied = () =>
  Object.assign(new Error('User: arn:aws:iam::1:user/x is not authorized to perform: this'), {
    name: 'AccessDeniedException',
  });

/**
 * The history summary of an SNS action refused by the topic's access policy, in the form AWS's knowledge
 * center article "Why didn't I receive an SNS notification for my CloudWatch alarm trigger?" quotes.
 */
export function publishRefused(alarm: string, topic: string): string {
  return `Failed to execute action ${topic}. Received error: "Resource: arn:aws:cloudwatch:eu-west-1:123456789012:alarm:${alarm} is not authorized to perform: SNS:Publish on resource: ${topic}"`;
}

/** CloudWatch with alarms in memory: SetAlarmState runs the new state's actions into the history. */
export class FakeCloudWatch implements AlarmOps {
  readonly setCalls: { name: string; state: AlarmState }[] = [];
  readonly history = new Map<string, AlarmActionRecord[]>();
  /** What publishing to the topic does: succeed, fail, or record nothing (an action not yet run). */
  publish: 'Succeeded' | 'Failed' | 'none' = 'Succeeded';
  failSet?: Error;
  /** The alarm's own evaluation after a set, as CloudWatch runs it (often within seconds). */
  afterSet?: (alarm: AlarmSummary) => void;
  failHistory?: Error;
  nowMs = 1_000_000;

  constructor(readonly alarms: AlarmSummary[]) {}

  async describe(names: readonly string[]): Promise<AlarmSummary[]> {
    return this.alarms.filter((a) => names.includes(a.name));
  }

  async setState(name: string, state: AlarmState, reason: string): Promise<void> {
    if (this.failSet) throw this.failSet;
    this.setCalls.push({ name, state });
    const alarm = this.alarms.find((a) => a.name === name);
    if (!alarm) return;
    alarm.stateReason = reason;
    if (alarm.state === state) return;
    alarm.state = state;
    const actions = state === 'ALARM' ? alarm.alarmActions : state === 'OK' ? alarm.okActions : [];
    for (const arn of this.publish === 'none' ? [] : actions) {
      const ok = this.publish === 'Succeeded';
      const records = this.history.get(name) ?? [];
      records.unshift({
        timestampMs: this.nowMs,
        summary: ok ? `Successfully executed action ${arn}` : publishRefused(name, arn),
        data: JSON.stringify({ actionState: this.publish, notificationResource: arn }),
      });
      this.history.set(name, records);
    }
    const evaluate = this.afterSet;
    this.afterSet = undefined;
    evaluate?.(alarm);
  }

  async actionsSince(name: string, sinceMs: number): Promise<AlarmActionRecord[]> {
    if (this.failHistory) throw this.failHistory;
    return (this.history.get(name) ?? []).filter((r) => r.timestampMs >= sinceMs);
  }
}

export function okAlarm(name: string, state: AlarmState = 'OK'): AlarmSummary {
  return {
    name,
    state,
    stateReason: 'Threshold Crossed: 1 datapoint [0.0] was not greater than the threshold (0.0).',
    actionsEnabled: true,
    alarmActions: [TOPIC],
    okActions: [TOPIC],
  };
}

export function fakeTarget(config: Config, secrets: Record<string, string[]> = {}): Target {
  return {
    kind: 'aws',
    config,
    description: 'stack WebhookInbox (eu-west-1)',
    gatewayUrl: 'https://api.example/prod',
    region: 'eu-west-1',
    tableName: 'inbox',
    queueUrl: 'https://sqs.eu-west-1.amazonaws.com/123456789012/inbox-queue',
    queueArn: QUEUE_ARN,
    dlqUrl: 'https://sqs.eu-west-1.amazonaws.com/123456789012/inbox-dlq',
    dlqArn: DLQ_ARN,
    bucketName: 'payloads',
    endpointUrl: (provider) => `https://api.example/prod/webhooks/${provider}`,
    secrets: {
      location: (provider) => `arn:aws:secretsmanager:eu-west-1:1:secret:${provider}`,
      list: async (provider) => secrets[provider] ?? [],
      rotate: async () => [],
    },
    destinations: {},
    destinationSecrets: { location: () => '', list: async () => [], rotate: async () => [] },
    clients: async () => {
      throw new Error('no clients in a unit test');
    },
    close: () => undefined,
  };
}

export function fakeContext(
  overrides: Partial<DoctorContext> = {},
  config: Config = parseConfig({}),
): DoctorContext {
  const cloudwatch = new FakeCloudWatch([
    okAlarm('WebhookInbox-DeadLetters-X'),
    okAlarm('WebhookInbox-QueueAge-Y'),
  ]);
  let nowMs = 1_000_000;
  return {
    stack: { name: 'WebhookInbox', region: 'eu-west-1', outputs: { ApiUrl: 'x' }, missingOutputs: [] },
    config,
    target: fakeTarget(config),
    resources: async () => RESOURCES,
    probes: {
      table: async () => undefined,
      queue: async () => undefined,
      dlq: async () => undefined,
      bucket: async () => undefined,
    },
    inbox: { get: async () => undefined },
    http: { post: async () => ({ status: 202, answer: {} }), request: async () => 405 },
    alarms: cloudwatch,
    lambda: {
      concurrency: async () => ({ limit: 1000, unreserved: 980 }),
      reservedConcurrency: async () => 20,
    },
    redrive: {
      policies: async () => ({
        redrivePolicy: JSON.stringify({ deadLetterTargetArn: DLQ_ARN, maxReceiveCount: 12 }),
        redriveAllowPolicy: JSON.stringify({ redrivePermission: 'byQueue', sourceQueueArns: [QUEUE_ARN] }),
      }),
      latestMove: async () => undefined,
    },
    testDestination: async (destination) => ({
      id: destination.id,
      webhookId: 'msg_x',
      status: 200,
      verdict: 'delivered',
      meaning: 'delivered',
      durationMs: 1,
    }),
    clock: {
      nowMs: () => nowMs,
      sleep: async (ms) => {
        nowMs += ms;
      },
    },
    timing: { processed: { waitMs: 50, settleMs: 1, pollMs: 5 }, alarmWaitMs: 30_000, alarmPollMs: 3_000 },
    options: { delivery: true, alarm: true },
    ...overrides,
  };
}

/** An SDK error as the SDK throws it: its name, AWS's message, and the HTTP status in $metadata. */
export function awsError(name: string, message: string, httpStatusCode = 400): Error {
  return Object.assign(new Error(message), { name, $metadata: { httpStatusCode } });
}
