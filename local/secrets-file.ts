// Local mode's secrets: `.webhook-inbox/secrets.json`, `{"<provider>": ["<newest>", "<older>", ...]}`.
// Created on first start with a random secret per provider in its scheme's format; git-ignored.
import { chmodSync, existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { Config } from '../config';
import { localDestinationSecretKey } from '../lambdas/core/destinations/forward-state';
import { newDestinationSecret } from '../lambdas/core/destinations/signing';
import { SCHEMES } from '../lambdas/core/schemes';
import {
  makePrivateDir,
  PRIVATE_DIR_MODE,
  PRIVATE_FILE_MODE,
  type Tightened,
  tighten,
} from './private-files';

export const STATE_DIR = '.webhook-inbox';

export function secretsFilePath(cwd: string): string {
  return join(cwd, STATE_DIR, 'secrets.json');
}

export type SecretsFile = Record<string, string[]>;

export function readSecretsFile(path: string): SecretsFile {
  if (!existsSync(path)) return {};
  return JSON.parse(readFileSync(path, 'utf8')) as SecretsFile;
}

/** Written to a temporary file and renamed, so a reader never sees half a file. Owner-only permissions. */
export function writeSecretsFile(path: string, secrets: SecretsFile): void {
  makePrivateDir(dirname(path));
  const temporary = `${path}.${process.pid}.tmp`;
  writeFileSync(temporary, `${JSON.stringify(secrets, null, 2)}\n`, { mode: PRIVATE_FILE_MODE });
  renameSync(temporary, path);
  chmodSync(path, PRIVATE_FILE_MODE);
}

/**
 * Makes the folder and the file owner-only (see private-files.ts), then adds a random secret for every
 * configured provider that has none. Returns what was added and what was tightened; throws
 * LoosePermissionsError if loose permissions cannot be fixed.
 */
export function ensureSecrets(path: string, config: Config): { created: string[]; tightened: Tightened[] } {
  const tightened = [tighten(dirname(path), PRIVATE_DIR_MODE), tighten(path, PRIVATE_FILE_MODE)].filter(
    (each): each is Tightened => each !== undefined,
  );
  const secrets = readSecretsFile(path);
  const created: string[] = [];
  for (const [id, provider] of Object.entries(config.providers)) {
    if (secrets[id]?.length) continue;
    const scheme = SCHEMES[provider.scheme];
    if (!scheme) continue;
    secrets[id] = [scheme.generateSecret()];
    created.push(id);
  }
  // Each http destination's signing secret, beside the providers' (destinations show <id> --reveal).
  for (const destination of Object.values(config.destinations)) {
    const key = localDestinationSecretKey(destination.id);
    if (destination.type !== 'http' || secrets[key]?.length) continue;
    secrets[key] = [newDestinationSecret()];
    created.push(key);
  }
  if (created.length > 0 || !existsSync(path)) writeSecretsFile(path, secrets);
  return { created, tightened };
}
