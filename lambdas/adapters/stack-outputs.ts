// A deployed stack's outputs, read from CloudFormation: how the CLI finds the resources of `--stack NAME`.
import { type CloudFormationClient, DescribeStacksCommand } from '@aws-sdk/client-cloudformation';
import { StackNotFoundError } from '../core/errors';
import { callDependency, isAwsError } from './dependency-call';

export interface StackOutputs {
  /** The region the client resolved (from --region, the profile or the environment): where the stack is. */
  region: string;
  /** Output key to value; outputs without a value are left out. */
  outputs: Record<string, string>;
}

/**
 * Throws StackNotFoundError for a stack the region does not have, and DependencyError(cloudformation,
 * DescribeStacks) for any other failure, a region or credentials the client cannot find included.
 */
export async function readStackOutputs(
  client: CloudFormationClient,
  stackName: string,
): Promise<StackOutputs> {
  const described = await callDependency(
    'cloudformation',
    'DescribeStacks',
    async () => {
      const region = await client.config.region();
      const { Stacks: stacks = [] } = await client.send(new DescribeStacksCommand({ StackName: stackName }));
      return { region, stacks };
    },
    // CloudFormation has no not-found exception: it refuses the name as invalid.
    (error) =>
      isAwsError(error, 'ValidationError') && /does not exist/.test((error as Error).message)
        ? new StackNotFoundError(stackName, { cause: error })
        : undefined,
  );
  const stack = described.stacks[0];
  if (!stack) throw new StackNotFoundError(stackName);
  return {
    region: described.region,
    outputs: Object.fromEntries(
      (stack.Outputs ?? []).flatMap((o) =>
        o.OutputKey && o.OutputValue ? [[o.OutputKey, o.OutputValue]] : [],
      ),
    ),
  };
}
