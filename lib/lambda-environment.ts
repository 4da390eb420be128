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
