// The doctor's reads of each resource, against the emulators: each must make the calls the commands it
// stands for make, or an operator whose policy lacks one is told the resource reads while the command
// is refused. The refusals are injected, since the emulators refuse nothing.
import { describe, expect, it, onTestFinished } from 'vitest';
import { resourceProbes } from '../../../../../cli/commands/doctor/adapters';
import { useEmulators } from '../../../../support/emulators';
import { injectFault } from '../../../../support/faults';

const env = useEmulators();

/** DynamoDB's refusal of a call the caller's policy does not allow. */
function accessDenied(): Error {
  return Object.assign(new Error('User is not authorized to perform: dynamodb:Query'), {
    name: 'AccessDeniedException',
    $fault: 'client',
    $metadata: { httpStatusCode: 400 },
  });
}

describe('doctor resource probes', () => {
  it('read:table queries the listing index as `list` and the console do: a refused Query fails it', async () => {
    const fault = injectFault(env.clients.dynamodb, { commands: 'QueryCommand', error: accessDenied });
    onTestFinished(() => fault.remove());
    await expect(resourceProbes(env.clients, env.resources).table()).rejects.toThrow(/not authorized/);
    expect(fault.failures).toBe(1);
  });

  it('read:table passes on a table that answers the record read and the listing query', async () => {
    await expect(resourceProbes(env.clients, env.resources).table()).resolves.toBeUndefined();
  });
});
