// Provider secrets in Secrets Manager as the CLI handles them (`secrets show|rotate --stack`): one staging
// label read uncached, and a new version put. Apart from secrets.ts so the verify Lambda, which only reads,
// never bundles PutSecretValue.
import {
  ListSecretVersionIdsCommand,
  PutSecretValueCommand,
  type SecretsManagerClient,
} from '@aws-sdk/client-secrets-manager';
import { callDependency } from './dependency-call';
import { getSecretStage, type SecretStage } from './secrets';

/** Newest first, the order SecretSource lists secrets in. */
export const SECRET_STAGES: readonly SecretStage[] = ['AWSCURRENT', 'AWSPREVIOUS'];

export class SecretsManagerStore {
  constructor(private readonly client: SecretsManagerClient) {}

  /**
   * The text of one staging label: undefined if there is no such version (AWSPREVIOUS before the first
   * rotation) or it holds binary data only. DependencyError(secrets, GetSecretValue) on any other failure.
   */
  async read(secretId: string, stage: SecretStage): Promise<string | undefined> {
    return callDependency(
      'secrets',
      'GetSecretValue',
      async () => (await getSecretStage(this.client, secretId, stage))?.SecretString,
    );
  }

  /** Stores `value` as a new version: Secrets Manager moves AWSCURRENT to it and AWSPREVIOUS to the old one. */
  async put(secretId: string, value: string): Promise<void> {
    await callDependency('secrets', 'PutSecretValue', () =>
      this.client.send(new PutSecretValueCommand({ SecretId: secretId, SecretString: value })),
    );
  }

  /** When each staging label's version was created (epoch ms): the secrets' ages, for the console. */
  async stageDates(secretId: string): Promise<Partial<Record<SecretStage, number>>> {
    const dates: Partial<Record<SecretStage, number>> = {};
    let nextToken: string | undefined;
    do {
      const page = await callDependency('secrets', 'ListSecretVersionIds', () =>
        this.client.send(new ListSecretVersionIdsCommand({ SecretId: secretId, NextToken: nextToken })),
      );
      for (const version of page.Versions ?? []) {
        for (const stage of version.VersionStages ?? []) {
          const known = SECRET_STAGES.find((s) => s === stage);
          if (known && version.CreatedDate) dates[known] = version.CreatedDate.getTime();
        }
      }
      nextToken = page.NextToken;
    } while (nextToken);
    return dates;
  }
}
