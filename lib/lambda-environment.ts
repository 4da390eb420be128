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
