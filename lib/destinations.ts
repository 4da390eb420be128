// Destinations: where verified deliveries are forwarded (HTTP services, EventBridge buses, SQS queues).
//
// The processor fans each delivery out with one SendMessage per matching forward destination, to that
// destination's own queue. One forwarder Lambda consumes every destination queue, through one event source
// mapping per queue whose maximum concurrency is the destination's `maxConcurrency`: a slow or failing
// destination holds at most its own share of forwarder invocations, never the others'. Each queue has a
// DLQ of its own (redrive policy, maxReceiveCount = the destination's retry steps + 1) and keeps messages
// 14 days, SQS's longest, because the deliveries of a disabled destination wait there. A destination that
// answers 410 Gone with whenDisabled `wait` is disabled by the forwarder itself: it finds its own event
// source mapping for that queue (ListEventSourceMappings by function and queue ARN) and disables it
// (UpdateEventSourceMapping); the CLI's `destinations enable` re-enables it.
//
// Built only when the config has a destination other than `handlers`: without one the stack is what it was
// before destinations existed, resource for resource.
import { ArnFormat, Duration, Names, type RemovalPolicy, Stack, Token } from 'aws-cdk-lib';
import type * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as events from 'aws-cdk-lib/aws-events';
import * as iam from 'aws-cdk-lib/aws-iam';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import { SqsEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import type * as s3 from 'aws-cdk-lib/aws-s3';
import type * as secretsmanager from 'aws-cdk-lib/aws-secretsmanager';
import { Construct } from 'constructs';
import { CONTEXT_KEY, type Config, ConfigError, type ForwardDestination } from '../config/index';
import {
  destinationQueueNames,
  destinationQueueSettings,
  FORWARDER_BATCH_SIZE,
  SQS_MAX_QUEUE_NAME,
} from '../config/resources';
import { type DestinationEnvironment, ENV } from '../config/runtime';
import { outputSuffix } from '../config/telemetry';
import { PAYLOADS_PREFIX } from '../lambdas/core/envelope';
import { arnBytesUpperBound, SECRET_ARN_BYTES_UPPER_BOUND } from './lambda-environment';
import { type DestinationMonitoringTarget, queueAgeThreshold } from './monitoring';
import { createQueuePair, type QueuePair } from './queue-pair';
import { signingSecret } from './secrets';
import { grantOnTable } from './table-grant';

/**
 * The forwarder's table actions: it reads and rewrites a delivery's per-destination history on its inbox
 * record, and reads and updates each destination's state and hourly count items (forward-state.ts's keys).
 * UpdateItem creates a missing item, so no PutItem.
 */
export const FORWARDER_TABLE_ACTIONS = ['dynamodb:GetItem', 'dynamodb:UpdateItem'] as const;

/** Length of the random part of a created destination secret (see `destinationSecret`). */
export const DESTINATION_SECRET_LENGTH = 32;

export interface InboxDestinationsProps {
  readonly config: Config;
  /** The inbox queue's name: each destination's queue and DLQ are named after it. */
  readonly inboxQueueName: string;
  /** The forwarder's timeout: the destination queues' visibility timeout is six times it. */
  readonly forwarderTimeout: Duration;
  /** What happens to the created signing secrets when they leave the stack, as for the provider secrets. */
  readonly removalPolicy: RemovalPolicy;
}

export type DestinationQueues = QueuePair;

/** What the destinations are wired to once the Lambdas exist. */
export interface DestinationConnections {
  readonly forwarder: lambda.IFunction;
  readonly processor: lambda.IFunction;
  readonly table: dynamodb.ITable;
  readonly payloadBucket: s3.IBucket;
}

/** A value the environment carries, or, for one CloudFormation fills in, the longest it can be. */
function sized(value: string, upperBound: number): string {
  return Token.isUnresolved(value) ? 'x'.repeat(upperBound) : value;
}

export class InboxDestinations extends Construct {
  /** The destinations with a queue (every type but `handlers`), in config order. */
  public readonly destinations: readonly ForwardDestination[];
  /** Destination id to its queue and DLQ. */
  public readonly queues: Readonly<Record<string, DestinationQueues>>;
  /** HTTP destination id to its signing secret (created, or imported from `secretArn`). */
  public readonly secrets: Readonly<Record<string, secretsmanager.ISecret>>;
  /**
   * The bus created for the eventbridge destinations without `busArn`, if any: add your rules to it. It has
   * no resource policy: the forwarder, in this account, is allowed PutEvents by its role, and rules in this
   * account need none; add statements (`addToResourcePolicy`) to let other accounts put or route events.
   */
  public readonly eventBus?: events.EventBus;
  /** Destination id to what DESTINATION_RESOURCES tells the processor and the forwarder about it. */
  public readonly resources: Readonly<DestinationEnvironment>;
  /** The forwarder's permission to disable and enable its own event source mappings, once connected. */
  public eventSourceControl?: iam.Policy;

  /** The same resources with each deploy-time value replaced by its longest form: the size check's input. */
  private readonly sizing: DestinationEnvironment = {};

  constructor(scope: Construct, id: string, props: InboxDestinationsProps) {
    super(scope, id);
    const { config } = props;
    this.destinations = Object.values(config.destinations).filter(
      (d): d is ForwardDestination => d.type !== 'handlers',
    );
    if (this.destinations.some((d) => d.type === 'eventbridge' && !d.busArn)) {
      this.eventBus = new events.EventBus(this, 'EventBus', {
        description: 'webhook-inbox: verified deliveries, forwarded to the eventbridge destinations',
      });
    }
    const queues: Record<string, DestinationQueues> = {};
    const secrets: Record<string, secretsmanager.ISecret> = {};
    const resources: DestinationEnvironment = {};
    for (const destination of this.destinations) {
      const names = this.queueNames(props.inboxQueueName, destination.id);
      const pair = this.createQueues(destination, names, props.forwarderTimeout);
      queues[destination.id] = pair;
      if (destination.type === 'http') {
        secrets[destination.id] = this.destinationSecret(destination, props.removalPolicy);
      }
      const described = this.describe(destination, secrets[destination.id]);
      resources[destination.id] = described.resources;
      this.sizing[destination.id] = described.sizing;
    }
    this.queues = queues;
    this.secrets = secrets;
    this.resources = resources;
  }

  /**
   * One destination's DESTINATION_RESOURCES entry, and the same with each deploy-time value at its longest.
   * Only what the Lambdas cannot derive: the queues follow from QUEUE_URL and the id, a target queue's URL
   * from its ARN, an imported bus from the config (config/runtime.ts, destinationResourcesOf).
   */
  private describe(
    destination: ForwardDestination,
    secret: secretsmanager.ISecret | undefined,
  ): { resources: DestinationEnvironment[string]; sizing: DestinationEnvironment[string] } {
    if (destination.type === 'http' && secret) {
      return {
        resources: { secretArn: secret.secretArn },
        sizing: { secretArn: sized(secret.secretArn, SECRET_ARN_BYTES_UPPER_BOUND) },
      };
    }
    if (destination.type === 'eventbridge' && !destination.busArn && this.eventBus) {
      // A created bus is named by CDK after its path (Names.uniqueId), known now.
      const busName = Names.uniqueId(this.eventBus);
      return {
        resources: { busArn: this.eventBus.eventBusArn },
        sizing: {
          busArn: sized(this.eventBus.eventBusArn, arnBytesUpperBound('events', `event-bus/${busName}`)),
        },
      };
    }
    return { resources: {}, sizing: {} };
  }

  /**
   * DESTINATION_RESOURCES for the processor and the forwarder, and the most bytes its value can take once
   * deployed (for the 4 KB check: about 600 bytes a destination, as a bound).
   */
  public environment(): { variables: Record<string, string>; unresolvedBytes: Record<string, number> } {
    return {
      variables: { [ENV.destinations]: Stack.of(this).toJsonString(this.resources) },
      unresolvedBytes: { [ENV.destinations]: JSON.stringify(this.sizing).length },
    };
  }

  /** The destinations' alarms and widgets: one set per destination queue. */
  public monitoringTargets(): DestinationMonitoringTarget[] {
    return this.destinations.map((destination) => ({
      id: destination.id,
      ...(this.queues[destination.id] as DestinationQueues),
      queueAgeThreshold: queueAgeThreshold(destination.retrySchedule),
    }));
  }

  /**
   * The forwarder's event sources, one per destination queue, and the permissions of both Lambdas: the
   * processor sends to every destination queue; the forwarder reaches exactly its destinations.
   */
  public connect({ forwarder, processor, table, payloadBucket }: DestinationConnections): void {
    const queueArns = Object.values(this.queues).map(({ queue }) => queue.queueArn);
    // SendMessage only, as the verify Lambda has on the inbox queue: the processor never reads these.
    processor.addToRolePolicy(
      new iam.PolicyStatement({ actions: ['sqs:SendMessage'], resources: queueArns }),
    );

    for (const destination of this.destinations) {
      const { queue } = this.queues[destination.id] as DestinationQueues;
      // Each mapping grants the forwarder ReceiveMessage, DeleteMessage, ChangeMessageVisibility (the
      // retry schedule's backoff) and GetQueueAttributes on its queue. It never sends to a DLQ: a give-up
      // is left to the redrive policy, so every dead letter can be redriven.
      forwarder.addEventSource(
        new SqsEventSource(queue, {
          batchSize: FORWARDER_BATCH_SIZE,
          maxBatchingWindow: Duration.seconds(0),
          reportBatchItemFailures: true,
          maxConcurrency: destination.maxConcurrency,
        }),
      );
    }

    grantOnTable(table, forwarder, ...FORWARDER_TABLE_ACTIONS);
    forwarder.addToRolePolicy(
      new iam.PolicyStatement({
        // GetObject: bodies over inlineLimitBytes. PutObject: an EventBridge event over PutEvents' 256 KB,
        // and an SQS envelope over its target queue's MaximumMessageSize, carry a reference to a copy in
        // the bucket instead of the body.
        actions: ['s3:GetObject', 's3:PutObject'],
        resources: [payloadBucket.arnForObjects(`${PAYLOADS_PREFIX}*`)],
      }),
    );
    // As for the processor: without ListBucket a missing body is 403, an outage, instead of 404.
    forwarder.addToRolePolicy(
      new iam.PolicyStatement({ actions: ['s3:ListBucket'], resources: [payloadBucket.bucketArn] }),
    );
    this.allow(
      forwarder,
      'secretsmanager:GetSecretValue',
      Object.values(this.secrets).map((s) => s.secretArn),
    );
    // A bus of another account also needs its own resource policy to accept this role's events.
    this.allow(forwarder, 'events:PutEvents', [
      ...new Set(this.destinations.flatMap((d) => (d.type === 'eventbridge' ? [this.busArn(d)] : []))),
    ]);
    // A target queue of another account also needs its queue policy to allow this role's SendMessage; a
    // target encrypted with a customer managed KMS key also needs kms:GenerateDataKey and kms:Decrypt on
    // that key for this role (in the key policy, and here through `forwarderFunction.addToRolePolicy`).
    const targetQueueArns = [
      ...new Set(this.destinations.flatMap((d) => (d.type === 'sqs' ? [d.queueArn] : []))),
    ];
    this.allow(forwarder, 'sqs:SendMessage', targetQueueArns);
    // The target's MaximumMessageSize, read when the queue refuses an envelope: above it the envelope goes
    // with its body in the payload bucket (`dataref`). Another account's queue policy must allow it too, or
    // the forwarder tries that form without knowing the limit.
    this.allow(forwarder, 'sqs:GetQueueAttributes', targetQueueArns);
    // Its own destination queues too: a delivery waiting on a disabled destination is sent anew before
    // its last receive, so waiting never dead-letters it (forward-record.ts).
    this.allow(forwarder, 'sqs:SendMessage', queueArns);
    this.eventSourceControl = this.grantEventSourceControl(forwarder);
  }

  /** One statement for every resource of one action, or none if there is no such resource. */
  private allow(fn: lambda.IFunction, action: string, resources: string[]): void {
    if (resources.length > 0) fn.addToRolePolicy(new iam.PolicyStatement({ actions: [action], resources }));
  }

  private busArn(destination: Extract<ForwardDestination, { type: 'eventbridge' }>): string {
    return destination.busArn ?? (this.eventBus as events.EventBus).eventBusArn;
  }

  /**
   * Lets the forwarder find and switch its own event source mappings, and no other function's. The ARN of
   * a mapping is only known once it exists, so the update is allowed on every mapping of the account and
   * region whose function is the forwarder (the `lambda:FunctionArn` condition); ListEventSourceMappings
   * takes no resource and no condition key. The statements are a policy of their own rather than the
   * role's default policy: the function depends on its default policy, and a default-policy statement
   * naming the function's ARN would be a circular dependency (a fixed function name would avoid the
   * reference, at the price of a name that collides across stacks and blocks replacement).
   */
  private grantEventSourceControl(forwarder: lambda.IFunction): iam.Policy {
    const mappings = Stack.of(this).formatArn({
      service: 'lambda',
      resource: 'event-source-mapping',
      resourceName: '*',
      arnFormat: ArnFormat.COLON_RESOURCE_NAME,
    });
    return new iam.Policy(this, 'ForwarderEventSourceControl', {
      roles: [forwarder.role as iam.IRole],
      statements: [
        new iam.PolicyStatement({ actions: ['lambda:ListEventSourceMappings'], resources: ['*'] }),
        new iam.PolicyStatement({
          actions: ['lambda:UpdateEventSourceMapping'],
          resources: [mappings],
          conditions: { StringEquals: { 'lambda:FunctionArn': forwarder.functionArn } },
        }),
      ],
    });
  }

  /** The queue names, refused here if SQS would refuse them at deploy time. */
  private queueNames(inboxQueueName: string, destinationId: string) {
    const names = destinationQueueNames(inboxQueueName, destinationId);
    if (!Token.isUnresolved(inboxQueueName) && names.dlqName.length > SQS_MAX_QUEUE_NAME) {
      throw new ConfigError(
        `${CONTEXT_KEY}.destinations.${destinationId}: its dead-letter queue would be named ${names.dlqName} ` +
          `(${names.dlqName.length} characters), over SQS's ${SQS_MAX_QUEUE_NAME}; use a shorter destination ` +
          `id, or a shorter inbox queue name (the queueName prop, now ${inboxQueueName})`,
      );
    }
    return names;
  }

  /** The destination's queue and DLQ, encrypted and TLS-only like the inbox queues (queue-pair.ts). */
  private createQueues(
    destination: ForwardDestination,
    names: { queueName: string; dlqName: string },
    forwarderTimeout: Duration,
  ): QueuePair {
    const suffix = outputSuffix(destination.id);
    return createQueuePair(this, {
      ids: {
        queue: `Queue${suffix}`,
        deadLetterQueue: `DeadLetterQueue${suffix}`,
        redriveSource: `RedriveSource${suffix}`,
      },
      ...names,
      settings: destinationQueueSettings(destination, forwarderTimeout.toSeconds()),
    });
  }

  /**
   * The secret the forwarder signs an HTTP destination's deliveries with (Standard Webhooks). A created one
   * is 32 letters and digits: valid base64 (24 bytes), so it is a Standard Webhooks key as it stands, and
   * the receiver is given it with `whsec_` in front (lambdas/core/destinations/signing.ts, displaySecret).
   * Standard Webhooks carries one signature per secret, so during a rotation (put-secret-value) deliveries
   * can be signed with AWSCURRENT and AWSPREVIOUS both, and a receiver holding either verifies them.
   */
  private destinationSecret(
    destination: Extract<ForwardDestination, { type: 'http' }>,
    removalPolicy: RemovalPolicy,
  ): secretsmanager.ISecret {
    return signingSecret(this, `Secret${outputSuffix(destination.id)}`, {
      importArn: destination.secretArn,
      configKey: `${CONTEXT_KEY}.destinations.${destination.id}.secretArn`,
      description:
        `webhook-inbox signing secret for destination "${destination.id}". The receiving service verifies ` +
        'the webhook-signature header with whsec_ followed by this value (a Standard Webhooks secret). ' +
        'Rotate with put-secret-value; the previous value stays as AWSPREVIOUS until the next change.',
      generate: {
        passwordLength: DESTINATION_SECRET_LENGTH,
        excludePunctuation: true,
        includeSpace: false,
      },
      removalPolicy,
    });
  }
}
