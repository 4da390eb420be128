// What a command acts on, as a type: the local instance or a deployed stack look alike to every command. Kept
// apart from target.ts, which finds the target, so the code that builds one (stack-target.ts) needs only
// this.
import type { Config } from '../../config';
import type { DestinationResources } from '../../config/runtime';
import type { AwsClients } from '../../lambdas/adapters/clients';
import type { ProvisionedResources } from '../../local/resources';

export interface SecretStore {
  /** Where the secrets live, for messages: a file path or a secret ARN. */
  location(provider: string): string;
  /** Newest first: the one a provider signs with now, then the previous one(s) still accepted. */
  list(provider: string): Promise<string[]>;
  /** Stores `value` as the new current secret; the current one stays accepted as the previous one. */
  rotate(provider: string, value: string): Promise<string[]>;
}

export interface Target extends ProvisionedResources {
  kind: 'local' | 'aws';
  /** The configuration the target runs: cdk.json's, and a local instance's `--forward-to` destinations. */
  config: Config;
  /** For messages: `local instance at http://127.0.0.1:3000` or `stack my-inbox (eu-west-1)`. */
  description: string;
  gatewayUrl: string;
  region: string;
  /** The URL to register with the provider. */
  endpointUrl(provider: string): string;
  secrets: SecretStore;
  /** What the stack or local mode made for each forward destination, by destination id. */
  destinations: Record<string, DestinationResources>;
  /** The destinations' signing secrets, by destination id. */
  destinationSecrets: SecretStore;
  /** The forwarder Lambda's name (a stack only): its event source mappings are the destinations' intakes. */
  forwarderFunctionName?: string;
  /** SDK clients for the target, built on first use. */
  clients(): Promise<AwsClients>;
  close(): void;
}
