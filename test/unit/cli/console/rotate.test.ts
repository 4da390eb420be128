// The console's Rotate: a provider that issues its own secret (Stripe) is never given a random one, which
// would fail every delivery; a scheme whose secret you issue (GitHub) gets a random one.
import { describe, expect, it } from 'vitest';
import { ConsoleOperations } from '../../../../cli/console/console-operations';
import type { Target } from '../../../../cli/shared/target-types';
import { parseConfig } from '../../../../config';

const config = parseConfig({});

function operations() {
  const rotated: string[] = [];
  const target = {
    tableName: 'inbox',
    config,
    endpointUrl: (id: string) => `http://127.0.0.1:3000/webhooks/${id}`,
    secrets: {
      rotate: async (_provider: string, value: string) => {
        rotated.push(value);
        return [value];
      },
    },
  } as unknown as Target;
  const clients = { dynamodb: {}, sqs: {} } as unknown as Awaited<ReturnType<Target['clients']>>;
  return { ops: new ConsoleOperations(target, config, clients), rotated };
}

describe('the console rotate', () => {
  it('refuses to make up a secret for a provider that issues its own', async () => {
    const { ops, rotated } = operations();
    await expect(ops.rotate('stripe', undefined)).rejects.toThrow(/issues this secret/);
    expect(rotated).toEqual([]);
  });

  it('stores the secret the provider issued', async () => {
    const { ops, rotated } = operations();
    await ops.rotate('stripe', 'whsec_issued_by_stripe_0123456789');
    expect(rotated).toEqual(['whsec_issued_by_stripe_0123456789']);
  });

  it('makes a random one where you issue the secret', async () => {
    const { ops, rotated } = operations();
    await ops.rotate('github', undefined);
    expect(rotated).toHaveLength(1);
    expect(rotated[0]?.length).toBeGreaterThanOrEqual(32);
  });
});
