// How the resolved config travels to the Lambdas: gzip + base64 of its JSON, in one environment variable.
// The construct resolves and validates it at synth time with the one schema (config/schema.ts); the Lambda
// only decodes it. Re-parsing at cold start would put the schema library in the verify bundle (25 KiB of
// its cold start, see `npm run bench`), and the environment cannot carry the unresolved input instead
// (defaults filled in at runtime) without the same library. gzip keeps the eleven default providers at
// about 760 bytes against Lambda's 4 KB environment limit.
import { isDeepStrictEqual } from 'node:util';
import { gunzipSync, gzipSync } from 'node:zlib';
import { ConfigError } from './errors';
import type { Config } from './index';

/** Bumped if Config's shape changes incompatibly: a Lambda never decodes a config it was not built for. */
const FORMAT = 1;

interface Encoded {
  format: number;
  config: Config;
}

/** The config as JSON will give it back: keys holding `undefined` (absent options) are simply absent. */
function withoutUndefined(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutUndefined);
  if (typeof value !== 'object' || value === null) return value;
  return Object.fromEntries(
    Object.entries(value)
      .filter(([, v]) => v !== undefined)
      .map(([k, v]) => [k, withoutUndefined(v)]),
  );
}

/**
 * The environment value for a resolved config.
 * @throws ConfigError if the config does not survive a JSON round trip (a bug, not user input)
 */
export function encodeLambdaConfig(config: Config): string {
  const value = gzipSync(JSON.stringify({ format: FORMAT, config } satisfies Encoded), { level: 9 }).toString(
    'base64',
  );
  // Anything JSON would change (a number that is not finite, a Date, a RegExp) fails here, at synth.
  if (!isDeepStrictEqual(decodeLambdaConfig(value), withoutUndefined(config))) {
    throw new ConfigError('webhookInbox: the config does not survive its JSON encoding for the Lambdas');
  }
  return value;
}

/** @throws ConfigError naming what is wrong (never echoing the value) */
export function decodeLambdaConfig(value: string, name = 'WEBHOOK_INBOX_CONFIG'): Config {
  let decoded: Partial<Encoded>;
  try {
    decoded = JSON.parse(gunzipSync(Buffer.from(value, 'base64')).toString('utf8')) as Partial<Encoded>;
  } catch {
    throw new ConfigError(`environment variable ${name} is not a gzip+base64 JSON config`);
  }
  if (decoded?.format !== FORMAT) {
    throw new ConfigError(
      `environment variable ${name} has config format ${String(decoded?.format)}; this code reads format ${FORMAT} (redeploy the stack)`,
    );
  }
  const config = decoded.config;
  if (typeof config !== 'object' || config === null || typeof config.providers !== 'object') {
    throw new ConfigError(`environment variable ${name} holds no providers`);
  }
  return config;
}
