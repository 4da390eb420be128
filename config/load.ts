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
