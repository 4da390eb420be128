// Local mode's secrets: `.webhook-inbox/secrets.json`, `{"<provider>": ["<newest>", "<older>", ...]}`. The
// file is read again whenever it changes, so `webhook-inbox secrets rotate` takes effect on the next request
// without restarting `npm start`.
import { statSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { DependencyError } from '../core/errors';
import type { SecretSource } from '../core/ports';

type SecretsFile = Record<string, readonly string[]>;

function isSecretsFile(value: unknown): value is SecretsFile {
  return (
    typeof value === 'object' &&
    value !== null &&
    !Array.isArray(value) &&
    Object.values(value).every((list) => Array.isArray(list) && list.every((s) => typeof s === 'string'))
  );
}

export class LocalFileSecretSource implements SecretSource {
  /**
   * What identifies the version read: a rewrite in place changes mtime or size, a rename the inode. Two
   * same-size rewrites within one file-system timestamp tick look alike; the verify pipeline's refresh
   * after a bad signature catches that case.
   */
  private version: string | undefined;
  private secrets: SecretsFile = {};

  constructor(private readonly path: string) {}

  /** `refresh` re-reads even an unchanged-looking file (see `version`): it is cheap and local only. */
  async get(provider: string, options: { refresh?: boolean } = {}): Promise<readonly string[]> {
    await this.load(options.refresh ?? false);
    return Object.hasOwn(this.secrets, provider) ? (this.secrets[provider] ?? []) : [];
  }

  private async load(force: boolean): Promise<void> {
    let version: string;
    try {
      // Synchronous on purpose: a stat of a local file costs microseconds, while the async one is a round
      // trip through libuv's thread pool, which on a busy event loop waits a whole loop turn: one more wait
      // per request than the raw calls `npm run bench` compares the handler with. (The gain is smaller than
      // that bench's run-to-run spread, so it is not measured separately.)
      const info = statSync(this.path, { bigint: true });
      version = `${info.ino}:${info.mtimeNs}:${info.size}`;
    } catch (error) {
      // No file, no secrets: every provider fails closed until `npm start` or `secrets rotate` writes one.
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') {
        this.version = undefined;
        this.secrets = {};
        return;
      }
      throw new DependencyError('secrets', 'ReadSecretsFile', { cause: error });
    }
    if (version === this.version && !force) return;
    let parsed: unknown;
    try {
      parsed = JSON.parse(await readFile(this.path, 'utf8'));
    } catch (error) {
      // Quoting the parse error could quote the file, and the file is secrets.
      throw new DependencyError('secrets', 'ReadSecretsFile', {
        cause: new Error(`${this.path} could not be read as JSON (${(error as Error).name})`),
      });
    }
    if (!isSecretsFile(parsed)) {
      throw new DependencyError('secrets', 'ReadSecretsFile', {
        cause: new Error(`${this.path} must map each provider to a list of secrets`),
      });
    }
    this.secrets = parsed;
    this.version = version;
  }
}
