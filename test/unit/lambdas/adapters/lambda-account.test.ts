// LambdaAccount over a real LambdaClient answered by a middleware (no Lambda emulator): the account's
// concurrency, and a function's reservation (none when Lambda sends none).
import { LambdaClient } from '@aws-sdk/client-lambda';
import { describe, expect, it } from 'vitest';
import { LambdaAccount } from '../../../../lambdas/adapters/lambda-account';

const config = { region: 'eu-west-1', credentials: { accessKeyId: 'unit', secretAccessKey: 'unit' } };

function answering<C extends LambdaClient>(
  client: C,
  answer: (command: string, input: Record<string, unknown>) => object,
): C {
  client.middlewareStack.add(
    (_next: unknown, context: { commandName?: string }) => async (args: { input: object }) => ({
      output: { $metadata: {}, ...answer(context.commandName ?? '', args.input as Record<string, unknown>) },
      response: {},
    }),
    { step: 'initialize', name: 'fake' },
  );
  return client;
}

describe('LambdaAccount', () => {
  it("reads the account's limit and what is left unreserved", async () => {
    const client = answering(new LambdaClient(config), () => ({
      AccountLimit: { ConcurrentExecutions: 1000, UnreservedConcurrentExecutions: 880 },
    }));
    expect(await new LambdaAccount(client).concurrency()).toEqual({ limit: 1000, unreserved: 880 });
  });

  it('reads a reservation, and none when Lambda sends none', async () => {
    let reserved: number | undefined = 20;
    const client = answering(new LambdaClient(config), () =>
      reserved === undefined ? {} : { ReservedConcurrentExecutions: reserved },
    );
    const account = new LambdaAccount(client);
    expect(await account.reservedConcurrency('verify')).toBe(20);
    reserved = undefined;
    expect(await account.reservedConcurrency('verify')).toBeUndefined();
  });
});
