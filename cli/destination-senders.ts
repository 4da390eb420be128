// The senders `destinations test` uses, for the target it acts on: local mode's own (local/forwarding.ts)
// for the local instance, and for a stack the forwarder's adapters with this machine's credentials.
import type { DestinationSenders } from '../lambdas/core/destinations/ports';
import type { Target } from './target-types';

export async function targetSenders(target: Target): Promise<DestinationSenders> {
  const clients = await target.clients();
  if (target.kind === 'local') {
    const { localSenders } = await import('../local/forwarding');
    const { projectDir } = await import('../config/load');
    const { secretsFilePath } = await import('../local/secrets-file');
    const cwd = projectDir();
    return localSenders({
      cwd,
      clients,
      secretsFile: secretsFilePath(cwd),
      bucketName: target.bucketName,
      destinations: target.destinations,
    });
  }
  const { HttpDestinationSender } = await import('../lambdas/adapters/http-destination');
  const { EventBridgeDestinationSender } = await import('../lambdas/adapters/eventbridge-destination');
  const { SqsDestinationSender } = await import('../lambdas/adapters/sqs-destination');
  const { S3PayloadReader } = await import('../lambdas/adapters/s3-payloads');
  const { createEventBridgeClient } = await import('../lambdas/adapters/clients');
  const made = (id: string, field: 'busArn' | 'targetQueueUrl') => {
    const value = target.destinations[id]?.[field];
    if (!value) throw new Error(`the stack has no ${field} for destination ${id}`);
    return value;
  };
  return {
    // The target's store lists a destination's secrets newest first, as the forwarder's source does.
    http: new HttpDestinationSender({ secrets: { get: (id: string) => target.destinationSecrets.list(id) } }),
    eventbridge: new EventBridgeDestinationSender({
      client: createEventBridgeClient({ region: target.region }),
      busFor: (destination) => made(destination.id, 'busArn'),
      payloads: new S3PayloadReader(clients.s3, target.bucketName),
    }),
    sqs: new SqsDestinationSender({
      client: clients.sqs,
      queueUrlFor: (destination) => made(destination.id, 'targetQueueUrl'),
    }),
  };
}
