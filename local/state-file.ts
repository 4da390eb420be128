// `.webhook-inbox/local.json`: where the running local instance is, so the CLI and tests can find it.
// Written once the instance is ready, removed on shutdown.
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { DestinationResources } from '../config/runtime';
import { makePrivateDir } from './private-files';
import type { ProvisionedResources } from './resources';
import { STATE_DIR } from './secrets-file';

export interface LocalState extends ProvisionedResources {
  pid: number;
  gatewayUrl: string;
  region: string;
  endpoints: { dynamodb: string; sqs: string; s3: string };
  secretsFile: string;
  /** Each forward destination's queues (and stand-ins), by destination id. */
  destinations?: Record<string, DestinationResources>;
  /** `dev --forward-to` URLs: destinations of this instance that cdk.json does not have. */
  forwardTo?: string[];
  startedAt: string;
}

export function stateFilePath(cwd: string): string {
  return join(cwd, STATE_DIR, 'local.json');
}

export function writeLocalState(cwd: string, state: LocalState): void {
  makePrivateDir(join(cwd, STATE_DIR));
  writeFileSync(stateFilePath(cwd), `${JSON.stringify(state, null, 2)}\n`);
}

export function readLocalState(cwd: string): LocalState | undefined {
  const path = stateFilePath(cwd);
  if (!existsSync(path)) return undefined;
  return JSON.parse(readFileSync(path, 'utf8')) as LocalState;
}

export function removeLocalState(cwd: string, pid = process.pid): void {
  // Only our own: a second instance that failed to start must not delete the running one's file.
  if (readLocalState(cwd)?.pid === pid) rmSync(stateFilePath(cwd), { force: true });
}
