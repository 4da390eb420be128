// What the Lambdas read from their environment: the resolved config (see lambda-config.ts) and the
// resource names. The CDK construct writes these variables; local mode passes the same values in-process.
// Nothing here imports the config schema: it stays out of the Lambda bundles.

import { queueArnFromUrl, queueUrlFromArn } from '../lambdas/core/destinations/sqs-queue-url';
import { ConfigError } from './errors';
import type { Config } from './index';
import { decodeLambdaConfig } from './lambda-config';
import { destinationQueueNames } from './resources';

export const ENV = {
  config: 'WEBHOOK_INBOX_CONFIG',
  table: 'INBOX_TABLE_NAME',
  queueUrl: 'QUEUE_URL',
  dlqUrl: 'DLQ_URL',
  bucket: 'PAYLOAD_BUCKET_NAME',
  /** The bucket's regional virtual-hosted base URL, for the verify Lambda's signed PutObject. */
  bucketUrl: 'PAYLOAD_BUCKET_URL',
  /** JSON map of provider id to Secrets Manager secret ARN. */
  secretArns: 'PROVIDER_SECRET_ARNS',
  /**
   * JSON map of destination id to what of its resources cannot be derived (DestinationEnvironment): an
   * http destination's secret ARN, a created bus's ARN. The queues follow from QUEUE_URL and the id.
   */
  destinations: 'DESTINATION_RESOURCES',
} as const;

/** What DESTINATION_RESOURCES carries per destination: kept small, Lambda's environment holds 4 KB. */
export type DestinationEnvironment = Record<string, Pick<DestinationResources, 'secretArn' | 'busArn'>>;

/**
 * Each forward destination's resources on AWS: its queues named after the inbox queue's (QUEUE_URL) as
 * config/resources.ts names them, a target queue's URL from its ARN, and the rest from the environment.
 */
export function destinationResourcesOf(
  config: Pick<Config, 'destinations'>,
  inboxQueueUrl: string,
  given: DestinationEnvironment,
): Record<string, DestinationResources> {
  const base = inboxQueueUrl.slice(0, inboxQueueUrl.lastIndexOf('/') + 1);
  const inboxQueueName = inboxQueueUrl.slice(base.length);
  const made: Record<string, DestinationResources> = {};
  for (const destination of Object.values(config.destinations)) {
    if (destination.type === 'handlers') continue;
    const { queueName, dlqName } = destinationQueueNames(inboxQueueName, destination.id);
    const extra = Object.hasOwn(given, destination.id) ? given[destination.id] : undefined;
    const busArn = destination.type === 'eventbridge' ? (destination.busArn ?? extra?.busArn) : undefined;
    made[destination.id] = {
      queueUrl: base + queueName,
      queueArn: queueArnFromUrl(base + queueName) ?? '',
      dlqUrl: base + dlqName,
      dlqArn: queueArnFromUrl(base + dlqName) ?? '',
      ...(extra?.secretArn === undefined ? {} : { secretArn: extra.secretArn }),
      ...(busArn === undefined ? {} : { busArn }),
      ...(destination.type === 'sqs' ? { targetQueueUrl: queueUrlFromArn(destination.queueArn) } : {}),
    };
  }
  return made;
}

/** What the stack (or local mode) made for one destination. */
export interface DestinationResources {
  queueUrl: string;
  queueArn: string;
  dlqUrl: string;
  dlqArn: string;
  /** HTTP: the Secrets Manager secret (or, locally, the secrets file key) of its signing secret. */
  secretArn?: string;
  /** EventBridge: the bus's ARN (or, locally, its name). */
  busArn?: string;
  /** SQS: the target queue's URL. */
  targetQueueUrl?: string;
}

export interface Runtime {
  config: Config;
  tableName: string;
  queueUrl: string;
  dlqUrl: string;
  bucketName: string;
  /** Set for the verify Lambda only (see S3PayloadWriter); empty elsewhere. */
  bucketUrl: string;
  secretArns: Record<string, string>;
  destinations: Record<string, DestinationResources>;
}

function required(env: Record<string, string | undefined>, name: string): string {
  const value = env[name];
  if (!value) throw new ConfigError(`environment variable ${name} is not set`);
  return value;
}

function json(env: Record<string, string | undefined>, name: string): unknown {
  try {
    return JSON.parse(required(env, name));
  } catch (error) {
    if (error instanceof ConfigError) throw error;
    throw new ConfigError(`environment variable ${name} is not valid JSON`);
  }
}

/**
 * The resources every Lambda reads, without the destinations' (verify forwards nothing, and its bundle
 * stays without the code that derives them).
 */
export function inboxRuntimeFromEnv(
  env: Record<string, string | undefined> = process.env,
): Omit<Runtime, 'destinations'> {
  return {
    config: decodeLambdaConfig(required(env, ENV.config), ENV.config),
    tableName: required(env, ENV.table),
    queueUrl: required(env, ENV.queueUrl),
    dlqUrl: required(env, ENV.dlqUrl),
    bucketName: required(env, ENV.bucket),
    bucketUrl: env[ENV.bucketUrl] ?? '',
    secretArns: (env[ENV.secretArns] ? json(env, ENV.secretArns) : {}) as Record<string, string>,
  };
}

export function runtimeFromEnv(env: Record<string, string | undefined> = process.env): Runtime {
  const inbox = inboxRuntimeFromEnv(env);
  const given = (env[ENV.destinations] ? json(env, ENV.destinations) : {}) as DestinationEnvironment;
  return { ...inbox, destinations: destinationResourcesOf(inbox.config, inbox.queueUrl, given) };
}
