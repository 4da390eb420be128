// What the Lambdas read from their environment: the resolved config (see lambda-config.ts) and the
// resource names. The CDK construct writes these variables; local mode passes the same values in-process.
// Nothing here imports the config schema: it stays out of the Lambda bundles.
import { ConfigError } from './errors';
import type { Config } from './index';
import { decodeLambdaConfig } from './lambda-config';

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
  /** JSON map of destination id to its resources (DestinationResources), for the processor and forwarder. */
  destinations: 'DESTINATION_RESOURCES',
} as const;

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

export function runtimeFromEnv(env: Record<string, string | undefined> = process.env): Runtime {
  return {
    config: decodeLambdaConfig(required(env, ENV.config), ENV.config),
    tableName: required(env, ENV.table),
    queueUrl: required(env, ENV.queueUrl),
    dlqUrl: required(env, ENV.dlqUrl),
    bucketName: required(env, ENV.bucket),
    bucketUrl: env[ENV.bucketUrl] ?? '',
    secretArns: (env[ENV.secretArns] ? json(env, ENV.secretArns) : {}) as Record<string, string>,
    destinations: (env[ENV.destinations] ? json(env, ENV.destinations) : {}) as Record<
      string,
      DestinationResources
    >,
  };
}
