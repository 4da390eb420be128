// How long the main queue keeps a message and how long an inbox record lives, from the retry schedule.
// Apart from resources.ts, which imports the config schema: the verify Lambda needs the record TTL on its
// hot path, and the schema library would cost its cold start (see `npm run bench`, cold-start).
import { retryHorizon } from '../lambdas/core/retry-schedule';
import type { Config } from './index';
import { MIN_QUEUE_RETENTION_SECONDS, RETENTION_MARGIN_SECONDS, SQS_MAX_RETENTION_SECONDS } from './limits';

/**
 * The main queue keeps a message for the whole retry horizon plus a day, and at least 4 days. parseConfig
 * refuses a schedule that would need more than SQS's 14 days.
 */
export function queueRetentionSeconds(config: Config): number {
  const needed = retryHorizon(config.queue.retrySchedule).maxSeconds + RETENTION_MARGIN_SECONDS;
  return Math.min(
    SQS_MAX_RETENTION_SECONDS,
    Math.max(MIN_QUEUE_RETENTION_SECONDS, Math.ceil(needed / 3600) * 3600),
  );
}

export interface RecordLifetimes {
  /**
   * The dedup window: how long a record refuses the same dedup key as a duplicate. The provider's dedup
   * TTL, but never less than the main queue keeps a message (plus the destinations' retry horizon). A
   * window that closed while its delivery is still being retried would let the provider's retry in as a
   * new delivery (a second effect), or other bytes under the same id in with a 202. The claim condition
   * reads it from the record's `dedupUntil`.
   */
  dedupSeconds: number;
  /**
   * How long the record lives (its TTL, `expiresAt`): the dedup window, or the archive's retention if
   * longer, since the record is what names the archived bytes. Past the dedup window a record that still
   * lives is history only: the same dedup key is claimed as new (see dedupUntil in core/inbox.ts).
   */
  ttlSeconds: number;
}

/** Both lifetimes of a provider's records. Asked on every claim, the verify Lambda's hot path. */
export function recordLifetimes(
  config: Config,
  provider: { dedupTtlSeconds: number } | undefined,
): RecordLifetimes {
  const { window, archive } = floorsOf(config);
  const dedupSeconds = Math.max(provider?.dedupTtlSeconds ?? 7 * 86_400, window);
  return { dedupSeconds, ttlSeconds: Math.max(dedupSeconds, archive) };
}

export function dedupWindowSeconds(
  config: Config,
  provider: { dedupTtlSeconds: number } | undefined,
): number {
  return recordLifetimes(config, provider).dedupSeconds;
}

export function recordTtlSeconds(config: Config, provider: { dedupTtlSeconds: number } | undefined): number {
  return recordLifetimes(config, provider).ttlSeconds;
}

/** How long the archive keeps a delivery's bytes (config `archive.retentionDays`); 0 when it is off. */
export function archiveRetentionSeconds(config: Pick<Config, 'archive'>): number {
  return config.archive.retentionDays * 86_400;
}

/**
 * What every provider's lifetimes are at least, worked out once per config (it never changes under a
 * Lambda): the main queue's retention plus the destinations' horizon, and the archive's retention.
 */
function floorsOf(config: Config): { window: number; archive: number } {
  let floors = floorsByConfig.get(config);
  if (floors === undefined) {
    floors = {
      window: queueRetentionSeconds(config) + longestForwardHorizon(config),
      archive: archiveRetentionSeconds(config),
    };
    floorsByConfig.set(config, floors);
  }
  return floors;
}

const floorsByConfig = new WeakMap<object, { window: number; archive: number }>();

/**
 * How much longer than the main queue a record lives when destinations retry from it: their longest retry
 * horizon and a day, so a copy still being retried finds its history (delivered, or the attempts so far).
 * Not the 14 days a disabled destination may hold a copy, nor a DLQ redrive: that would widen every
 * provider's dedup window by weeks. A copy forwarded after its record is gone is still forwarded, with
 * the same webhook-id, and its history is not kept.
 */
function longestForwardHorizon(config: Pick<Config, 'destinations'>): number {
  let longest = -1;
  for (const destination of Object.values(config.destinations ?? {})) {
    if (destination.type === 'handlers') continue;
    longest = Math.max(longest, retryHorizon(destination.retrySchedule).maxSeconds);
  }
  return longest < 0 ? 0 : longest + RETENTION_MARGIN_SECONDS;
}
