// Provider secrets from Secrets Manager: AWSCURRENT, then AWSPREVIOUS while a rotation is under way, cached
// per provider. The cache is also the outage plan: a warm Lambda keeps verifying while Secrets Manager is
// down, and a forced refresh (a bad signature right after a rotation) is rate-limited so a flood of
// forgeries cannot become a flood of GetSecretValue calls.
import {
  GetSecretValueCommand,
  type GetSecretValueCommandOutput,
  type SecretsManagerClient,
} from '@aws-sdk/client-secrets-manager';
import { DependencyError } from '../core/errors';
import { type Clock, type SecretSource, systemClock } from '../core/ports';
import { isAwsError } from './dependency-call';

export interface SecretsManagerSourceOptions {
  clock?: Clock;
  /** How long fetched secrets are used before the next look. @default 300 */
  cacheSeconds?: number;
  /** The least time between two fetches for one provider, forced refreshes included. @default 10 */
  minRefreshIntervalSeconds?: number;
}

interface CacheEntry {
  secrets: readonly string[];
  /** When these secrets were fetched. */
  fetchedAt: number;
  /** When Secrets Manager was last asked, and whether that failed. */
  triedAt: number;
  failed: boolean;
}

export class SecretsManagerSource implements SecretSource {
  private readonly cache = new Map<string, CacheEntry>();
  /** Concurrent requests for one provider share one fetch (local mode serves requests concurrently). */
  private readonly pending = new Map<string, Promise<readonly string[]>>();
  private readonly clock: Clock;
  private readonly cacheMs: number;
  private readonly minRefreshMs: number;

  constructor(
    private readonly client: SecretsManagerClient,
    /** Provider id to secret ARN (or name). */
    private readonly secretIds: Readonly<Record<string, string>>,
    options: SecretsManagerSourceOptions = {},
  ) {
    this.clock = options.clock ?? systemClock;
    this.cacheMs = (options.cacheSeconds ?? 300) * 1000;
    this.minRefreshMs = (options.minRefreshIntervalSeconds ?? 10) * 1000;
  }

  async get(provider: string, options: { refresh?: boolean } = {}): Promise<readonly string[]> {
    const secretId = Object.hasOwn(this.secretIds, provider) ? this.secretIds[provider] : undefined;
    if (!secretId) return [];
    const now = this.clock.now();
    const entry = this.cache.get(provider);
    if (entry) {
      const fresh = now - entry.fetchedAt < this.cacheMs;
      const askedRecently = now - entry.triedAt < this.minRefreshMs;
      // After a failed fetch the stale entry is served for a while rather than retried on every request.
      const failedRecently = askedRecently && entry.failed;
      if ((fresh && !options.refresh) || (askedRecently && options.refresh) || failedRecently) {
        return entry.secrets;
      }
    }
    let fetching = this.pending.get(provider);
    if (!fetching) {
      fetching = this.fetch(provider, secretId, now).finally(() => this.pending.delete(provider));
      this.pending.set(provider, fetching);
    }
    return fetching;
  }

  private async fetch(provider: string, secretId: string, now: number): Promise<readonly string[]> {
    try {
      const [current, previous] = await Promise.all([
        this.version(secretId, 'AWSCURRENT'),
        this.version(secretId, 'AWSPREVIOUS'),
      ]);
      // No current version means no secret: the caller fails closed. AWSPREVIOUS exists only after a rotation.
      const secrets = current === undefined ? [] : previous === undefined ? [current] : [current, previous];
      this.cache.set(provider, { secrets, fetchedAt: now, triedAt: now, failed: false });
      return secrets;
    } catch (error) {
      const stale = this.cache.get(provider);
      if (stale) {
        stale.triedAt = now;
        stale.failed = true;
        return stale.secrets;
      }
      throw new DependencyError('secrets', 'GetSecretValue', { cause: error });
    }
  }

  /** The secret text of one staging label, or undefined if that version does not exist. */
  private async version(secretId: string, stage: SecretStage): Promise<string | undefined> {
    const output = await getSecretStage(this.client, secretId, stage);
    // A binary-only secret has no text: '' makes the scheme fail closed instead of skipping the version.
    return output && (output.SecretString ?? '');
  }
}

/** AWSCURRENT is the version in use; AWSPREVIOUS exists only after a rotation, until the next one. */
export type SecretStage = 'AWSCURRENT' | 'AWSPREVIOUS';

/**
 * One staging label's version, or undefined if there is none (no rotation yet for AWSPREVIOUS, or no such
 * secret). Any other failure is thrown as the SDK's: each caller decides what a failure means to it.
 */
export async function getSecretStage(
  client: SecretsManagerClient,
  secretId: string,
  stage: SecretStage,
): Promise<GetSecretValueCommandOutput | undefined> {
  try {
    return await client.send(new GetSecretValueCommand({ SecretId: secretId, VersionStage: stage }));
  } catch (error) {
    if (isAwsError(error, 'ResourceNotFoundException')) return undefined;
    throw error;
  }
}
