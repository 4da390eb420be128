// The IAM policy the docs give operators for the `webhook-inbox` command on a stack (docs/iam.md), read
// from the page itself so the test checks what readers copy, with its placeholders
// filled in from a synthesized stack: `${Region}`, `${Account}`, `${StackName}`, `${<stack output>}`,
// `${VerifyFunctionName}` (a resource's physical id), and
// the lists of what cdk.json imports (`${ImportedSecretArns}`, `${ImportedBusArns}`, `${TargetQueueArns}`).
import { type Config, forwardDestinations } from '../../../config';
import { readDoc } from '../../support/docs';
import {
  ACCOUNT,
  type DeployedTemplate,
  type PolicyDocument,
  REGION,
  type Statement,
} from '../../support/iam-template';

export const OPERATOR_PAGE = 'docs/iam.md';

/** The page's first ```json block. */
export function documentedOperatorPolicy(page = readDoc(OPERATOR_PAGE)): PolicyDocument {
  const block = /```json\n([\s\S]*?)\n```/.exec(page);
  if (!block) throw new Error(`${OPERATOR_PAGE} has no json block`);
  return JSON.parse(block[1] as string) as PolicyDocument;
}

function listsOf(config: Config): Record<string, string[]> {
  const destinations = forwardDestinations(config);
  return {
    ImportedSecretArns: destinations.flatMap((d) => (d.type === 'http' && d.secretArn ? [d.secretArn] : [])),
    ImportedBusArns: destinations.flatMap((d) => (d.type === 'eventbridge' && d.busArn ? [d.busArn] : [])),
    TargetQueueArns: destinations.flatMap((d) => (d.type === 'sqs' ? [d.queueArn] : [])),
  };
}

export function operatorPolicy(deployed: DeployedTemplate, config: Config): PolicyDocument {
  const values: Record<string, string> = {
    Region: REGION,
    Account: ACCOUNT,
    StackName: deployed.stackName,
    // Not an output: the page tells readers where to find it (the stack's resources).
    VerifyFunctionName: deployed.physicalId(deployed.lambda('verify').logicalId),
    ...deployed.outputs,
  };
  const lists = listsOf(config);
  const fill = (text: string): string[] => {
    const list = /^\$\{(\w+)\}$/.exec(text)?.[1];
    if (list !== undefined && Object.hasOwn(lists, list)) return lists[list] as string[];
    // A placeholder of an output the stack lacks (no destinations, so no EventBusArn) grants nothing.
    if ([...text.matchAll(/\$\{(\w+)\}/g)].some(([, name]) => !Object.hasOwn(values, name as string)))
      return [];
    return [text.replace(/\$\{(\w+)\}/g, (_, name: string) => values[name] as string)];
  };
  const fillAll = (value: string | string[] | undefined) =>
    value === undefined ? undefined : (Array.isArray(value) ? value : [value]).flatMap(fill);
  const hasDestinations = forwardDestinations(config).length > 0;
  const statements = documentedOperatorPolicy().Statement.flatMap((s): Statement[] => {
    // As the page says: a stack without destinations needs none of the Destination* statements.
    if (!hasDestinations && s.Sid?.startsWith('Destination')) return [];
    const resources = fillAll(s.Resource) ?? [];
    if (resources.length === 0) return [];
    const condition =
      s.Condition &&
      Object.fromEntries(
        Object.entries(s.Condition).map(([op, keys]) => [
          op,
          Object.fromEntries(Object.entries(keys).map(([key, v]) => [key, fillAll(v) as string[]])),
        ]),
      );
    return [{ ...s, Resource: resources, ...(condition ? { Condition: condition } : {}) }];
  });
  return { Version: '2012-10-17', Statement: statements };
}
