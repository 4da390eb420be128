// SecretsManagerStore (the CLI's `secrets show|rotate --stack`) over a real SecretsManagerClient answered by
// test/support/fake-secrets-manager.ts: stage reads, a missing AWSPREVIOUS as none, puts, and failures.
import { describe, expect, it } from 'vitest';
import { SECRET_STAGES, SecretsManagerStore } from '../../../../lambdas/adapters/secrets-manager-store';
import { DependencyError } from '../../../../lambdas/core/errors';
import { type FakeSecretVersions, fakeSecretsManager } from '../../../support/fake-secrets-manager';
import { injectFault } from '../../../support/faults';

const ARN = 'arn:aws:secretsmanager:eu-west-1:123456789012:secret:webhook-inbox/github-AbCdEf';

function setup(versions: FakeSecretVersions = { current: 'new-secret', previous: 'old-secret' }) {
  const fake = fakeSecretsManager({ [ARN]: versions });
  return { ...fake, store: new SecretsManagerStore(fake.client) };
}

describe('SecretsManagerStore', () => {
  it('reads AWSCURRENT and AWSPREVIOUS by their staging labels, newest first', async () => {
    const { store, calls } = setup();
    expect(SECRET_STAGES).toEqual(['AWSCURRENT', 'AWSPREVIOUS']);
    expect(await store.read(ARN, 'AWSCURRENT')).toBe('new-secret');
    expect(await store.read(ARN, 'AWSPREVIOUS')).toBe('old-secret');
    expect(calls).toEqual([`${ARN}:AWSCURRENT`, `${ARN}:AWSPREVIOUS`]);
  });

  it('answers undefined for AWSPREVIOUS before the first rotation (ResourceNotFoundException means none)', async () => {
    const { store } = setup({ current: 'only-secret' });
    expect(await store.read(ARN, 'AWSCURRENT')).toBe('only-secret');
    expect(await store.read(ARN, 'AWSPREVIOUS')).toBeUndefined();
  });

  it('answers undefined for a secret that does not exist, and for a binary-only version', async () => {
    const { store } = setup({ current: new Uint8Array([1, 2, 3]) });
    expect(await store.read(`${ARN}-other`, 'AWSCURRENT')).toBeUndefined();
    expect(await store.read(ARN, 'AWSCURRENT')).toBeUndefined();
  });

  it('throws DependencyError(secrets, GetSecretValue) for a failing read, not "none"', async () => {
    const { store, failingStages } = setup();
    failingStages.add('AWSPREVIOUS');
    const error = await store.read(ARN, 'AWSPREVIOUS').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(DependencyError);
    expect(error).toMatchObject({
      dependency: 'secrets',
      operation: 'GetSecretValue',
      cause: { name: 'ServiceUnavailable' },
    });
  });

  it('put sends PutSecretValue with the new value, which becomes AWSCURRENT and moves the old one to AWSPREVIOUS', async () => {
    const { store, puts } = setup({ current: 'v1' });
    await store.put(ARN, 'v2');
    expect(puts).toEqual([{ SecretId: ARN, SecretString: 'v2' }]);
    expect(await store.read(ARN, 'AWSCURRENT')).toBe('v2');
    expect(await store.read(ARN, 'AWSPREVIOUS')).toBe('v1');
  });

  it('throws DependencyError(secrets, PutSecretValue) when the put fails', async () => {
    const { store, client } = setup();
    injectFault(client, { commands: 'PutSecretValueCommand' });
    const error = await store.put(ARN, 'v2').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(DependencyError);
    expect(error).toMatchObject({ dependency: 'secrets', operation: 'PutSecretValue' });
    expect(await store.read(ARN, 'AWSCURRENT')).toBe('new-secret');
  });
});
