// The senders, one per destination type, over the resources made for each destination. One builder for
// the forwarder on AWS, local mode (emulators, a recording bus) and `destinations test`: they differ only
// in the clients and the secret source they pass.
import type { DestinationResources, Runtime } from '../../config/runtime';
import type { ForwardClients } from '../adapters/clients';
import { EventBridgeDestinationSender, type PutEventsClient } from '../adapters/eventbridge-destination';
import { HttpDestinationSender } from '../adapters/http-destination';
import { S3PayloadReader } from '../adapters/s3-payloads';
import { SecretsManagerSource } from '../adapters/secrets';
import { type SendMessageClient, SqsDestinationSender } from '../adapters/sqs-destination';
import type { DestinationSenders } from '../core/destinations/ports';
import type { PayloadWriter, SecretSource } from '../core/ports';

export interface SenderParts {
  /** Each http destination's signing secrets, by destination id, newest first. */
  secrets: SecretSource;
  eventbridge: PutEventsClient;
  sqs: SendMessageClient;
  /** Where an EventBridge entry too large to carry its body puts it. */
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
      client: parts.eventbridge,
      busFor: (destination) => resource(destination.id, 'busArn'),
      payloads: parts.payloads,
    }),
    sqs: new SqsDestinationSender({
      client: parts.sqs,
      queueUrlFor: (destination) => resource(destination.id, 'targetQueueUrl'),
    }),
    http: new HttpDestinationSender({
      secrets: parts.secrets,
      ...(parts.allowLoopback ? { allowLoopback: true } : {}),
    }),
  };
}

/** The forwarder's on AWS, from the resources the stack made (DESTINATION_RESOURCES). */
export function destinationSenders(input: { clients: ForwardClients; runtime: Runtime }): DestinationSenders {
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
    eventbridge: clients.eventbridge,
    sqs: clients.sqs,
    payloads: new S3PayloadReader(clients.s3, runtime.bucketName),
    destinations: runtime.destinations,
  });
}
