// When each local secret was last set, beside the secrets file (`secrets-set-at.json`): the secrets file is
// one file for every provider, so its mtime cannot say which provider's secret changed. `endpoints status`
// reads it to tell whether a provider has signed a delivery since its own secret was set. Not a secret,
// but kept owner-only like everything in the folder.
import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { PRIVATE_FILE_MODE } from './private-files';

export function secretTimesPath(secretsFile: string): string {
  return join(dirname(secretsFile), 'secrets-set-at.json');
}

/** Epoch milliseconds by secrets-file key; an unreadable file reads as empty (the times are a hint). */
export function readSecretTimes(secretsFile: string): Record<string, number> {
  const path = secretTimesPath(secretsFile);
  if (!existsSync(path)) return {};
  try {
    return JSON.parse(readFileSync(path, 'utf8')) as Record<string, number>;
  } catch {
    return {};
  }
}

export function recordSecretSet(secretsFile: string, key: string, atMs: number): void {
  const path = secretTimesPath(secretsFile);
  const times = { ...readSecretTimes(secretsFile), [key]: atMs };
  const temporary = `${path}.${process.pid}.tmp`;
  writeFileSync(temporary, `${JSON.stringify(times, null, 2)}\n`, { mode: PRIVATE_FILE_MODE });
  renameSync(temporary, path);
}
