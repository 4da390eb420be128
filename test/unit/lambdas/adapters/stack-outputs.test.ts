// readStackOutputs over a real CloudFormationClient whose DescribeStacks is answered by a middleware (no
// CloudFormation emulator): outputs, the two ways a stack is not found, and failures as DependencyError.
import {
  CloudFormationClient,
  type DescribeStacksCommandInput,
  type Stack,
} from '@aws-sdk/client-cloudformation';
import { describe, expect, it } from 'vitest';
import { readStackOutputs } from '../../../../lambdas/adapters/stack-outputs';
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
