// Records every AWS call made under an actor (a Lambda's role, or the operator running the CLI) as the IAM
// request it is: an action (`dynamodb:PutItem`) and the resources it names (a table, a queue, an object).
// An SDK middleware in the initialize step sees the command and its input before anything is sent; it is
// added to every client when it first sends, so the clients the code under test builds for itself (the
// CLI's, STS's) are recorded too. The actor is an AsyncLocalStorage tag set around a handler call or a
// command: calls made outside one (a test's own setup and reads) are not recorded.
//
// Services with no emulator (Secrets Manager, EventBridge, Lambda, CloudFormation, CloudWatch, STS) are
// answered by stubs at the same step, so their calls are recorded without leaving the process.
import { AsyncLocalStorage } from 'node:async_hooks';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';

export type Actor = 'verify' | 'processor' | 'forwarder' | 'cli';

/** One resource an IAM request names, as the caller named it (a table name, a queue URL, an ARN, ...). */
export type NamedResource =
  | { kind: 'table'; name: string; index?: string }
  | { kind: 'queue'; url: string }
  | { kind: 'queue-arn'; arn: string }
  | { kind: 'bucket'; bucket: string }
  | { kind: 'object'; bucket: string; key: string }
  | { kind: 'arn'; arn: string }
  | { kind: 'bus'; nameOrArn: string }
  | { kind: 'stack'; name: string }
  | { kind: 'event-source-mapping'; uuid: string }
  | { kind: 'alarm'; name: string }
  | { kind: 'function'; nameOrArn: string }
  | { kind: 'any' };

export interface AwsCall {
  actor: Actor;
  /** The IAM action the call is authorized as, e.g. `sqs:SendMessage` for SendMessageBatch. */
  action: string;
  resource: NamedResource;
  /** The API operation, as sent: `ListObjectsV2`, `SendMessageBatch`, ... */
  operation: string;
  /** Condition keys the request carries that the policies test (`lambda:FunctionArn`). */
  context?: Record<string, string>;
}

/**
 * An answer for a service without an emulator: the command's output, from its input; or undefined, for
 * the emulator to answer after all (a stub that answers only some calls of an action).
 */
export type Stub = (
  input: Record<string, unknown>,
) => Record<string, unknown> | undefined | Promise<Record<string, unknown> | undefined>;

const SERVICE_PREFIX: Record<string, string> = {
  DynamoDBClient: 'dynamodb',
  SQSClient: 'sqs',
  S3Client: 's3',
  SecretsManagerClient: 'secretsmanager',
  EventBridgeClient: 'events',
  LambdaClient: 'lambda',
  CloudFormationClient: 'cloudformation',
  CloudWatchClient: 'cloudwatch',
  STSClient: 'sts',
};

/**
 * Operations authorized under another action's name: the batch forms under their single form, S3's
 * listing under ListBucket, HEAD under GetObject (as the service authorization reference lists them).
 */
const ACTION_OF: Record<string, string> = {
  'sqs:SendMessageBatch': 'sqs:SendMessage',
  'sqs:DeleteMessageBatch': 'sqs:DeleteMessage',
  'sqs:ChangeMessageVisibilityBatch': 'sqs:ChangeMessageVisibility',
  's3:ListObjectsV2': 's3:ListBucket',
  's3:ListObjects': 's3:ListBucket',
  's3:HeadObject': 's3:GetObject',
  's3:HeadBucket': 's3:ListBucket',
};

function str(value: unknown): string {
  return typeof value === 'string' ? value : '';
}

/** The resources an operation's input names, one IAM request each. */
function resourcesOf(prefix: string, operation: string, input: Record<string, unknown>): NamedResource[] {
  switch (prefix) {
    case 'dynamodb': {
      if (operation === 'BatchGetItem' || operation === 'BatchWriteItem') {
        return Object.keys((input.RequestItems ?? {}) as object).map((name) => ({ kind: 'table', name }));
      }
      const index = str(input.IndexName);
      return [{ kind: 'table', name: str(input.TableName), ...(index ? { index } : {}) }];
    }
    case 'sqs':
      if (operation === 'StartMessageMoveTask' || operation === 'ListMessageMoveTasks') {
        return [{ kind: 'queue-arn', arn: str(input.SourceArn) }];
      }
      return [{ kind: 'queue', url: str(input.QueueUrl) }];
    case 's3':
      return input.Key === undefined
        ? [{ kind: 'bucket', bucket: str(input.Bucket) }]
        : [{ kind: 'object', bucket: str(input.Bucket), key: str(input.Key) }];
    case 'secretsmanager':
      return [{ kind: 'arn', arn: str(input.SecretId) }];
    case 'events': {
      const buses = ((input.Entries ?? []) as { EventBusName?: string }[]).map(
        (e) => e.EventBusName ?? 'default',
      );
      return [...new Set(buses)].map((nameOrArn) => ({ kind: 'bus', nameOrArn }));
    }
    case 'lambda':
      if (operation === 'UpdateEventSourceMapping')
        return [{ kind: 'event-source-mapping', uuid: str(input.UUID) }];
      if (operation === 'GetFunctionConcurrency')
        return [{ kind: 'function', nameOrArn: str(input.FunctionName) }];
      return [{ kind: 'any' }];
    case 'cloudwatch': {
      // The alarm actions are authorized on each alarm they name (the alarm resource type); a call that
      // names none (a metric read, a listing of every alarm) on `*`.
      const names =
        operation === 'DescribeAlarms'
          ? ((input.AlarmNames ?? []) as string[])
          : str(input.AlarmName)
            ? [str(input.AlarmName)]
            : [];
      return names.length > 0 ? names.map((name) => ({ kind: 'alarm', name })) : [{ kind: 'any' }];
    }
    case 'cloudformation':
      return [{ kind: 'stack', name: str(input.StackName) }];
    default:
      return [{ kind: 'any' }];
  }
}

/**
 * What else a call is authorized for. A message move task reads and deletes from its source and sends to
 * its destination on the caller's credentials: SQS checks ReceiveMessage, DeleteMessage and
 * GetQueueAttributes on the source and SendMessage on the destination when the task starts.
 */
function impliedCalls(call: AwsCall, input: Record<string, unknown>): AwsCall[] {
  if (call.operation !== 'StartMessageMoveTask') return [];
  const source = call.resource;
  const implied = ['sqs:ReceiveMessage', 'sqs:DeleteMessage', 'sqs:GetQueueAttributes'].map((action) => ({
    ...call,
    action,
    resource: source,
  }));
  const destination = str(input.DestinationArn);
  return destination
    ? [...implied, { ...call, action: 'sqs:SendMessage', resource: { kind: 'queue-arn', arn: destination } }]
    : implied;
}

export class AwsCallLog {
  readonly calls: AwsCall[] = [];
  private readonly actor = new AsyncLocalStorage<Actor>();
  private readonly stubs = new Map<string, Stub>();
  /** Condition keys a stub learned (a mapping's function), for the calls that name that resource later. */
  readonly conditionKeys = new Map<string, Record<string, string>>();
  /**
   * Where a queue the code names by its AWS URL (from the stack's outputs or a Lambda's environment) is in
   * the emulator, whose queue URLs have another host. The call is recorded with the AWS URL.
   */
  readonly emulatorQueueUrls = new Map<string, string>();

  /** Runs `work` as `actor`: every AWS call it makes is recorded under that actor. */
  as<T>(actor: Actor, work: () => Promise<T>): Promise<T> {
    return this.actor.run(actor, work);
  }

  /**
   * Runs `work` as no actor, even from inside one: what a test does on the side of a call (the processing
   * a delivery to its front door sets off) is not the caller's.
   */
  unrecorded<T>(work: () => T): T {
    return this.actor.exit(work);
  }

  private readonly failures: { actor: Actor; action: string; error: Error }[] = [];

  /** The next call of `action` by `actor` fails with `error` (after being recorded): a fault path's calls. */
  failNext(actor: Actor, action: string, error: Error): void {
    this.failures.push({ actor, action, error });
  }

  /** Answers `action` (e.g. `secretsmanager:GetSecretValue`) with `stub` instead of sending it. */
  stub(action: string, stub: Stub): void {
    this.stubs.set(action, stub);
  }

  /** Records a call made outside an SDK client (the verify Lambda's signed PutObject). */
  record(call: Omit<AwsCall, 'actor'>): void {
    const actor = this.actor.getStore();
    if (actor) this.calls.push({ ...call, actor });
  }

  private toEmulator(args: { input: Record<string, unknown> }) {
    const url = args.input.QueueUrl;
    const name = typeof url === 'string' ? url.slice(url.lastIndexOf('/') + 1) : undefined;
    const emulated = name === undefined ? undefined : this.emulatorQueueUrls.get(name);
    return emulated === undefined ? args : { ...args, input: { ...args.input, QueueUrl: emulated } };
  }

  /** The middleware, for one client. */
  middleware() {
    return (
      next: (args: unknown) => Promise<unknown>,
      context: { clientName?: string; commandName?: string },
    ) =>
      async (args: { input: Record<string, unknown> }) => {
        const actor = this.actor.getStore();
        const prefix = SERVICE_PREFIX[context.clientName ?? ''];
        const operation = (context.commandName ?? '').replace(/Command$/, '');
        if (!actor || !prefix) return next(args);
        const name = `${prefix}:${operation}`;
        for (const resource of resourcesOf(prefix, operation, args.input)) {
          const call: AwsCall = { actor, action: ACTION_OF[name] ?? name, resource, operation };
          if (resource.kind === 'event-source-mapping') {
            const keys = this.conditionKeys.get(resource.uuid);
            if (keys) call.context = keys;
          }
          this.calls.push(call, ...impliedCalls(call, args.input));
        }
        const failure = this.failures.findIndex((f) => f.actor === actor && f.action === name);
        if (failure >= 0) throw this.failures.splice(failure, 1)[0]?.error;
        const stub = this.stubs.get(name);
        const answer = stub ? await stub(args.input) : undefined;
        if (!answer) return next(this.toEmulator(args));
        return { output: { ...answer, $metadata: { httpStatusCode: 200 } }, response: {} };
      };
  }
}

const installed = new WeakSet<object>();

/**
 * Adds the log's middleware to every SDK client of this process when it first sends. Every client class
 * extends the same base Client, whose `send` is patched once; the log in force is the last one installed.
 */
export function installAwsCallLog(log: AwsCallLog): void {
  current = log;
  const base = Object.getPrototypeOf(Object.getPrototypeOf(new DynamoDBClient({ region: 'us-east-1' }))) as {
    send: (this: ClientLike, ...args: unknown[]) => unknown;
  };
  if (installed.has(base)) return;
  installed.add(base);
  const send = base.send;
  base.send = function (this: ClientLike, ...args: unknown[]) {
    if (!instrumented.has(this)) {
      instrumented.add(this);
      this.middlewareStack.add((next: never, context: never) => current.middleware()(next, context), {
        step: 'initialize',
        priority: 'high',
        name: 'aws-call-log',
      });
    }
    return send.apply(this, args);
  };
}

interface ClientLike {
  middlewareStack: { add: (middleware: unknown, options: object) => void };
}

let current: AwsCallLog;
const instrumented = new WeakSet<object>();

interface HttpRequestLike {
  method?: string;
  path?: string;
}

/**
 * A transport that records each PUT as `s3:PutObject` on the object its path names (path-style:
 * `/<bucket>/<key>`), for the verify Lambda's writer, which signs and sends its PutObject without the S3
 * client.
 */
export function recordingTransport<T extends { handle: (request: never, ...rest: never[]) => unknown }>(
  log: AwsCallLog,
  transport: T,
): T {
  return {
    ...transport,
    handle: (request: HttpRequestLike, ...rest: unknown[]) => {
      if (request.method === 'PUT' && request.path) {
        const [bucket = '', ...key] = request.path.replace(/^\//, '').split('/');
        log.record({
          action: 's3:PutObject',
          operation: 'PutObject',
          resource: {
            kind: 'object',
            bucket: decodeURIComponent(bucket),
            key: key.map(decodeURIComponent).join('/'),
          },
        });
      }
      return (transport.handle as (...a: unknown[]) => unknown).call(transport, request, ...rest);
    },
  } as T;
}
