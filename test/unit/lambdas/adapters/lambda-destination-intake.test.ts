// The forwarder's intake control over an injected Lambda client: it reads each mapping's state every
// time (the CLI's `destinations enable` changes it behind the forwarder's back) and updates only what
// differs.
import { ListEventSourceMappingsCommand, UpdateEventSourceMappingCommand } from '@aws-sdk/client-lambda';
import { describe, expect, it } from 'vitest';
import { LambdaDestinationIntake } from '../../../../lambdas/adapters/lambda-destination-intake';

const QUEUE_ARN = 'arn:aws:sqs:eu-west-1:123456789012:q-to-hooks';

/** One mapping whose state the updates change, as Lambda's would (the transition skipped). */
function fakeLambda() {
  let state = 'Enabled';
  const calls: string[] = [];
  const client = {
    send: async (command: unknown) => {
      if (command instanceof ListEventSourceMappingsCommand) {
        calls.push(`list ${command.input.FunctionName} ${command.input.EventSourceArn}`);
        return { EventSourceMappings: [{ UUID: 'uuid-1', State: state }] };
      }
      if (command instanceof UpdateEventSourceMappingCommand) {
        calls.push(`update ${command.input.UUID} ${command.input.Enabled}`);
        state = command.input.Enabled ? 'Enabled' : 'Disabled';
        return {};
      }
      throw new Error('unexpected command');
    },
  };
  return { client, calls, setState: (next: string) => (state = next) };
}

describe('LambdaDestinationIntake', () => {
  it('pauses again after someone else resumed it, and leaves a mapping already as wanted alone', async () => {
    const lambda = fakeLambda();
    const intake = new LambdaDestinationIntake(lambda.client as never, 'forwarder', { hooks: QUEUE_ARN });
    await intake.pause('hooks');
    await intake.pause('hooks');
    // `destinations enable` from the CLI, behind this container's back.
    lambda.setState('Enabled');
    await intake.pause('hooks');
    expect(lambda.calls).toEqual([
      `list forwarder ${QUEUE_ARN}`,
      'update uuid-1 false',
      `list forwarder ${QUEUE_ARN}`,
      `list forwarder ${QUEUE_ARN}`,
      'update uuid-1 false',
    ]);
  });

  it('waits for a mapping still on its way back (a pause racing an enable), then updates it', async () => {
    const lambda = fakeLambda();
    lambda.setState('Disabling');
    const sleeps: number[] = [];
    const intake = new LambdaDestinationIntake(
      lambda.client as never,
      'forwarder',
      { hooks: QUEUE_ARN },
      {
        sleep: async (ms) => {
          sleeps.push(ms);
          lambda.setState('Disabled');
        },
      },
    );
    await intake.resume('hooks');
    expect(sleeps).toEqual([1_000]);
    expect(lambda.calls.filter((c) => c.startsWith('update'))).toEqual(['update uuid-1 true']);
  });

  it('gives up, as a dependency failure, on a mapping that never settles', async () => {
    const lambda = fakeLambda();
    lambda.setState('Disabling');
    const intake = new LambdaDestinationIntake(
      lambda.client as never,
      'forwarder',
      { hooks: QUEUE_ARN },
      {
        sleep: async () => undefined,
        settleAttempts: 2,
      },
    );
    await expect(intake.resume('hooks')).rejects.toThrow(/lambda UpdateEventSourceMapping failed/);
  });

  it('refuses a destination it has no queue for', async () => {
    const intake = new LambdaDestinationIntake(fakeLambda().client as never, 'forwarder', {});
    await expect(intake.resume('nope')).rejects.toThrow(/no queue for destination nope/);
  });
});
