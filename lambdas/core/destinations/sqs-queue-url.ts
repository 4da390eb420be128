// An SQS queue's URL from its ARN, for the stack (the forwarder's DESTINATION_RESOURCES) and the CLI: the
// config names a target queue by ARN, SendMessage wants its URL. Pure.
import { ConfigError } from '../../../config/errors';

const QUEUE_ARN = /^arn:(aws[a-z-]*):sqs:([a-z0-9-]+):(\d{12}):([\w-]{1,80})$/;

/** Each partition's DNS suffix: SQS's endpoint is `sqs.<region>.<suffix>` in all of them. */
const DNS_SUFFIXES: Readonly<Record<string, string>> = {
  aws: 'amazonaws.com',
  'aws-us-gov': 'amazonaws.com',
  'aws-cn': 'amazonaws.com.cn',
  'aws-iso': 'c2s.ic.gov',
  'aws-iso-b': 'sc2s.sgov.gov',
};

/** `https://sqs.<region>.<suffix>/<account>/<name>`. Throws ConfigError for anything else. */
export function queueUrlFromArn(arn: string): string {
  const match = QUEUE_ARN.exec(arn);
  if (!match) throw new ConfigError(`${arn} is not an SQS queue ARN`);
  const [, partition = '', region, account, name] = match;
  const suffix = DNS_SUFFIXES[partition];
  if (suffix === undefined)
    throw new ConfigError(`${arn}: partition ${partition} is not one webhook-inbox knows`);
  return `https://sqs.${region}.${suffix}/${account}/${name}`;
}
