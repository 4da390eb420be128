// A real SecretsManagerClient whose GetSecretValue and PutSecretValue are answered by a middleware: there is
// no Secrets Manager emulator, so the adapters over it are unit-tested against this fake. It sits in the
// initialize step without priority, so test/support/faults.ts's faults (priority high) pre-empt it.
import {
  type GetSecretValueCommandInput,
  type PutSecretValueCommandInput,
  ResourceNotFoundException,
  SecretsManagerClient,
} from '@aws-sdk/client-secrets-manager';
import { serviceUnavailable } from './faults';

/** A version's content: text, or binary data only (SecretBinary, no SecretString). */
export type FakeSecretValue = string | Uint8Array;

export interface FakeSecretVersions {
  current?: FakeSecretValue;
  previous?: FakeSecretValue;
}

export function fakeSecretsManager(initial: Record<string, FakeSecretVersions>) {
  const secrets = new Map(Object.entries(initial));
  /** GetSecretValue calls, as `{SecretId}:{VersionStage}`. */
  const calls: string[] = [];
  /** PutSecretValue calls, as sent. */
  const puts: PutSecretValueCommandInput[] = [];
  /** Stages whose reads fail as a throttled or broken Secrets Manager would. */
  const failingStages = new Set<string>();
  const client = new SecretsManagerClient({
    region: 'us-east-1',
    credentials: { accessKeyId: 'unit', secretAccessKey: 'unit' },
  });
  /** What a rotation does: the new value becomes AWSCURRENT, the old one AWSPREVIOUS. */
  const rotate = (id: string, next: FakeSecretValue) => {
    secrets.set(id, { current: next, previous: secrets.get(id)?.current });
  };
  client.middlewareStack.add(
    (_next: unknown, context: { commandName?: string }) => async (args: { input: object }) => {
      if (context.commandName === 'PutSecretValueCommand') {
        const input = args.input as PutSecretValueCommandInput;
        puts.push(input);
        if (!secrets.has(input.SecretId ?? '')) {
          throw new ResourceNotFoundException({ message: `no secret ${input.SecretId}`, $metadata: {} });
        }
        rotate(input.SecretId ?? '', input.SecretString ?? '');
        return { output: { ARN: input.SecretId, $metadata: {} }, response: {} };
      }
      if (context.commandName !== 'GetSecretValueCommand')
        throw new Error(`unexpected ${context.commandName}`);
      const { SecretId: id = '', VersionStage: stage } = args.input as GetSecretValueCommandInput;
      calls.push(`${id}:${stage}`);
      if (failingStages.has(stage ?? 'AWSCURRENT')) throw serviceUnavailable();
      const value = secrets.get(id)?.[stage === 'AWSPREVIOUS' ? 'previous' : 'current'];
      if (value === undefined) {
        throw new ResourceNotFoundException({ message: `no ${stage} for ${id}`, $metadata: {} });
      }
      const content = typeof value === 'string' ? { SecretString: value } : { SecretBinary: value };
      return { output: { ...content, $metadata: {} }, response: {} };
    },
    { step: 'initialize', name: 'fake-secrets-manager' },
  );
  return { client, calls, puts, failingStages, rotate };
}
