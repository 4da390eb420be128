// Where a replayed delivery goes: the processor sends it again to every destination whose filter matches
// its provider and event type (core/destinations/filter.ts), as it did the first time. A replay forgets
// that the delivery was forwarded, so the destinations that had it get it again.
import type { Config } from '../../config';
import { destinationsFor } from '../../lambdas/core/destinations/filter';
import type { InboxRecord } from '../../lambdas/core/inbox';

/** The destination ids, in the config's order; `handlers` is the inbox's own typed handlers. */
export function replayDestinations(
  config: Pick<Config, 'destinations'>,
  record: Pick<InboxRecord, 'provider' | 'eventType'>,
): string[] {
  return destinationsFor(config, record.provider, record.eventType ?? '').map((d) => d.id);
}
