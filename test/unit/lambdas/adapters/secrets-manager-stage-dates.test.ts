// SecretsManagerStore.stageDates over a real SecretsManagerClient whose ListSecretVersionIds is answered
// by a middleware: the creation date of AWSCURRENT and AWSPREVIOUS, across pages, other labels ignored.
import { type ListSecretVersionIdsCommandInput, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { describe, expect, it } from 'vitest';
import { SecretsManagerStore } from '../../../../lambdas/adapters/secrets-manager-store';

const PAGES: Record<string, { Versions: object[]; NextToken?: string }> = {
  first: {
    Versions: [
      { VersionId: 'v3', VersionStages: ['AWSCURRENT'], CreatedDate: new Date('2026-11-30T12:00:00Z') },
      { VersionId: 'v1', VersionStages: [], CreatedDate: new Date('2026-01-01T00:00:00Z') },
    ],
    NextToken: 'second',
  },
  second: {
    Versions: [
      {
        VersionId: 'v2',
        VersionStages: ['AWSPREVIOUS', 'custom'],
        CreatedDate: new Date('2026-10-01T08:00:00Z'),
      },
    ],
  },
};

describe('SecretsManagerStore.stageDates', () => {
  it("reads each stage's creation date, following NextToken", async () => {
    const asked: ListSecretVersionIdsCommandInput[] = [];
    const client = new SecretsManagerClient({
      region: 'us-east-1',
      credentials: { accessKeyId: 'unit', secretAccessKey: 'unit' },
    });
    client.middlewareStack.add(
      (_next: unknown) => async (args: { input: object }) => {
        const input = args.input as ListSecretVersionIdsCommandInput;
        asked.push(input);
        return { output: { $metadata: {}, ...PAGES[input.NextToken ?? 'first'] }, response: {} };
      },
      { step: 'initialize', name: 'fakeListVersions' },
    );
    const dates = await new SecretsManagerStore(client).stageDates('arn:secret');
    expect(dates).toEqual({
      AWSCURRENT: Date.parse('2026-11-30T12:00:00Z'),
      AWSPREVIOUS: Date.parse('2026-10-01T08:00:00Z'),
    });
    expect(asked.map((a) => [a.SecretId, a.NextToken])).toEqual([
      ['arn:secret', undefined],
      ['arn:secret', 'second'],
    ]);
  });
});
