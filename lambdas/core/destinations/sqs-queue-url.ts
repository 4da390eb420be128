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

/**
 * Whether `arn` is an SQS queue ARN in a partition whose endpoint this module knows: what the config schema
 * accepts, so a config that passes validation never makes queueUrlFromArn throw in a Lambda's init.
 */
export function isKnownQueueArn(arn: string): boolean {
  const partition = QUEUE_ARN.exec(arn)?.[1];
  return partition !== undefined && Object.hasOwn(DNS_SUFFIXES, partition);
}

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

const QUEUE_URL = /^https:\/\/sqs\.([a-z0-9-]+)\.([a-z0-9.]+)\/(\d{12})\/([\w-]{1,80})$/;

/**
 * The ARN of a queue URL in the form above (a Lambda's QUEUE_URL, a stack output). Undefined for any other
 * form (an emulator's URL): the caller knows the ARN some other way there.
 */
export function queueArnFromUrl(url: string): string | undefined {
  const match = QUEUE_URL.exec(url);
  if (!match) return undefined;
  const [, region = '', suffix, account, name] = match;
  const partitions = Object.keys(DNS_SUFFIXES).filter((p) => DNS_SUFFIXES[p] === suffix);
  // GovCloud shares the commercial suffix: its regions say which it is.
  const partition =
    partitions.length > 1 ? (region.startsWith('us-gov-') ? 'aws-us-gov' : 'aws') : partitions[0];
  return partition === undefined ? undefined : `arn:${partition}:sqs:${region}:${account}:${name}`;
}
