// Reads the `webhookInbox` context from cdk.json for local mode and the CLI (the CDK app gets the same
// value through `node.tryGetContext`).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { CONTEXT_KEY, type Config, ConfigError, parseConfig } from './index';

export function loadProjectConfig(dir = process.cwd()): Config {
  const file = join(dir, 'cdk.json');
  let cdkJson: { context?: Record<string, unknown> };
  try {
    cdkJson = JSON.parse(readFileSync(file, 'utf8'));
  } catch (error) {
    throw new ConfigError(`cannot read ${file}: ${(error as Error).message}`);
  }
  return parseConfig(cdkJson.context?.[CONTEXT_KEY]);
}

/** Local mode's port: `--port` wins, then PORT, then 3000. */
export function localPort(
  flag: string | undefined,
  env: Record<string, string | undefined> = process.env,
): number {
  const text = flag ?? env.PORT ?? '3000';
  const port = Number(text);
  if (!/^\d{1,5}$/.test(text) || port > 65_535) throw new ConfigError(`port: not a TCP port: ${text}`);
  return port;
}

/**
 * The directory the user ran the command from. `npm start` changes into the package root but keeps the
 * caller's directory in INIT_CWD, so `.webhook-inbox/` and cdk.json are looked up where the user is.
 */
export function projectDir(env: Record<string, string | undefined> = process.env): string {
  return env.INIT_CWD ?? process.cwd();
}
