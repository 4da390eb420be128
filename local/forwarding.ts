// Local mode's destinations: each forward destination's queue and DLQ in the SQS emulator, made with the
// stack's settings (config/resources.ts), and an event source per queue in front of the real forwarder,
// as the stack's one event source mapping per queue. A disabled destination's poller stops receiving,
// as the stack's forwarder disables its mapping.

import type { Config, ForwardDestination } from '../config';
import { forwardDestinations } from '../config';
import {
  destinationQueueNames,
  destinationQueueSettings,
  FORWARDER_BATCH_SIZE,
  forwarderTimeoutSeconds,
  redrivePolicyAttribute,
} from '../config/resources';
import type { DestinationResources } from '../config/runtime';
import { DynamoDestinationStates } from '../lambdas/adapters/dynamo-destination-states';
import { DynamoForwardLog } from '../lambdas/adapters/dynamo-forward-log';
import { pollerIntake } from '../lambdas/adapters/lambda-destination-intake';
import { LocalFileSecretSource } from '../lambdas/adapters/local-secrets';
import { S3PayloadReader } from '../lambdas/adapters/s3-payloads';
import { messageControls, SqsForwardQueues } from '../lambdas/adapters/sqs-forward-queues';
import { SqsQueueOps } from '../lambdas/adapters/sqs-queue-ops';
import { localDestinationSecretKey } from '../lambdas/core/destinations/forward-state';
import type { DestinationSenders } from '../lambdas/core/destinations/ports';
import { systemClock } from '../lambdas/core/ports';
import type { LogSink } from '../lambdas/core/telemetry';
import { noMetrics } from '../lambdas/core/telemetry';
import { forwardLambda } from '../lambdas/forward/middy-chain';
import { buildSenders } from '../lambdas/forward/senders';
import { eventBridgeLogPath, RecordingEventBus } from './recording-event-bus';
import { type Clients, ensureQueue } from './resources';
import { SqsEventSource } from './sqs-event-source';

/** Local stand-ins for what a destination names in AWS: its bus, its target queue. */
export const LOCAL_EVENT_BUS = 'webhook-inbox-local-bus';

/** The queue name in an SQS ARN (`arn:aws:sqs:<region>:<account>:<name>`). */
function queueNameOf(arn: string): string {
  return arn.slice(arn.lastIndexOf(':') + 1);
}

/** Creates each forward destination's queue and DLQ (and an SQS destination's target queue). */
export async function provisionDestinations(
  clients: Clients,
  config: Config,
  inboxQueueName: string,
): Promise<Record<string, DestinationResources>> {
  const timeout = forwarderTimeoutSeconds(config);
  const made: Record<string, DestinationResources> = {};
  await Promise.all(
    forwardDestinations(config).map(async (destination) => {
      const { queueName, dlqName } = destinationQueueNames(inboxQueueName, destination.id);
      const settings = destinationQueueSettings(destination, timeout);
      const dlq = await ensureQueue(clients, dlqName, {
        MessageRetentionPeriod: String(settings.dlqRetentionSeconds),
        MaximumMessageSize: String(settings.maximumMessageSize),
      });
      const queue = await ensureQueue(clients, queueName, {
        VisibilityTimeout: String(settings.visibilityTimeoutSeconds),
        MessageRetentionPeriod: String(settings.retentionSeconds),
        MaximumMessageSize: String(settings.maximumMessageSize),
        RedrivePolicy: redrivePolicyAttribute(dlq.arn, settings.maxReceiveCount),
      });
      made[destination.id] = {
        queueUrl: queue.url,
        queueArn: queue.arn,
        dlqUrl: dlq.url,
        dlqArn: dlq.arn,
        ...(await targetOf(clients, destination)),
      };
    }),
  );
  return made;
}

async function targetOf(
  clients: Clients,
  destination: ForwardDestination,
): Promise<Partial<DestinationResources>> {
  switch (destination.type) {
    case 'http':
      return {};
    case 'eventbridge':
      return { busArn: destination.busArn ?? LOCAL_EVENT_BUS };
    case 'sqs': {
      // The emulator stands in for the other account's queue: one of the same name, here.
      const target = await ensureQueue(clients, queueNameOf(destination.queueArn), {});
      return { targetQueueUrl: target.url };
    }
  }
}

export interface LocalForwardingOptions {
  config: Config;
  clients: Clients;
  tableName: string;
  bucketName: string;
  destinations: Record<string, DestinationResources>;
  senders: DestinationSenders;
  logger: LogSink;
  region: string;
}

export interface LocalForwarding {
  sources: SqsEventSource[];
  start(): void;
  /**
   * Stops the pollers, forwards what is on the queues now (until `deadlineMs`), and warns of what is left
   * (deliveries waiting out a retry step or a disabled destination): the emulator keeps nothing.
   */
  stop(deadlineMs?: number): Promise<void>;
}

export function startForwarding(options: LocalForwardingOptions): LocalForwarding {
  const { clients, config, destinations } = options;
  const states = new DynamoDestinationStates(clients.dynamodb, options.tableName, { cacheMs: 1_000 });
  const forwarder = forwardLambda({
    config,
    senders: options.senders,
    history: new DynamoForwardLog(clients.dynamodb, options.tableName),
    states,
    intake: pollerIntake,
    payloads: new S3PayloadReader(clients.s3, options.bucketName),
    messagesFor: messageControls(clients.sqs, destinations),
    queues: new SqsForwardQueues(clients.sqs, destinations),
    clock: systemClock,
    logger: options.logger,
    metrics: noMetrics,
  });
  const ops = new SqsQueueOps(clients.sqs);
  const timeoutMs = forwarderTimeoutSeconds(config) * 1000;
  // One poller per destination queue, as the stack has one event source mapping per queue.
  const pollers = forwardDestinations(config).flatMap((destination) => {
    const made = destinations[destination.id];
    if (!made) return [];
    const source = new SqsEventSource(ops, {
      queueUrl: made.queueUrl,
      queueArn: made.queueArn,
      region: options.region,
      batchSize: FORWARDER_BATCH_SIZE,
      maxBatchingWindowSeconds: 0,
      functionTimeoutMs: timeoutMs,
      handler: forwarder,
      // Only `wait` pauses: with `dlq`, the forwarder dead-letters what arrives while disabled.
      paused:
        destination.whenDisabled === 'wait'
          ? async () => !(await states.status(destination.id).catch(() => ({ enabled: true }))).enabled
          : undefined,
    });
    return [{ id: destination.id, queueUrl: made.queueUrl, source }];
  });
  return {
    sources: pollers.map((p) => p.source),
    start: () => {
      for (const { source } of pollers) source.start();
    },
    stop: async (deadlineMs = Date.now()) => {
      await Promise.all(pollers.map(({ source }) => source.stop()));
      await Promise.all(
        pollers.map(async ({ id, queueUrl, source }) => {
          while (Date.now() < deadlineMs && (await source.runOnce().catch(() => 0)) > 0);
          const counts = await ops.counts(queueUrl).catch(() => undefined);
          const left = counts ? counts.visible + counts.inFlight + counts.delayed : 0;
          if (left > 0) {
            options.logger.warn('forwards lost on exit', {
              destination: id,
              messages: left,
              reason:
                'the local SQS emulator keeps no state; they were waiting out a retry or a disabled destination',
            });
          }
        }),
      );
    },
  };
}

export interface LocalSenderOptions {
  cwd: string;
  clients: Clients;
  secretsFile: string;
  bucketName: string;
  destinations: Record<string, DestinationResources>;
}

/**
 * The same senders as the forwarder's on AWS: HTTP for real (loopback allowed, as a laptop's services
 * listen there), SQS into the emulator, EventBridge into a recording stand-in.
 */
export function localSenders(options: LocalSenderOptions): DestinationSenders {
  const files = new LocalFileSecretSource(options.secretsFile);
  const bus = new RecordingEventBus({ file: eventBridgeLogPath(options.cwd) });
  return buildSenders({
    secrets: { get: (id, o) => files.get(localDestinationSecretKey(id), o) },
    // Every target is a local stand-in, whatever region its ARN names: the recording bus, an emulator queue.
    eventbridge: () => bus,
    sqs: () => options.clients.sqs,
    payloads: new S3PayloadReader(options.clients.s3, options.bucketName),
    destinations: options.destinations,
    allowLoopback: true,
  });
}
