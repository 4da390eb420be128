// listStackResources over a real CloudFormationClient answered by a middleware: every page of a stack's
// resources, and none without a physical id (a resource still being created).
import { CloudFormationClient } from '@aws-sdk/client-cloudformation';
import { describe, expect, it } from 'vitest';
import { listStackResources } from '../../../../lambdas/adapters/stack-resources';

const config = { region: 'eu-west-1', credentials: { accessKeyId: 'unit', secretAccessKey: 'unit' } };

function answering<C extends CloudFormationClient>(
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

describe('listStackResources', () => {
  it('follows NextToken through every page', async () => {
    const client = answering(new CloudFormationClient(config), (_command, input) =>
      input.NextToken === undefined
        ? {
            StackResourceSummaries: [
              { LogicalResourceId: 'A', PhysicalResourceId: 'a', ResourceType: 'AWS::CloudWatch::Alarm' },
            ],
            NextToken: 'page-2',
          }
        : {
            StackResourceSummaries: [
              { LogicalResourceId: 'B', PhysicalResourceId: 'b', ResourceType: 'AWS::Lambda::Function' },
              { LogicalResourceId: 'C', ResourceType: 'AWS::SNS::Topic' },
            ],
          },
    );
    expect(await listStackResources(client, 'WebhookInbox')).toEqual([
      { logicalId: 'A', physicalId: 'a', type: 'AWS::CloudWatch::Alarm' },
      { logicalId: 'B', physicalId: 'b', type: 'AWS::Lambda::Function' },
    ]);
  });
});
