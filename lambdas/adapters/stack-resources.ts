// A deployed stack's resources (ListStackResources), for `webhook-inbox doctor`: the alarms, the verify
// Lambda and the front door, which the stack's outputs do not name.
import { type CloudFormationClient, ListStackResourcesCommand } from '@aws-sdk/client-cloudformation';
import { callDependency } from './dependency-call';

export interface StackResource {
  logicalId: string;
  /** The name or ARN CloudFormation knows it by: an alarm's name, a function's name, a topic's ARN. */
  physicalId: string;
  /** `AWS::CloudWatch::Alarm`, `AWS::Lambda::Function`, ... */
  type: string;
}

export async function listStackResources(
  client: CloudFormationClient,
  stackName: string,
): Promise<StackResource[]> {
  const resources: StackResource[] = [];
  let nextToken: string | undefined;
  do {
    const page = await callDependency('cloudformation', 'ListStackResources', () =>
      client.send(new ListStackResourcesCommand({ StackName: stackName, NextToken: nextToken })),
    );
    for (const summary of page.StackResourceSummaries ?? []) {
      if (!summary.LogicalResourceId || !summary.PhysicalResourceId || !summary.ResourceType) continue;
      resources.push({
        logicalId: summary.LogicalResourceId,
        physicalId: summary.PhysicalResourceId,
        type: summary.ResourceType,
      });
    }
    nextToken = page.NextToken;
  } while (nextToken);
  return resources;
}
