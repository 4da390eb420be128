// SecretsManagerSource over a real SecretsManagerClient whose GetSecretValue is answered by a middleware
// (test/support/fake-secrets-manager.ts): there is no Secrets Manager emulator.
import { describe, expect, it } from 'vitest';
import { SecretsManagerSource } from '../../../../lambdas/adapters/secrets';
import { DependencyError } from '../../../../lambdas/core/errors';
import { type FakeSecretVersions, fakeSecretsManager } from '../../../support/fake-secrets-manager';
import { injectFault } from '../../../support/faults';

const ARN = 'arn:aws:secretsmanager:us-east-1:123456789012:secret:webhook-inbox/github-AbCdEf';

function manualClock(start = 1_000_000) {
  let now = start;
  return {
    now: () => now,
    advance(seconds: number) {
      now += seconds * 1000;
    },
  };
}

function setup(versions: FakeSecretVersions = { current: 'new-secret', previous: 'old-secret' }) {
  const fake = fakeSecretsManager({ [ARN]: versions });
  const clock = manualClock();
  const source = new SecretsManagerSource(
    fake.client,
    { github: ARN },
    {
      clock,
      cacheSeconds: 300,
      minRefreshIntervalSeconds: 10,
    },
  );
  return { ...fake, clock, source };
}

describe('SecretsManagerSource', () => {
  it('returns AWSCURRENT then AWSPREVIOUS, asking for both stages', async () => {
    const { source, calls } = setup();
    expect(await source.get('github')).toEqual(['new-secret', 'old-secret']);
    expect(calls.sort()).toEqual([`${ARN}:AWSCURRENT`, `${ARN}:AWSPREVIOUS`]);
  });

  it('returns only AWSCURRENT when there is no previous version', async () => {
    const { source } = setup({ current: 'only-secret' });
    expect(await source.get('github')).toEqual(['only-secret']);
  });

  it('returns [] for a provider without a secret ARN, without calling Secrets Manager', async () => {
    const { source, calls } = setup();
    expect(await source.get('stripe')).toEqual([]);
    expect(await source.get('__proto__')).toEqual([]);
    expect(calls).toEqual([]);
  });

  it('returns [] when the secret does not exist', async () => {
    const { source } = setup({});
    expect(await source.get('github')).toEqual([]);
  });

  it('passes empty and whitespace secrets through for the schemes to refuse', async () => {
    const { source } = setup({ current: '', previous: '  ' });
    expect(await source.get('github')).toEqual(['', '  ']);
  });

  it('serves from the cache until cacheSeconds have passed, then sees a rotation', async () => {
    const { source, calls, clock, rotate } = setup({ current: 'v1' });
    await source.get('github');
    rotate(ARN, 'v2');
    clock.advance(299);
    expect(await source.get('github')).toEqual(['v1']);
    expect(calls).toHaveLength(2);
    clock.advance(1);
    expect(await source.get('github')).toEqual(['v2', 'v1']);
    expect(calls).toHaveLength(4);
  });

  it('refresh bypasses the cache at once, so a fresh rotation is seen on the next bad signature', async () => {
    const { source, clock, rotate } = setup({ current: 'v1' });
    await source.get('github');
    clock.advance(10);
    rotate(ARN, 'v2');
    expect(await source.get('github', { refresh: true })).toEqual(['v2', 'v1']);
    expect(await source.get('github')).toEqual(['v2', 'v1']);
  });

  it('rate-limits refreshes to one per minRefreshIntervalSeconds per provider', async () => {
    const { source, calls, clock } = setup();
    await source.get('github');
    for (let i = 0; i < 100; i++) await source.get('github', { refresh: true });
    expect(calls).toHaveLength(2);
    clock.advance(9.999);
    await source.get('github', { refresh: true });
    expect(calls).toHaveLength(2);
    clock.advance(0.001);
    await source.get('github', { refresh: true });
    expect(calls).toHaveLength(4);
  });

  it('keeps refresh limits per provider', async () => {
    const fake = fakeSecretsManager({ [ARN]: { current: 'g' }, 'stripe-arn': { current: 's' } });
    const source = new SecretsManagerSource(
      fake.client,
      { github: ARN, stripe: 'stripe-arn' },
      {
        clock: manualClock(),
      },
    );
    await source.get('github');
    expect(await source.get('stripe', { refresh: true })).toEqual(['s']);
    expect(fake.calls).toHaveLength(4);
  });

  it('shares one fetch between concurrent requests', async () => {
    const { source, calls } = setup();
    const results = await Promise.all(Array.from({ length: 10 }, () => source.get('github')));
    expect(new Set(results.map((r) => r.join()))).toEqual(new Set(['new-secret,old-secret']));
    expect(calls).toHaveLength(2);
  });

  it('keeps serving a warm cache, even an expired one, while Secrets Manager fails', async () => {
    const { source, client, calls, clock } = setup();
    await source.get('github');
    const outage = injectFault(client, { commands: 'GetSecretValueCommand' });
    clock.advance(3600);
    expect(await source.get('github')).toEqual(['new-secret', 'old-secret']);
    expect(await source.get('github', { refresh: true })).toEqual(['new-secret', 'old-secret']);
    // It does not ask again on every request during the outage: once per refresh interval.
    for (let i = 0; i < 20; i++) await source.get('github');
    expect(outage.calls).toBe(2);
    clock.advance(10);
    await source.get('github');
    expect(outage.calls).toBe(4);
    outage.remove();
    clock.advance(10);
    await source.get('github');
    expect(calls).toHaveLength(4);
  });

  it('throws DependencyError(secrets, GetSecretValue) when it fails with nothing cached', async () => {
    const { source, client } = setup();
    const outage = injectFault(client, { commands: 'GetSecretValueCommand' });
    const error = await source.get('github').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(DependencyError);
    expect(error).toMatchObject({ dependency: 'secrets', operation: 'GetSecretValue' });
    // The next request tries again: a cold instance has nothing to fall back on.
    outage.remove();
    expect(await source.get('github')).toEqual(['new-secret', 'old-secret']);
  });

  it('treats a failing AWSPREVIOUS read (other than not-found) as a failure, not as "no previous"', async () => {
    const { source, failingStages } = setup();
    failingStages.add('AWSPREVIOUS');
    await expect(source.get('github')).rejects.toBeInstanceOf(DependencyError);
  });
});
