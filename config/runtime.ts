// What the Lambdas read from their environment: the resolved config and the resource names. The CDK
// construct writes these variables; local mode passes the same values in-process.
import { type Config, ConfigError, parseConfig } from './index';

export const ENV = {
  config: 'WEBHOOK_INBOX_CONFIG',
  table: 'INBOX_TABLE_NAME',
  queueUrl: 'QUEUE_URL',
  dlqUrl: 'DLQ_URL',
  bucket: 'PAYLOAD_BUCKET_NAME',
  /** JSON map of provider id to Secrets Manager secret ARN. */
  secretArns: 'PROVIDER_SECRET_ARNS',
} as const;

export interface Runtime {
  config: Config;
  tableName: string;
  queueUrl: string;
  dlqUrl: string;
  bucketName: string;
  secretArns: Record<string, string>;
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
    config: parseConfig(json(env, ENV.config)),
    tableName: required(env, ENV.table),
    queueUrl: required(env, ENV.queueUrl),
    dlqUrl: required(env, ENV.dlqUrl),
    bucketName: required(env, ENV.bucket),
    secretArns: (env[ENV.secretArns] ? json(env, ENV.secretArns) : {}) as Record<string, string>,
  };
}
