// The forwarder's senders on AWS, one per destination type, built from the resources the stack made
// (DESTINATION_RESOURCES). Local mode builds the same senders over the emulators (local/forwarding.ts).
import type { Runtime } from '../../config/runtime';
import type { ForwardClients } from '../adapters/clients';
import { EventBridgeDestinationSender } from '../adapters/eventbridge-destination';
import { HttpDestinationSender } from '../adapters/http-destination';
import { S3PayloadReader } from '../adapters/s3-payloads';
import { SecretsManagerSource } from '../adapters/secrets';
import { SqsDestinationSender } from '../adapters/sqs-destination';
import type { DestinationSenders } from '../core/destinations/ports';

export function destinationSenders(input: { clients: ForwardClients; runtime: Runtime }): DestinationSenders {
  const { clients, runtime } = input;
  const secretArns = Object.fromEntries(
    Object.entries(runtime.destinations).flatMap(([id, made]) =>
      made.secretArn ? [[id, made.secretArn]] : [],
    ),
  );
  const made = (id: string) => {
    const resources = Object.hasOwn(runtime.destinations, id) ? runtime.destinations[id] : undefined;
    if (!resources) throw new Error(`no resources for destination ${id}`);
    return resources;
  };
  const required = (id: string, value: string | undefined, what: string) => {
    if (!value) throw new Error(`destination ${id} has no ${what}`);
    return value;
  };
  return {
    eventbridge: new EventBridgeDestinationSender({
      client: clients.eventbridge,
      busFor: (destination) => required(destination.id, made(destination.id).busArn, 'bus'),
      payloads: new S3PayloadReader(clients.s3, runtime.bucketName),
    }),
    sqs: new SqsDestinationSender({
      client: clients.sqs,
      queueUrlFor: (destination) =>
        required(destination.id, made(destination.id).targetQueueUrl, 'target queue'),
    }),
    // A rotated secret reaches every warm forwarder within the cache time; until then it signs with the
    // previous one, which the receiver still accepts (it signs with both once it has read the new one).
    http: new HttpDestinationSender({
      secrets: new SecretsManagerSource(clients.secrets, secretArns, {
        cacheSeconds: runtime.config.secretCacheSeconds,
      }),
    }),
  };
}
