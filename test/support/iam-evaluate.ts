// Evaluates recorded AWS calls against IAM policies offline with @cloud-copilot/iam-simulate, the way AWS
// decides a request: the caller's identity policies, and the resource's policy where it has one. Also the
// other direction: the grants (action x resource of an Allow statement) no recorded call used.
import { runSimulation } from '@cloud-copilot/iam-simulate';
import type { Actor, AwsCall, NamedResource } from './aws-call-log';
import { ACCOUNT, type NamedPolicy, type PolicyDocument, REGION } from './iam-template';

/** One IAM request: who, what, on which ARN. */
export interface IamRequest {
  actor: Actor;
  action: string;
  arn: string;
  /** What made it: the API operation, or `event source mapping` for Lambda's polling. */
  via: string;
  context?: Record<string, string>;
}

export interface Decision extends IamRequest {
  result: 'Allowed' | 'ImplicitlyDenied' | 'ExplicitlyDenied' | 'Error';
  /** Set when the resource is in another account, whose own policy this stack does not hold. */
  crossAccount?: boolean;
  error?: string;
}

const SQS_URL = /^https:\/\/sqs\.([a-z0-9-]+)\.amazonaws\.com\/(\d{12})\/([A-Za-z0-9_-]+)$/;

/** The ARN of a resource as the code named it. */
export function arnOf(resource: NamedResource): string {
  switch (resource.kind) {
    case 'table':
      return `arn:aws:dynamodb:${REGION}:${ACCOUNT}:table/${resource.name}${resource.index ? `/index/${resource.index}` : ''}`;
    case 'queue': {
      const match = SQS_URL.exec(resource.url);
      if (!match) throw new Error(`not an SQS queue URL of AWS: ${resource.url}`);
      return `arn:aws:sqs:${match[1]}:${match[2]}:${match[3]}`;
    }
    case 'queue-arn':
    case 'arn':
      return resource.arn;
    case 'bucket':
      return `arn:aws:s3:::${resource.bucket}`;
    case 'object':
      return `arn:aws:s3:::${resource.bucket}/${resource.key}`;
    case 'bus':
      return resource.nameOrArn.startsWith('arn:')
        ? resource.nameOrArn
        : `arn:aws:events:${REGION}:${ACCOUNT}:event-bus/${resource.nameOrArn}`;
    case 'stack':
      return `arn:aws:cloudformation:${REGION}:${ACCOUNT}:stack/${resource.name}/6f2b1c40-0000-4000-8000-000000000000`;
    case 'event-source-mapping':
      return `arn:aws:lambda:${REGION}:${ACCOUNT}:event-source-mapping:${resource.uuid}`;
    case 'alarm':
      return `arn:aws:cloudwatch:${REGION}:${ACCOUNT}:alarm:${resource.name}`;
    case 'function':
      return resource.nameOrArn.startsWith('arn:')
        ? resource.nameOrArn
        : `arn:aws:lambda:${REGION}:${ACCOUNT}:function:${resource.nameOrArn}`;
    case 'any':
      return '*';
  }
}

export function requestsOf(calls: readonly AwsCall[]): IamRequest[] {
  return calls.map((call) => ({
    actor: call.actor,
    action: call.action,
    arn: arnOf(call.resource),
    via: call.operation,
    ...(call.context ? { context: call.context } : {}),
  }));
}

/** The same request made many times is decided once: what a table counts is action x resource. */
export function distinct(requests: readonly IamRequest[]): IamRequest[] {
  const seen = new Map<string, IamRequest>();
  for (const r of requests) {
    const key = `${r.actor} ${r.action} ${r.arn} ${JSON.stringify(r.context ?? {})}`;
    if (!seen.has(key)) seen.set(key, r);
  }
  return [...seen.values()];
}

function accountOf(arn: string): string {
  const account = arn.split(':')[4];
  return account && /^\d{12}$/.test(account) ? account : ACCOUNT;
}

export interface Caller {
  principal: string;
  identityPolicies: NamedPolicy[];
}

/**
 * Decides one request as AWS would over TLS (the stack's resource policies deny anything else). A resource
 * in another account is allowed there only by that account's own policy, which is not in this stack: the
 * grant its owner is asked for (the account as principal, the action on the resource) stands in for it, so
 * what is checked is this side's half.
 */
export async function decide(
  request: IamRequest,
  caller: Caller,
  resourcePolicy: (arn: string) => PolicyDocument | undefined,
): Promise<Decision> {
  // STS documents GetCallerIdentity as needing no permission: no policy, not even a Deny, refuses it.
  if (request.action === 'sts:GetCallerIdentity') return { ...request, result: 'Allowed' };
  const account = accountOf(request.arn);
  const crossAccount = account !== ACCOUNT;
  const policy = crossAccount
    ? {
        Version: '2012-10-17',
        Statement: [
          { Effect: 'Allow', Principal: { AWS: ACCOUNT }, Action: request.action, Resource: request.arn },
        ],
      }
    : resourcePolicy(request.arn);
  const response = await runSimulation(
    {
      identityPolicies: caller.identityPolicies,
      serviceControlPolicies: [],
      resourceControlPolicies: [],
      ...(policy ? { resourcePolicy: policy } : {}),
      request: {
        principal: caller.principal,
        action: request.action,
        resource: { resource: request.arn, accountId: account },
        contextVariables: { 'aws:SecureTransport': 'true', ...request.context },
      },
    },
    {},
  );
  if (response.resultType === 'error') {
    return { ...request, result: 'Error', error: JSON.stringify(response.errors).slice(0, 300) };
  }
  return {
    ...request,
    result: response.overallResult as Decision['result'],
    ...(crossAccount ? { crossAccount } : {}),
  };
}

/** One grant of an Allow statement: an action on a resource pattern, and the policy it is in. */
export interface Grant {
  action: string;
  resource: string;
  policy: string;
}

function asList(value: string | string[] | undefined): string[] {
  return value === undefined ? [] : Array.isArray(value) ? value : [value];
}

function globMatches(pattern: string, value: string, ignoreCase: boolean): boolean {
  const source = pattern
    .replace(/[.+^${}()|[\]\\]/g, '\\$&')
    .replace(/\*/g, '.*')
    .replace(/\?/g, '.');
  return new RegExp(`^${source}$`, ignoreCase ? 'i' : '').test(value);
}

/**
 * Every action x resource the policies allow. CloudWatch Logs grants are left out: the Lambda runtime
 * writes the logs, not the code, so no SDK call ever uses them.
 */
export function grantsOf(policies: readonly NamedPolicy[]): Grant[] {
  return policies.flatMap(({ name, policy }) =>
    policy.Statement.filter((s) => s.Effect === 'Allow').flatMap((s) =>
      asList(s.Action)
        .filter((action) => !action.startsWith('logs:'))
        .flatMap((action) => asList(s.Resource).map((resource) => ({ action, resource, policy: name }))),
    ),
  );
}

/** The grants no allowed request falls under. */
export function unusedGrants(grants: readonly Grant[], allowed: readonly IamRequest[]): Grant[] {
  return grants.filter(
    (g) =>
      !allowed.some(
        (r) =>
          globMatches(g.action, r.action, true) &&
          (g.resource === '*' || globMatches(g.resource, r.arn, false)),
      ),
  );
}

/** The same action on the same resource granted more than once. */
export function duplicateGrants(grants: readonly Grant[]): Grant[] {
  const seen = new Set<string>();
  const duplicates: Grant[] = [];
  for (const g of grants) {
    const key = `${g.action.toLowerCase()} ${g.resource}`;
    if (seen.has(key)) duplicates.push(g);
    seen.add(key);
  }
  return duplicates;
}
