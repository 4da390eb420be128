// The evaluation least-privilege.test.ts relies on, shown to say no where AWS says no: a request the role
// has no grant for, a request over plain HTTP (the stack's queue policy denies it even though the role
// allows it), another function's event source mapping (the grant's condition), another account's
// resource with no grant of its own, another stack's alarm.
import { beforeAll, describe, expect, it } from 'vitest';
import { parseConfig } from '../../../config';
import { type Caller, decide, type IamRequest } from '../../support/iam-evaluate';
import { ACCOUNT, type DeployedTemplate, REGION } from '../../support/iam-template';
import { synthVariant } from './deployed-stack';
import { operatorPolicy } from './operator-policy';

let deployed: DeployedTemplate;
let verify: Caller;
let operator: Caller;

beforeAll(() => {
  const synthesized = synthVariant(
    {
      name: 'eval',
      frontDoor: 'rest',
      destinations: { orders: { type: 'http', url: 'https://orders.example/in' } },
    },
    {},
  );
  deployed = synthesized.deployed;
  verify = {
    principal: `arn:aws:sts::${ACCOUNT}:assumed-role/verify/fn`,
    identityPolicies: deployed.identityPolicies('verify'),
  };
  operator = {
    principal: `arn:aws:sts::${ACCOUNT}:assumed-role/operator/someone`,
    identityPolicies: [
      { name: 'operators', policy: operatorPolicy(deployed, parseConfig(synthesized.configInput)) },
    ],
  };
});

const queueArn = (name: string) => `arn:aws:sqs:${REGION}:${ACCOUNT}:${deployed.stackName}-${name}`;
const resourcePolicy = (arn: string) => deployed.resourcePolicy(arn);

async function result(caller: Caller, request: Omit<IamRequest, 'via'>) {
  return (await decide({ ...request, via: 'test' }, caller, resourcePolicy)).result;
}

describe('the offline IAM evaluation', () => {
  it('allows what the role grants, over TLS', async () => {
    expect(
      await result(verify, { actor: 'verify', action: 'sqs:SendMessage', arn: queueArn('Inbox-queue') }),
    ).toBe('Allowed');
  });

  it('refuses what the role does not grant', async () => {
    const dlq = Object.values(deployed.queueArns()).find((arn) => arn.includes('DeadLetterQueue')) as string;
    expect(await result(verify, { actor: 'verify', action: 'sqs:SendMessage', arn: dlq })).toBe(
      'ImplicitlyDenied',
    );
    expect(
      await result(verify, { actor: 'verify', action: 'sqs:ReceiveMessage', arn: queueArn('Inbox-queue') }),
    ).toBe('ImplicitlyDenied');
  });

  it("applies the stack's queue policy: a request over plain HTTP is denied though the role allows it", async () => {
    const request = {
      actor: 'verify' as const,
      action: 'sqs:SendMessage',
      arn: queueArn('Inbox-queue'),
      context: { 'aws:SecureTransport': 'false' },
    };
    expect(await result(verify, request)).toBe('ExplicitlyDenied');
  });

  it("applies a grant's condition: the operator may enable the forwarder's mappings, not another function's", async () => {
    const mapping = `arn:aws:lambda:${REGION}:${ACCOUNT}:event-source-mapping:esm-1`;
    const own = { 'lambda:FunctionArn': deployed.lambda('forwarder').arn };
    const other = { 'lambda:FunctionArn': `arn:aws:lambda:${REGION}:${ACCOUNT}:function:someone-else` };
    const update = { actor: 'cli' as const, action: 'lambda:UpdateEventSourceMapping', arn: mapping };
    expect(await result(operator, { ...update, context: own })).toBe('Allowed');
    expect(await result(operator, { ...update, context: other })).toBe('ImplicitlyDenied');
  });

  it("lets the operator set the state of the stack's alarms (doctor's drill), not of another stack's", async () => {
    const alarm = (name: string) => `arn:aws:cloudwatch:${REGION}:${ACCOUNT}:alarm:${name}`;
    const drill = { actor: 'cli' as const, action: 'cloudwatch:SetAlarmState' };
    const own = alarm(`${deployed.stackName}-InboxMonitoringDeadLettersAlarm1A2B3C4D-AbCdEfGhIjKl`);
    expect(await result(operator, { ...drill, arn: own })).toBe('Allowed');
    expect(await result(operator, { ...drill, arn: alarm('Billing-EstimatedChargesAlarm') })).toBe(
      'ImplicitlyDenied',
    );
  });

  it('needs a grant on this side for a resource in another account', async () => {
    const elsewhere = 'arn:aws:sqs:eu-west-1:210987654321:crm-inbound';
    expect(await result(verify, { actor: 'verify', action: 'sqs:SendMessage', arn: elsewhere })).toBe(
      'ImplicitlyDenied',
    );
  });
});
