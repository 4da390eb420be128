// readStackOutputs over a real CloudFormationClient whose DescribeStacks is answered by a middleware (no
// CloudFormation emulator): outputs, the two ways a stack is not found, and failures as DependencyError.
// destinationOutputs: the forward destinations' resources, read by the config's destination ids
// (test/infra/destinations.test.ts reads the synthesized stack's own outputs with it).
import {
  CloudFormationClient,
  type DescribeStacksCommandInput,
  type Stack,
} from '@aws-sdk/client-cloudformation';
import { describe, expect, it } from 'vitest';
import { forwardDestinations, parseConfig } from '../../../../config/index';
import { destinationOutputs, readStackOutputs } from '../../../../lambdas/adapters/stack-outputs';
import { DependencyError, StackNotFoundError } from '../../../../lambdas/core/errors';
import { injectFault } from '../../../support/faults';

/** What CloudFormation answers for a name it does not have: a ValidationError, not a not-found exception. */
function stackDoesNotExist(name: string): Error {
  return Object.assign(new Error(`Stack with id ${name} does not exist`), {
    name: 'ValidationError',
    $fault: 'client',
    $metadata: { httpStatusCode: 400 },
  });
}

function fakeCloudFormation(stacks: Record<string, Stack>, options: { emptyAnswer?: boolean } = {}) {
  const asked: string[] = [];
  const client = new CloudFormationClient({
    region: 'eu-west-1',
    credentials: { accessKeyId: 'unit', secretAccessKey: 'unit' },
  });
  client.middlewareStack.add(
    (_next: unknown, context: { commandName?: string }) => async (args: { input: object }) => {
      if (context.commandName !== 'DescribeStacksCommand')
        throw new Error(`unexpected ${context.commandName}`);
      const { StackName: name = '' } = args.input as DescribeStacksCommandInput;
      asked.push(name);
      const stack = stacks[name];
      if (!stack && !options.emptyAnswer) throw stackDoesNotExist(name);
      return { output: { Stacks: stack ? [stack] : [], $metadata: {} }, response: {} };
    },
    // In the build step, after test/support/faults.ts's initialize-step fault, so the fault can pre-empt it.
    { step: 'build', name: 'fake-cloudformation' },
  );
  return { client, asked };
}

const INBOX: Stack = {
  StackName: 'my-inbox',
  CreationTime: new Date(0),
  StackStatus: 'CREATE_COMPLETE',
  Outputs: [
    { OutputKey: 'ApiUrl', OutputValue: 'https://abc.execute-api.eu-west-1.amazonaws.com/prod/' },
    { OutputKey: 'QueueUrl', OutputValue: 'https://sqs.eu-west-1.amazonaws.com/123456789012/q' },
    // An output without a value (or a key) is not an output the CLI can use.
    { OutputKey: 'Empty' },
    { OutputValue: 'no key' },
  ],
};

describe('readStackOutputs', () => {
  it("returns the client's region and the stack's outputs by key", async () => {
    const { client, asked } = fakeCloudFormation({ 'my-inbox': INBOX });
    expect(await readStackOutputs(client, 'my-inbox')).toEqual({
      region: 'eu-west-1',
      outputs: {
        ApiUrl: 'https://abc.execute-api.eu-west-1.amazonaws.com/prod/',
        QueueUrl: 'https://sqs.eu-west-1.amazonaws.com/123456789012/q',
      },
    });
    expect(asked).toEqual(['my-inbox']);
  });

  it('returns an empty map for a stack without outputs', async () => {
    const { client } = fakeCloudFormation({ bare: { ...INBOX, StackName: 'bare', Outputs: undefined } });
    expect((await readStackOutputs(client, 'bare')).outputs).toEqual({});
  });

  it("throws StackNotFoundError, with AWS's refusal as its cause, for a name CloudFormation does not have", async () => {
    const { client } = fakeCloudFormation({ 'my-inbox': INBOX });
    const error = await readStackOutputs(client, 'other').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(StackNotFoundError);
    expect(error).toMatchObject({ stackName: 'other', message: 'stack other not found' });
    expect((error as Error).cause).toMatchObject({
      name: 'ValidationError',
      message: 'Stack with id other does not exist',
    });
  });

  it('throws StackNotFoundError when DescribeStacks answers with no stack', async () => {
    const { client } = fakeCloudFormation({}, { emptyAnswer: true });
    const error = await readStackOutputs(client, 'gone').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(StackNotFoundError);
    expect((error as Error).cause).toBeUndefined();
  });

  it('turns a failing DescribeStacks into DependencyError(cloudformation, DescribeStacks) with the SDK error as cause', async () => {
    const { client } = fakeCloudFormation({ 'my-inbox': INBOX });
    const expired = Object.assign(new Error('The security token included in the request is expired'), {
      name: 'ExpiredTokenException',
    });
    injectFault(client, { commands: 'DescribeStacksCommand', error: () => expired });
    const error = await readStackOutputs(client, 'my-inbox').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(DependencyError);
    expect(error).toMatchObject({
      dependency: 'cloudformation',
      operation: 'DescribeStacks',
      cause: expired,
    });
  });

  it('reports a ValidationError other than a missing stack as a DependencyError, not as not found', async () => {
    const { client } = fakeCloudFormation({});
    const invalid = Object.assign(new Error('1 validation error detected: Value at stackName failed'), {
      name: 'ValidationError',
    });
    injectFault(client, { commands: 'DescribeStacksCommand', error: () => invalid });
    await expect(readStackOutputs(client, 'bad name!')).rejects.toBeInstanceOf(DependencyError);
  });

  it('reports a client without a region as DependencyError(cloudformation, DescribeStacks)', async () => {
    const client = new CloudFormationClient({
      region: async () => {
        throw new Error('Region is missing');
      },
      credentials: { accessKeyId: 'unit', secretAccessKey: 'unit' },
    });
    const error = await readStackOutputs(client, 'my-inbox').catch((e: unknown) => e);
    expect(error).toMatchObject({ operation: 'DescribeStacks', cause: { message: 'Region is missing' } });
    client.destroy();
  });
});

describe('destinationOutputs', () => {
  const BUS = 'arn:aws:events:eu-west-1:210987654321:event-bus/audit';
  const destinations = forwardDestinations(
    parseConfig({
      destinations: {
        handlers: { type: 'handlers' },
        'order-sync': { type: 'http', url: 'https://orders.example.com/' },
        events: { type: 'eventbridge' },
        audit: { type: 'eventbridge', busArn: BUS },
        crm: { type: 'sqs', queueArn: 'arn:aws:sqs:eu-west-1:210987654321:crm' },
      },
    }),
  );
  const queues = (suffix: string, name: string) => ({
    [`DestinationQueueUrl${suffix}`]: `https://sqs.eu-west-1.amazonaws.com/123456789012/${name}`,
    [`DestinationQueueArn${suffix}`]: `arn:aws:sqs:eu-west-1:123456789012:${name}`,
    [`DestinationDlqUrl${suffix}`]: `https://sqs.eu-west-1.amazonaws.com/123456789012/${name}-dlq`,
    [`DestinationDlqArn${suffix}`]: `arn:aws:sqs:eu-west-1:123456789012:${name}-dlq`,
  });
  const resources = (name: string) => ({
    queueUrl: `https://sqs.eu-west-1.amazonaws.com/123456789012/${name}`,
    queueArn: `arn:aws:sqs:eu-west-1:123456789012:${name}`,
    dlqUrl: `https://sqs.eu-west-1.amazonaws.com/123456789012/${name}-dlq`,
    dlqArn: `arn:aws:sqs:eu-west-1:123456789012:${name}-dlq`,
  });
  const OUTPUTS = {
    QueueUrl: 'https://sqs.eu-west-1.amazonaws.com/123456789012/q',
    ForwarderFunctionName: 'inbox-forwarder',
    ...queues('OrderSync', 'q-to-order-sync'),
    DestinationSecretArnOrderSync: 'arn:aws:secretsmanager:eu-west-1:123456789012:secret:s-AbC123',
    ...queues('Events', 'q-to-events'),
    ...queues('Audit', 'q-to-audit'),
    ...queues('Crm', 'q-to-crm'),
    EventBusArn: 'arn:aws:events:eu-west-1:123456789012:event-bus/created',
  };

  it('reads each configured destination by its own keys: the created bus from the stack, an imported one from the config', () => {
    expect(destinationOutputs(OUTPUTS, destinations)).toEqual({
      forwarderFunctionName: 'inbox-forwarder',
      destinations: {
        'order-sync': { ...resources('q-to-order-sync'), secretArn: OUTPUTS.DestinationSecretArnOrderSync },
        events: { ...resources('q-to-events'), busArn: OUTPUTS.EventBusArn },
        audit: { ...resources('q-to-audit'), busArn: BUS },
        crm: {
          ...resources('q-to-crm'),
          targetQueueUrl: 'https://sqs.eu-west-1.amazonaws.com/210987654321/crm',
        },
      },
      missing: [],
    });
  });

  it('leaves out a destination the stack was deployed without, and names the outputs it lacks', () => {
    const {
      DestinationSecretArnOrderSync: _secret,
      EventBusArn: _bus,
      ForwarderFunctionName: _fn,
      ...older
    } = OUTPUTS;
    const parsed = destinationOutputs(older, destinations);
    expect(Object.keys(parsed.destinations).sort()).toEqual(['audit', 'crm']);
    expect(parsed.forwarderFunctionName).toBeUndefined();
    expect(parsed.missing).toEqual(['ForwarderFunctionName', 'DestinationSecretArnOrderSync', 'EventBusArn']);
  });

  it('needs nothing from a stack when the config has no forward destination', () => {
    expect(destinationOutputs({ QueueUrl: OUTPUTS.QueueUrl }, [])).toEqual({ destinations: {}, missing: [] });
  });
});
