// Local mode's secrets: `.webhook-inbox/secrets.json`, `{"<provider>": ["<newest>", "<older>", ...]}`.
// Created on first start with a random secret per provider in its scheme's format; git-ignored.
import { chmodSync, existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { Config } from '../config';
import { SCHEMES } from '../lambdas/core/schemes';

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
  mkdirSync(dirname(path), { recursive: true });
  const temporary = `${path}.${process.pid}.tmp`;
  writeFileSync(temporary, `${JSON.stringify(secrets, null, 2)}\n`, { mode: 0o600 });
  renameSync(temporary, path);
  chmodSync(path, 0o600);
}

/** Adds a random secret for every configured provider that has none. Returns what was added. */
export function ensureSecrets(path: string, config: Config): { created: string[] } {
  const secrets = readSecretsFile(path);
  const created: string[] = [];
  for (const [id, provider] of Object.entries(config.providers)) {
    if (secrets[id]?.length) continue;
    const scheme = SCHEMES[provider.scheme];
    if (!scheme) continue;
    secrets[id] = [scheme.generateSecret()];
    created.push(id);
  }
  if (created.length > 0 || !existsSync(path)) writeSecretsFile(path, secrets);
  return { created };
}
