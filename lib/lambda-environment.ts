// The environment the construct writes for the Lambdas. Lambda caps a function's environment at 4 KB (names
// plus values), and the fully resolved config of the default eleven providers is 2.4 KB before the secret
// ARN map is added, so the config travels in its shortest form: every key that `parseConfig` would fill in
// with the same value is dropped. The Lambda parses it with the same schema it was bundled with, so the
// result is the same config; `compactConfigJson` proves that round trip at synth time.
import { isDeepStrictEqual } from 'node:util';
import { Token } from 'aws-cdk-lib';
import { type Config, ConfigError, parseConfig, toConfigInput } from '../config/index';

/** Lambda's limit on the total size of a function's environment variables. */
export const LAMBDA_ENVIRONMENT_LIMIT_BYTES = 4096;

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

function isPlainObject(value: Json | undefined): value is { [key: string]: Json } {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Removes, depth first, each object key whose absence `parseConfig` fills back in unchanged. */
function dropDefaults(node: { [key: string]: Json }, same: () => boolean): void {
  for (const key of Object.keys(node)) {
    const value = node[key] as Json;
    delete node[key];
    if (same()) continue;
    node[key] = value;
    if (isPlainObject(value)) dropDefaults(value, same);
  }
}

/**
 * The config as the shortest JSON input that parses back to the same resolved config.
 * @throws ConfigError if the round trip does not hold (a bug in the config module, not in user input)
 */
export function compactConfigJson(config: Config): string {
  const baseline = parseConfig(toConfigInput(config));
  const input = JSON.parse(JSON.stringify(toConfigInput(config))) as { [key: string]: Json };
  const parsesToBaseline = () => {
    try {
      return isDeepStrictEqual(parseConfig(input), baseline);
    } catch {
      return false;
    }
  };
  dropDefaults(input, parsesToBaseline);
  const json = JSON.stringify(input);
  if (!isDeepStrictEqual(parseConfig(JSON.parse(json)), baseline)) {
    throw new ConfigError('webhookInbox: the compacted config does not parse back to the same config');
  }
  return json;
}

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
