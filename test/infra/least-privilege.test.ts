// Each Lambda role's grants, exactly: every action on every resource, once. A grant nothing calls, or one
// made twice (a Lambda's own grant beside what its SQS event source mapping already grants), fails here,
// and so does a missing one.
import type { Template } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import { outputSuffix, SERVICE } from '../../config/telemetry';
import { functionIdOf, projectConfig, resourcesOf, synthStack, withDestinations } from './synth';

type Statement = { Effect: string; Action: string | string[]; Resource: unknown };

let plain: Template;
let withForwarding: Template;

beforeAll(() => {
  ({ template: plain } = synthStack());
  ({ template: withForwarding } = synthStack(withDestinations()));
});

/** A logical id without the construct's `Inbox` prefix and CDK's hash: `InboxQueue96F60793` -> `Queue`. */
const shortId = (logicalId: string) => logicalId.replace(/^Inbox/, '').replace(/[0-9A-F]{8}$/, '');

/** A resource as a readable string: `Queue`, `PayloadBucket/payloads/*`, or a literal ARN. */
function label(resource: unknown): string {
  if (typeof resource === 'string') return resource;
  const r = resource as { Ref?: string; 'Fn::GetAtt'?: [string, string]; 'Fn::Join'?: [string, unknown[]] };
  if (r.Ref) return shortId(r.Ref);
  if (r['Fn::GetAtt']) return shortId(r['Fn::GetAtt'][0]);
  if (r['Fn::Join']) return r['Fn::Join'][1].map(label).join(r['Fn::Join'][0]);
  return JSON.stringify(resource);
}

/** `action resource` for each action of each Allow statement of every policy on the service's role. */
function grants(template: Template, service: string): string[] {
  const fn = template.toJSON().Resources[functionIdOf(template, service)];
  const role = fn.Properties.Role['Fn::GetAtt'][0] as string;
  const out: string[] = [];
  for (const policy of Object.values(resourcesOf(template, 'AWS::IAM::Policy'))) {
    const props = policy.Properties as {
      Roles: { Ref: string }[];
      PolicyDocument: { Statement: Statement[] };
    };
    if (!props.Roles.some((r) => r.Ref === role)) continue;
    for (const s of props.PolicyDocument.Statement) {
      if (s.Effect !== 'Allow') continue;
      for (const action of [s.Action].flat()) {
        for (const resource of [s.Resource].flat()) out.push(`${action} ${label(resource)}`);
      }
    }
  }
  return out.sort();
}

const providerSecrets = () =>
  Object.keys(projectConfig().providers).map(
    (p) => `secretsmanager:GetSecretValue ProviderSecret${outputSuffix(p)}`,
  );

/** What the SQS event source mapping grants its function on the queue it reads. */
const consumes = (queue: string) =>
  [
    'sqs:ChangeMessageVisibility',
    'sqs:DeleteMessage',
    'sqs:GetQueueAttributes',
    'sqs:GetQueueUrl',
    'sqs:ReceiveMessage',
  ].map((a) => `${a} ${queue}`);

describe('the verify role', () => {
  it('claims (PutItem), classifies (GetItem) and releases (UpdateItem) records, and deletes none', () => {
    expect(grants(plain, SERVICE.verify)).toEqual(
      [
        'dynamodb:GetItem InboxTable',
        'dynamodb:PutItem InboxTable',
        'dynamodb:UpdateItem InboxTable',
        'logs:CreateLogStream VerifyLogs',
        'logs:PutLogEvents VerifyLogs',
        's3:PutObject PayloadBucket/payloads/*',
        'sqs:SendMessage Queue',
        ...providerSecrets(),
      ].sort(),
    );
  });
});

describe('the processor role', () => {
  it('has its queue actions from the event source mapping alone, ChangeMessageVisibility once', () => {
    expect(grants(plain, SERVICE.process)).toEqual(
      [
        'dynamodb:GetItem InboxTable',
        'dynamodb:UpdateItem InboxTable',
        'logs:CreateLogStream ProcessorLogs',
        'logs:PutLogEvents ProcessorLogs',
        's3:GetObject PayloadBucket/payloads/*',
        's3:ListBucket PayloadBucket',
        's3:PutObject PayloadBucket/archive/*',
        's3:PutObject PayloadBucket/payloads/*',
        ...consumes('Queue'),
      ].sort(),
    );
  });

  it('with destinations, also sends to each destination queue, and reads none of them', () => {
    const destinationQueues = ['Audit', 'Crm', 'Events', 'Orders', 'Partner'].map(
      (d) => `sqs:SendMessage DestinationsQueue${d}`,
    );
    expect(grants(withForwarding, SERVICE.process)).toEqual(
      [...grants(plain, SERVICE.process), ...destinationQueues].sort(),
    );
  });
});

describe('every Lambda role', () => {
  it('is granted each action on each resource once (the forwarder included)', () => {
    for (const service of [SERVICE.verify, SERVICE.process, SERVICE.forward]) {
      const all = grants(withForwarding, service);
      expect(all.length).toBeGreaterThan(0);
      expect(all.filter((g, i) => all.indexOf(g) !== i)).toEqual([]);
    }
  });
});
