// The forwarder's senders on AWS, one per destination type, built from the resources the stack made
// (DESTINATION_RESOURCES). Local mode builds the same senders over the emulators (local/forwarding.ts).
import type { Runtime } from '../../config/runtime';
import type { ForwardClients } from '../adapters/clients';
import { HttpDestinationSender } from '../adapters/http-destination';
import { SecretsManagerSource } from '../adapters/secrets';
import type { DestinationSenders } from '../core/destinations/ports';

export function destinationSenders(input: { clients: ForwardClients; runtime: Runtime }): DestinationSenders {
  const { clients, runtime } = input;
  const secretArns = Object.fromEntries(
    Object.entries(runtime.destinations).flatMap(([id, made]) =>
      made.secretArn ? [[id, made.secretArn]] : [],
    ),
  );
  return {
    // A rotated secret reaches every warm forwarder within the cache time; until then it signs with the
    // previous one, which the receiver still accepts (it signs with both once it has read the new one).
    http: new HttpDestinationSender({
      secrets: new SecretsManagerSource(clients.secrets, secretArns, {
        cacheSeconds: runtime.config.secretCacheSeconds,
      }),
    }),
  };
}
