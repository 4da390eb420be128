// The senders `destinations test` uses, for the target it acts on: local mode's own (local/forwarding.ts)
// for the local instance, and for a stack the forwarder's adapters with this machine's credentials.
import type { DestinationSenders } from '../../lambdas/core/destinations/ports';
import type { Target } from '../shared/target-types';

export async function targetSenders(target: Target): Promise<DestinationSenders> {
  const clients = await target.clients();
  if (target.kind === 'local') {
    const { localSenders } = await import('../../local/forwarding');
    const { projectDir } = await import('../../config/load');
    const { secretsFilePath } = await import('../../local/secrets-file');
    const cwd = projectDir();
    return localSenders({
      cwd,
      clients,
      secretsFile: secretsFilePath(cwd),
      bucketName: target.bucketName,
      destinations: target.destinations,
    });
  }
  const { buildSenders, destinationClients } = await import('../../lambdas/forward/senders');
  const { S3PayloadReader } = await import('../../lambdas/adapters/s3-payloads');
  const { createEventBridgeClient } = await import('../../lambdas/adapters/clients');
  return buildSenders({
    // The target's store lists a destination's secrets newest first, as the forwarder's source does.
    secrets: { get: (id: string) => target.destinationSecrets.list(id) },
    // A queue or bus in another region than the stack's gets a client of its own region, as the forwarder's.
    ...destinationClients({
      home: { sqs: clients.sqs, eventbridge: createEventBridgeClient({ region: target.region }) },
      homeRegion: target.region,
      destinations: target.destinations,
      queueArns: [],
    }),
    payloads: new S3PayloadReader(clients.s3, target.bucketName),
    destinations: target.destinations,
  });
}
