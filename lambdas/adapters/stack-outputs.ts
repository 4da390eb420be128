// A deployed stack's outputs, read from CloudFormation: how the CLI finds the resources of `--stack NAME`,
// the forward destinations' included.
import { type CloudFormationClient, DescribeStacksCommand } from '@aws-sdk/client-cloudformation';
import type { ForwardDestination } from '../../config';
import type { DestinationResources } from '../../config/runtime';
import { outputSuffix, STACK_OUTPUTS } from '../../config/telemetry';
import { queueUrlFromArn } from '../core/destinations/sqs-queue-url';
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

/** What a stack's outputs say about its forwarding: the forwarder and each destination's resources. */
export interface DestinationOutputs {
  /** Set when the stack has forward destinations. */
  forwarderFunctionName?: string;
  /** Destination id to its resources, for each asked-for destination whose outputs are all there. */
  destinations: Record<string, DestinationResources>;
  /** Output keys the asked-for destinations need and the stack lacks (deployed without them, or older). */
  missing: string[];
}

/**
 * The destinations' resources from a stack's outputs (readStackOutputs). Output keys carry the destination
 * id in PascalCase, which cannot be turned back into the id, so the destinations are the config's: each is
 * looked up by its own keys. An imported bus is the config's `busArn`; a created one is the stack's
 * EventBusArn. A target queue's URL is not an output (it is the forwarder's business, not the CLI's).
 */
export function destinationOutputs(
  outputs: Record<string, string>,
  destinations: readonly ForwardDestination[],
): DestinationOutputs {
  const missing: string[] = [];
  const need = (key: string): string => {
    const value = outputs[key];
    if (value === undefined) missing.push(key);
    return value ?? '';
  };
  const forwarderFunctionName =
    destinations.length > 0
      ? need(STACK_OUTPUTS.forwarderFunctionName)
      : outputs[STACK_OUTPUTS.forwarderFunctionName];
  const found: Record<string, DestinationResources> = {};
  for (const destination of destinations) {
    const before = missing.length;
    const suffix = outputSuffix(destination.id);
    const resources: DestinationResources = {
      queueUrl: need(`${STACK_OUTPUTS.destinationQueueUrlPrefix}${suffix}`),
      queueArn: need(`${STACK_OUTPUTS.destinationQueueArnPrefix}${suffix}`),
      dlqUrl: need(`${STACK_OUTPUTS.destinationDlqUrlPrefix}${suffix}`),
      dlqArn: need(`${STACK_OUTPUTS.destinationDlqArnPrefix}${suffix}`),
    };
    if (destination.type === 'http') {
      resources.secretArn = need(`${STACK_OUTPUTS.destinationSecretArnPrefix}${suffix}`);
    } else if (destination.type === 'eventbridge') {
      resources.busArn = destination.busArn ?? need(STACK_OUTPUTS.eventBusArn);
    } else if (destination.type === 'sqs') {
      resources.targetQueueUrl = queueUrlFromArn(destination.queueArn);
    }
    if (missing.length === before) found[destination.id] = resources;
  }
  return {
    ...(forwarderFunctionName ? { forwarderFunctionName } : {}),
    destinations: found,
    missing: [...new Set(missing)],
  };
}
