// A synthesized stack as IAM sees it once deployed: every CloudFormation token replaced by a concrete fake
// value (account 123456789012, us-east-1, names derived from the stack name and logical id, as
// CloudFormation generates them), so the role policies, the resource policies and the Lambdas' own
// environment name the same resources the handlers then call.
import type { Template } from 'aws-cdk-lib/assertions';
import { SERVICE } from '../../config/telemetry';
import type { Actor } from './aws-call-log';

export const ACCOUNT = '123456789012';
export const REGION = 'us-east-1';

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type Resource = { Type: string; Properties?: Record<string, Json> };

export interface PolicyDocument {
  Version?: string;
  Statement: Statement[];
}

export interface Statement {
  Sid?: string;
  Effect: 'Allow' | 'Deny';
  Action?: string | string[];
  Resource?: string | string[];
  Principal?: Json;
  Condition?: Record<string, Record<string, string | string[]>>;
}

export interface NamedPolicy {
  name: string;
  policy: PolicyDocument;
}

/** A call the Lambda service makes on a function role's behalf: its SQS event source mappings' polling. */
export interface ServiceCall {
  actor: Actor;
  action: string;
  arn: string;
}

const LAMBDA_ACTOR: Record<string, Actor> = {
  [SERVICE.verify]: 'verify',
  [SERVICE.process]: 'processor',
  [SERVICE.forward]: 'forwarder',
};

/**
 * What an SQS event source mapping does with the function's role, as Lambda documents it (and as the
 * AWSLambdaSQSQueueExecutionRole managed policy grants): it reads the queue's attributes, receives and
 * deletes. Changing a message's visibility is the function's own business.
 */
const EVENT_SOURCE_ACTIONS = ['sqs:ReceiveMessage', 'sqs:DeleteMessage', 'sqs:GetQueueAttributes'];

function props(resource: Resource): Record<string, Json> {
  return resource.Properties ?? {};
}

export class DeployedTemplate {
  readonly resources: Record<string, Resource>;
  readonly outputs: Record<string, string>;

  constructor(
    template: Template,
    readonly stackName: string,
  ) {
    const json = template.toJSON() as {
      Resources: Record<string, Resource>;
      Outputs?: Record<string, { Value: Json }>;
    };
    this.resources = json.Resources;
    this.outputs = Object.fromEntries(
      Object.entries(json.Outputs ?? {}).map(([key, output]) => [key, this.str(output.Value)]),
    );
  }

  private physicalName(logicalId: string): string {
    return `${this.stackName}-${logicalId}`;
  }

  private ref(logicalId: string): string {
    switch (logicalId) {
      case 'AWS::Partition':
        return 'aws';
      case 'AWS::Region':
        return REGION;
      case 'AWS::AccountId':
        return ACCOUNT;
      case 'AWS::URLSuffix':
        return 'amazonaws.com';
      case 'AWS::StackName':
        return this.stackName;
    }
    const resource = this.resources[logicalId];
    if (!resource) throw new Error(`Ref to unknown resource ${logicalId}`);
    const props = resource.Properties ?? {};
    switch (resource.Type) {
      case 'AWS::SQS::Queue':
        return `https://sqs.${REGION}.amazonaws.com/${ACCOUNT}/${this.queueName(logicalId)}`;
      case 'AWS::S3::Bucket':
        return this.physicalName(logicalId).toLowerCase();
      case 'AWS::SecretsManager::Secret':
        return `arn:aws:secretsmanager:${REGION}:${ACCOUNT}:secret:${logicalId}-AbCdEf`;
      case 'AWS::SNS::Topic':
        return `arn:aws:sns:${REGION}:${ACCOUNT}:${this.physicalName(logicalId)}`;
      case 'AWS::Events::EventBus':
        return this.str(props.Name ?? this.physicalName(logicalId));
      default:
        return this.physicalName(logicalId);
    }
  }

  private queueName(logicalId: string): string {
    const name = this.resources[logicalId]?.Properties?.QueueName;
    return name === undefined ? this.physicalName(logicalId) : this.str(name);
  }

  private getAtt(logicalId: string, attribute: string): string {
    const resource = this.resources[logicalId];
    if (!resource) throw new Error(`GetAtt of unknown resource ${logicalId}`);
    const ref = this.ref(logicalId);
    if (attribute !== 'Arn') {
      if (resource.Type === 'AWS::SQS::Queue' && attribute === 'QueueName') return this.queueName(logicalId);
      if (resource.Type === 'AWS::SQS::Queue' && attribute === 'QueueUrl') return ref;
      const host = ref.toLowerCase().replace(/[^a-z0-9]/g, '');
      if (attribute === 'ApiEndpoint') return `https://${host}.execute-api.${REGION}.amazonaws.com`;
      if (attribute === 'FunctionUrl') return `https://${host}.lambda-url.${REGION}.on.aws/`;
      return `${ref}.${attribute}`;
    }
    switch (resource.Type) {
      case 'AWS::DynamoDB::Table':
        return `arn:aws:dynamodb:${REGION}:${ACCOUNT}:table/${ref}`;
      case 'AWS::SQS::Queue':
        return `arn:aws:sqs:${REGION}:${ACCOUNT}:${this.queueName(logicalId)}`;
      case 'AWS::S3::Bucket':
        return `arn:aws:s3:::${ref}`;
      case 'AWS::Events::EventBus':
        return `arn:aws:events:${REGION}:${ACCOUNT}:event-bus/${ref}`;
      case 'AWS::Lambda::Function':
        return `arn:aws:lambda:${REGION}:${ACCOUNT}:function:${ref}`;
      case 'AWS::IAM::Role':
        return `arn:aws:iam::${ACCOUNT}:role/${ref}`;
      case 'AWS::Logs::LogGroup':
        return `arn:aws:logs:${REGION}:${ACCOUNT}:log-group:${ref}:*`;
      default:
        return `arn:aws:${resource.Type.split('::')[1]?.toLowerCase()}:${REGION}:${ACCOUNT}:${ref}`;
    }
  }

  /** The physical id CloudFormation reports for a resource: a name, a queue URL, an ARN (as Ref gives). */
  physicalId(logicalId: string): string {
    return this.ref(logicalId);
  }

  /** One property of a resource with its intrinsic functions evaluated; undefined when it is not set. */
  property(logicalId: string, name: string): Json | undefined {
    const value = this.resources[logicalId]?.Properties?.[name];
    return value === undefined ? undefined : this.resolve(value);
  }

  /** Every resource of the stack, as ListStackResources lists it. */
  stackResources(): { logicalId: string; physicalId: string; type: string }[] {
    return Object.entries(this.resources).map(([logicalId, r]) => ({
      logicalId,
      physicalId: this.physicalId(logicalId),
      type: r.Type,
    }));
  }

  /** A value with its intrinsic functions evaluated. */
  resolve(value: Json): Json {
    if (Array.isArray(value)) return value.map((item) => this.resolve(item));
    if (value === null || typeof value !== 'object') return value;
    const keys = Object.keys(value);
    if (keys.length === 1) {
      const [fn] = keys as [string];
      const args = value[fn] as Json;
      switch (fn) {
        case 'Ref':
          return this.ref(args as string);
        case 'Fn::GetAtt': {
          const [id, attribute] = Array.isArray(args) ? args : String(args).split('.');
          return this.getAtt(String(id), String(attribute));
        }
        case 'Fn::Join': {
          const [separator, parts] = args as [string, Json[]];
          return (this.resolve(parts) as Json[]).map((part) => this.str(part)).join(separator);
        }
        case 'Fn::Select': {
          const [index, list] = args as [number, Json];
          return (this.resolve(list) as Json[])[Number(index)] ?? '';
        }
        case 'Fn::Split': {
          const [separator, text] = args as [string, Json];
          return this.str(this.resolve(text)).split(separator);
        }
        case 'Fn::Sub': {
          const [text, variables] = (Array.isArray(args) ? args : [args, {}]) as [
            string,
            Record<string, Json>,
          ];
          return text.replace(/\$\{([^}]+)\}/g, (_, name: string) => {
            if (Object.hasOwn(variables, name)) return this.str(this.resolve(variables[name] as Json));
            const [id, attribute] = name.split('.');
            return attribute ? this.getAtt(id as string, attribute) : this.ref(id as string);
          });
        }
      }
    }
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, this.resolve(item)]));
  }

  private str(value: Json): string {
    const resolved = this.resolve(value);
    if (typeof resolved !== 'string') throw new Error(`expected a string, got ${JSON.stringify(resolved)}`);
    return resolved;
  }

  private ofType(type: string): [string, Resource][] {
    return Object.entries(this.resources).filter(([, r]) => r.Type === type);
  }

  /** The Lambda function of an actor: its logical id and resolved environment. */
  lambda(actor: Exclude<Actor, 'cli'>): {
    logicalId: string;
    arn: string;
    env: Record<string, string>;
    roleArn: string;
  } {
    const found = this.ofType('AWS::Lambda::Function').find(([, r]) => {
      const env = (r.Properties?.Environment as { Variables?: Record<string, Json> } | undefined)?.Variables;
      return LAMBDA_ACTOR[String(env?.POWERTOOLS_SERVICE_NAME)] === actor;
    });
    if (!found) throw new Error(`no ${actor} Lambda in the template`);
    const [logicalId, resource] = found;
    const env = (props(resource).Environment as { Variables: Record<string, Json> }).Variables;
    return {
      logicalId,
      arn: this.getAtt(logicalId, 'Arn'),
      env: Object.fromEntries(Object.entries(env).map(([key, value]) => [key, this.str(value)])),
      roleArn: this.str(resource.Properties?.Role as Json),
    };
  }

  hasLambda(actor: Exclude<Actor, 'cli'>): boolean {
    try {
      this.lambda(actor);
      return true;
    } catch {
      return false;
    }
  }

  private roleLogicalId(actor: Exclude<Actor, 'cli'>): string {
    const role = this.ofType('AWS::Lambda::Function').find(([id]) => id === this.lambda(actor).logicalId)?.[1]
      .Properties?.Role as { 'Fn::GetAtt': [string, string] };
    return role['Fn::GetAtt'][0];
  }

  /**
   * The role's identity policies: its inline policies and every AWS::IAM::Policy attached to it. Managed
   * policies would be listed too; the Lambda roles have none (logs go through their own statements).
   */
  identityPolicies(actor: Exclude<Actor, 'cli'>): NamedPolicy[] {
    const roleId = this.roleLogicalId(actor);
    const role = this.resources[roleId] as Resource;
    if ((role.Properties?.ManagedPolicyArns as Json[] | undefined)?.length) {
      throw new Error(`${actor}'s role has managed policies, which this evaluation does not read`);
    }
    const inline = ((role.Properties?.Policies ?? []) as { PolicyName: string; PolicyDocument: Json }[]).map(
      (p) => ({ name: p.PolicyName, policy: this.resolve(p.PolicyDocument) as unknown as PolicyDocument }),
    );
    const attached = this.ofType('AWS::IAM::Policy')
      .filter(([, r]) => (props(r).Roles as { Ref?: string }[]).some((ref) => ref.Ref === roleId))
      .map(([id, r]) => ({
        name: id,
        policy: this.resolve(r.Properties?.PolicyDocument as Json) as unknown as PolicyDocument,
      }));
    return [...inline, ...attached];
  }

  /** The resource policy in the stack on the resource an ARN names (queue, bucket, object, topic). */
  resourcePolicy(arn: string): PolicyDocument | undefined {
    const documents: Json[] = [];
    for (const [, r] of this.ofType('AWS::SQS::QueuePolicy')) {
      const queues = (props(r).Queues as Json[]).map((q) => this.str(q));
      if (
        queues.some(
          (url) => arn === `arn:aws:sqs:${REGION}:${ACCOUNT}:${url.slice(url.lastIndexOf('/') + 1)}`,
        )
      ) {
        documents.push(r.Properties?.PolicyDocument as Json);
      }
    }
    for (const [, r] of this.ofType('AWS::S3::BucketPolicy')) {
      const bucket = this.str(r.Properties?.Bucket as Json);
      if (arn === `arn:aws:s3:::${bucket}` || arn.startsWith(`arn:aws:s3:::${bucket}/`)) {
        documents.push(r.Properties?.PolicyDocument as Json);
      }
    }
    if (documents.length === 0) return undefined;
    const statements = documents.flatMap((d) => (this.resolve(d) as unknown as PolicyDocument).Statement);
    return { Version: '2012-10-17', Statement: statements };
  }

  /** Every SQS event source mapping's polling, as calls of the function's role. */
  eventSourceCalls(): ServiceCall[] {
    return this.ofType('AWS::Lambda::EventSourceMapping').flatMap(([, r]) => {
      const functionName = this.str(r.Properties?.FunctionName as Json);
      const actor = (['verify', 'processor', 'forwarder'] as const).find(
        (a) => this.hasLambda(a) && this.ref(this.lambda(a).logicalId) === functionName,
      );
      if (!actor) throw new Error(`an event source mapping of an unknown function ${functionName}`);
      const arn = this.str(r.Properties?.EventSourceArn as Json);
      return EVENT_SOURCE_ACTIONS.map((action) => ({ actor, action, arn }));
    });
  }

  /** The queues of the stack, by name, to their ARNs. */
  queueArns(): Record<string, string> {
    return Object.fromEntries(
      this.ofType('AWS::SQS::Queue').map(([id]) => [this.queueName(id), this.getAtt(id, 'Arn')]),
    );
  }
}
