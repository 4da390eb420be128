// `.webhook-inbox/local.json`: where the running local instance is, so the CLI and tests can find it.
// Written once the instance is ready, removed on shutdown. It holds the emulators' launch credential, so it
// is owner-only, as the secrets are.
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { DestinationResources } from '../config/runtime';
import type { EmulatorCredentials } from './emulators';
import { makePrivateDir, PRIVATE_FILE_MODE, tighten } from './private-files';
import type { ProvisionedResources } from './resources';
import { STATE_DIR } from './secrets-file';

export interface LocalState extends ProvisionedResources {
  pid: number;
  gatewayUrl: string;
  region: string;
  endpoints: { dynamodb: string; sqs: string; s3: string };
  /** The key the emulators' guard lets through for this launch (local/emulators.ts). */
  credentials: EmulatorCredentials;
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
  const path = stateFilePath(cwd);
  // The mode applies to a file this creates; one left by an earlier run is tightened.
  writeFileSync(path, `${JSON.stringify(state, null, 2)}\n`, { mode: PRIVATE_FILE_MODE });
  tighten(path, PRIVATE_FILE_MODE);
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
