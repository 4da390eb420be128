// IAM checked offline (least-privilege.ts) on a stack of each front door (REST API, HTTP API, function URL) without destinations: every AWS call of each Lambda and of
// the `webhook-inbox` command is allowed by the synthesized policies and the documented operator policy,
// and the grants no call uses are the pinned ones.
import { vi } from 'vitest';
import type { AwsClientOptions } from '../../../lambdas/adapters/clients';
import { FRONT_DOOR_VARIANTS, leastPrivilegeSuite } from './least-privilege';

// The command builds its clients for a stack itself (cli/shared/stack-target.ts): pointed at the emulators
// here. The Lambdas' clients are given their endpoints explicitly and pass through.
const emulator = vi.hoisted(() => ({ endpoints: undefined as undefined | AwsClientOptions }));
vi.mock('../../../lambdas/adapters/clients', async (importOriginal) => {
  const actual = await importOriginal<typeof import('../../../lambdas/adapters/clients')>();
  return {
    ...actual,
    createAwsClients: (options: Parameters<typeof actual.createAwsClients>[0] = {}) =>
      actual.createAwsClients(options.dynamodb ? options : { ...emulator.endpoints, ...options }),
    // A target queue in another region gets a client of its own (lambdas/forward/senders.ts): the one
    // emulator stands for every region.
    createSqsClient: (options: Parameters<typeof actual.createSqsClient>[0] = {}) =>
      actual.createSqsClient(options.sqs ? options : { ...emulator.endpoints, ...options }),
  };
});

leastPrivilegeSuite('front-doors', FRONT_DOOR_VARIANTS, emulator);
