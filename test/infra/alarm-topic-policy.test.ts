// The alarm topic's policy. Any topic policy replaces SNS's default one (which lets the account's CloudWatch
// alarms publish), so a topic with only the TLS Deny refuses every alarm notification; these tests pin the
// statement that lets them through, and that every alarm in the stack notifies a topic that has it.
import { Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import * as sns from 'aws-cdk-lib/aws-sns';
import { beforeAll, describe, expect, it } from 'vitest';
import { WebhookInboxStack } from '../../lib/webhook-inbox-stack';
import { accountArn, createApp, resourcesOf, STACK_NAME, synthStack, withDestinations } from './synth';

type Statement = {
  Sid?: string;
  Effect: string;
  Principal: unknown;
  Action: string | string[];
  Resource: unknown;
  Condition?: Record<string, Record<string, unknown>>;
};

/** The service principal CloudWatch alarm actions publish to SNS as. */
const CLOUDWATCH = 'cloudwatch.amazonaws.com';

let template: Template;

beforeAll(() => {
  // With destinations: every kind of alarm the construct makes, the forwarder's and each destination's too.
  ({ template } = synthStack(withDestinations()));
});

/** Topic logical id to the statements of the topic policies that name it. */
function statementsByTopic(t: Template): Map<string, Statement[]> {
  const byTopic = new Map<string, Statement[]>();
  for (const policy of Object.values(resourcesOf(t, 'AWS::SNS::TopicPolicy'))) {
    const props = policy.Properties as {
      Topics: { Ref: string }[];
      PolicyDocument: { Statement: Statement[] };
    };
    for (const { Ref } of props.Topics) {
      byTopic.set(Ref, [...(byTopic.get(Ref) ?? []), ...props.PolicyDocument.Statement]);
    }
  }
  return byTopic;
}

const allowsCloudWatchAlarms = (topicId: string) => (s: Statement) =>
  s.Effect === 'Allow' &&
  JSON.stringify(s.Principal) === JSON.stringify({ Service: CLOUDWATCH }) &&
  [s.Action].flat().includes('sns:Publish') &&
  JSON.stringify(s.Resource) === JSON.stringify({ Ref: topicId });

describe('the created alarm topic', () => {
  const topicId = () => Object.keys(resourcesOf(template, 'AWS::SNS::Topic'))[0] as string;

  it('lets CloudWatch publish, for alarms of this account and region only', () => {
    expect(Object.keys(resourcesOf(template, 'AWS::SNS::Topic'))).toHaveLength(1);
    const allows = (statementsByTopic(template).get(topicId()) ?? []).filter(
      allowsCloudWatchAlarms(topicId()),
    );
    expect(allows).toHaveLength(1);
    expect(allows[0]).toMatchObject({
      Action: 'sns:Publish',
      Condition: {
        ArnLike: { 'aws:SourceArn': accountArn('cloudwatch', 'alarm:*') },
        StringEquals: { 'aws:SourceAccount': { Ref: 'AWS::AccountId' } },
      },
    });
  });

  it('still refuses publishing without TLS', () => {
    expect(statementsByTopic(template).get(topicId())).toContainEqual(
      expect.objectContaining({
        Effect: 'Deny',
        Principal: '*',
        Action: 'sns:Publish',
        Condition: { Bool: { 'aws:SecureTransport': 'false' } },
      }),
    );
  });

  it('is not KMS-encrypted, so CloudWatch needs no key grant to publish to it', () => {
    expect(resourcesOf(template, 'AWS::SNS::Topic')[topicId()]?.Properties?.KmsMasterKeyId).toBeUndefined();
  });
});

describe('every alarm', () => {
  it('notifies, on ALARM and on OK, a topic whose policy lets CloudWatch alarms publish', () => {
    const alarms = Object.values(resourcesOf(template, 'AWS::CloudWatch::Alarm'));
    expect(alarms.length).toBeGreaterThan(6);
    const policies = statementsByTopic(template);
    for (const alarm of alarms) {
      const props = alarm.Properties as { AlarmActions?: { Ref: string }[]; OKActions?: { Ref: string }[] };
      const actions = [...(props.AlarmActions ?? []), ...(props.OKActions ?? [])];
      expect(actions).toHaveLength(2);
      for (const { Ref: topicId } of actions) {
        expect((policies.get(topicId) ?? []).some(allowsCloudWatchAlarms(topicId))).toBe(true);
      }
    }
  });
});

describe('a topic passed in as alarmTopic', () => {
  it('is used as it is: the construct creates no topic and writes no topic policy', () => {
    const app = createApp();
    const existing = sns.Topic.fromTopicArn(
      new Stack(app, 'Operations'),
      'OpsTopic',
      'arn:aws:sns:eu-west-1:123456789012:ops-alarms',
    );
    const stack = new WebhookInboxStack(app, STACK_NAME, { inbox: { alarmTopic: existing } });
    const t = Template.fromStack(stack);
    expect(resourcesOf(t, 'AWS::SNS::Topic')).toEqual({});
    expect(resourcesOf(t, 'AWS::SNS::TopicPolicy')).toEqual({});
    for (const alarm of Object.values(resourcesOf(t, 'AWS::CloudWatch::Alarm'))) {
      expect(alarm.Properties?.AlarmActions).toEqual([existing.topicArn]);
    }
  });
});
