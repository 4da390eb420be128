// The senders `destinations test` uses, for the target it acts on: local mode's own (local/forwarding.ts)
// for the local instance, and for a stack the same adapters with this machine's credentials.
import type { DestinationSenders } from '../lambdas/core/destinations/ports';
import type { Target } from './target-types';

export async function targetSenders(target: Target): Promise<DestinationSenders> {
  const { HttpDestinationSender } = await import('../lambdas/adapters/http-destination');
  // The target's store lists a destination's secrets newest first, as the forwarder's source does.
  const secrets = { get: (id: string) => target.destinationSecrets.list(id) };
  // Locally the destinations are services on this machine: loopback is allowed, as the forwarder allows it.
  return { http: new HttpDestinationSender({ secrets, allowLoopback: target.kind === 'local' }) };
}
