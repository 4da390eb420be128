// The size of the environment the construct writes for the Lambdas. Lambda caps a function's environment at
// 4 KB (names plus values); the config travels compressed (config/lambda-config.ts), but a stack with many
// providers and long resource names can still come near the limit, so synth warns before a deploy fails.
import { Token } from 'aws-cdk-lib';

/** Lambda's limit on the total size of a function's environment variables. */
export const LAMBDA_ENVIRONMENT_LIMIT_BYTES = 4096;

/**
 * An upper bound for a value CloudFormation fills in at deploy time (a queue URL, a table or bucket name).
 * Generous, so the estimate errs on the side of warning.
 */
export const UNRESOLVED_VALUE_BYTES = 160;

/**
 * The environment's size as Lambda counts it (names plus values). Values only known at deploy time count
 * as `unresolvedBytes[name]`, or `UNRESOLVED_VALUE_BYTES` when not given.
 */
export function estimateEnvironmentBytes(
  environment: Record<string, string>,
  unresolvedBytes: Record<string, number> = {},
): number {
  let total = 0;
  for (const [name, value] of Object.entries(environment)) {
    total += Buffer.byteLength(name);
    total += Token.isUnresolved(value)
      ? (unresolvedBytes[name] ?? UNRESOLVED_VALUE_BYTES)
      : Buffer.byteLength(value);
  }
  return total;
}

/** A Secrets Manager ARN as CloudFormation reports it: the longest a secret ARN in our maps gets. */
export const SECRET_ARN_BYTES_UPPER_BOUND = 140;

/**
 * The longest values of the pseudo parameters in an ARN (today `us-isof-south-1` and `aws-us-gov`), with
 * room to spare, and an account id.
 */
const REGION_BYTES = 20;
const PARTITION_BYTES = 12;
const ACCOUNT_BYTES = 12;

/** An upper bound for `arn:<partition>:<service>:<region>:<account>:<resource>` built by CloudFormation. */
export function arnBytesUpperBound(service: string, resource: string): number {
  return `arn::${service}:::${resource}`.length + PARTITION_BYTES + REGION_BYTES + ACCOUNT_BYTES;
}

/** The application log levels the construct accepts (`logLevel`), lowest first. */
export const APPLICATION_LOG_LEVELS = ['DEBUG', 'INFO', 'WARN', 'ERROR'] as const;
export type ApplicationLogLevelName = (typeof APPLICATION_LOG_LEVELS)[number];

/**
 * Lambda's own application log-level filter for a function whose code logs at `logLevel`: never above INFO.
 * The metrics are EMF documents on stdout without a `level` key, and Lambda's filter counts a line without
 * one as INFO: a WARN or ERROR filter would drop every metric, and the alarms on them would see nothing.
 * So Lambda's filter stays at INFO (DEBUG when asked for), and the stricter levels are applied by the
 * code's own logger (POWERTOOLS_LOG_LEVEL), which drops its INFO lines but never a metric.
 */
export function lambdaApplicationLogLevel(logLevel: ApplicationLogLevelName): 'DEBUG' | 'INFO' {
  return logLevel === 'DEBUG' ? 'DEBUG' : 'INFO';
}

/** Lambda's application log levels, least severe first. */
const LAMBDA_LEVELS = ['TRACE', 'DEBUG', 'INFO', 'WARN', 'ERROR', 'FATAL'] as const;

/**
 * Whether Lambda sends a line written to stdout to CloudWatch Logs, under the JSON log format and
 * application log level `threshold`. A model of Lambda's documented rule ("Log-level filtering", Lambda
 * developer guide): a JSON object's `level` value gives its level; "If the level value field is invalid or
 * missing, Lambda will assign the log output the level INFO", and a line that is not a JSON object counts
 * as INFO too; Lambda sends the lines at the configured level and the more severe ones.
 */
export function passesLambdaLogFilter(line: string, threshold: (typeof LAMBDA_LEVELS)[number]): boolean {
  let level: string | undefined;
  try {
    const parsed: unknown = JSON.parse(line);
    if (parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed)) {
      const value = (parsed as Record<string, unknown>).level;
      if (typeof value === 'string') level = value.toUpperCase();
    }
  } catch {
    // Not JSON: INFO, as below.
  }
  const index = LAMBDA_LEVELS.indexOf(level as (typeof LAMBDA_LEVELS)[number]);
  const severity = index === -1 ? LAMBDA_LEVELS.indexOf('INFO') : index;
  return severity >= LAMBDA_LEVELS.indexOf(threshold);
}
