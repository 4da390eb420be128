// The senders, one per destination type, over the resources made for each destination. One builder for
// the forwarder on AWS, local mode (emulators, a recording bus) and `destinations test`: they differ only
// in the clients and the secret source they pass.
import type { EventBridgeClient } from '@aws-sdk/client-eventbridge';
import type { SQSClient } from '@aws-sdk/client-sqs';
import type { DestinationResources, Runtime } from '../../config/runtime';
import { createEventBridgeClient, createSqsClient, type ForwardClients } from '../adapters/clients';
import { EventBridgeDestinationSender, type PutEventsClient } from '../adapters/eventbridge-destination';
import { HttpDestinationSender } from '../adapters/http-destination';
import { type ClientForRegion, regionalClients } from '../adapters/regional-clients';
import { S3PayloadReader } from '../adapters/s3-payloads';
import { SecretsManagerSource } from '../adapters/secrets';
import { type SendMessageClient, SqsDestinationSender } from '../adapters/sqs-destination';
import { regionOfArn } from '../core/destinations/arn-region';
import type { DestinationSenders } from '../core/destinations/ports';
import type { PayloadWriter, SecretSource } from '../core/ports';

export interface SenderParts {
  /** Each http destination's signing secrets, by destination id, newest first. */
  secrets: SecretSource;
  /** The client for a bus's region (from its ARN); `undefined` for a bus named without one. */
  eventbridge: ClientForRegion<PutEventsClient>;
  /** The client for a target queue's region (from its ARN). */
  sqs: ClientForRegion<SendMessageClient>;
  /** Where an EventBridge entry, or an SQS message, too large to carry its body puts it. */
  payloads: PayloadWriter;
  destinations: Readonly<Record<string, DestinationResources>>;
  /** Local mode and a local `destinations test`: loopback allowed (the SSRF guard otherwise stands). */
  allowLoopback?: boolean;
}

export function buildSenders(parts: SenderParts): DestinationSenders {
  const resource = (id: string, field: 'busArn' | 'targetQueueUrl') => {
    const value = Object.hasOwn(parts.destinations, id) ? parts.destinations[id]?.[field] : undefined;
    if (!value) throw new Error(`destination ${id} has no ${field}`);
    return value;
  };
  return {
    eventbridge: new EventBridgeDestinationSender({
      client: parts.eventbridge(undefined),
      clientFor: (bus) => parts.eventbridge(regionOfArn(bus)),
      busFor: (destination) => resource(destination.id, 'busArn'),
      payloads: parts.payloads,
    }),
    sqs: new SqsDestinationSender({
      client: parts.sqs(undefined),
      clientFor: (destination) => parts.sqs(regionOfArn(destination.queueArn)),
      queueUrlFor: (destination) => resource(destination.id, 'targetQueueUrl'),
      payloads: parts.payloads,
    }),
    http: new HttpDestinationSender({
      secrets: parts.secrets,
      ...(parts.allowLoopback ? { allowLoopback: true } : {}),
    }),
  };
}

/** Clients for another region than the process's own. */
export interface RegionalClientFactories {
  sqs(region: string): SQSClient;
  eventbridge(region: string): EventBridgeClient;
}

const AWS_REGIONAL_CLIENTS: RegionalClientFactories = {
  sqs: (region) => createSqsClient({ region }),
  eventbridge: (region) => createEventBridgeClient({ region }),
};

/**
 * The SQS and EventBridge clients for every region the destinations' queues and buses are in, built now:
 * `home` in `homeRegion`, another client in each other region.
 */
export function destinationClients(input: {
  home: { sqs: SQSClient; eventbridge: EventBridgeClient };
  homeRegion: string | undefined;
  destinations: Readonly<Record<string, DestinationResources>>;
  queueArns: readonly string[];
  make?: RegionalClientFactories;
}): Pick<SenderParts, 'sqs' | 'eventbridge'> {
  const make = input.make ?? AWS_REGIONAL_CLIENTS;
  const busRegions = Object.values(input.destinations).map((d) =>
    d.busArn ? regionOfArn(d.busArn) : undefined,
  );
  return {
    sqs: regionalClients({
      home: input.home.sqs,
      homeRegion: input.homeRegion,
      make: make.sqs,
      regions: input.queueArns.map(regionOfArn),
    }),
    eventbridge: regionalClients({
      home: input.home.eventbridge,
      homeRegion: input.homeRegion,
      make: make.eventbridge,
      regions: busRegions,
    }),
  };
}

/** The SQS destinations' target queue ARNs. */
export function targetQueueArns(runtime: Pick<Runtime, 'config'>): string[] {
  return Object.values(runtime.config.destinations).flatMap((d) => (d.type === 'sqs' ? [d.queueArn] : []));
}

/** The forwarder's on AWS, from the resources the stack made (DESTINATION_RESOURCES). */
export function destinationSenders(input: {
  clients: ForwardClients;
  runtime: Runtime;
  /** The Lambda's region (AWS_REGION): its own clients serve the targets there. */
  region: string | undefined;
  /** @default clients for AWS in that region */
  make?: RegionalClientFactories;
}): DestinationSenders {
  const { clients, runtime } = input;
  const secretArns = Object.fromEntries(
    Object.entries(runtime.destinations).flatMap(([id, made]) =>
      made.secretArn ? [[id, made.secretArn]] : [],
    ),
  );
  return buildSenders({
    // A rotated secret reaches every warm forwarder within the cache time, or at once on a 401 or 403;
    // until then it signs with the previous one, which the receiver still accepts.
    secrets: new SecretsManagerSource(clients.secrets, secretArns, {
      cacheSeconds: runtime.config.secretCacheSeconds,
    }),
    ...destinationClients({
      home: clients,
      homeRegion: input.region,
      destinations: runtime.destinations,
      queueArns: targetQueueArns(runtime),
      ...(input.make ? { make: input.make } : {}),
    }),
    payloads: new S3PayloadReader(clients.s3, runtime.bucketName),
    destinations: runtime.destinations,
  });
}
