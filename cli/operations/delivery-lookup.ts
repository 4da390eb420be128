// Which delivery `deliveries show <provider> <key>` means: the whole dedup key, or a prefix of it (as
// `deliveries list` shortens long keys with an ellipsis), or the provider's delivery id, looked up in the
// listing index rather than by reading the table. The index is eventually consistent, but the records it
// names come back read consistently from the table (dynamo-inbox-listing.ts): a replay by prefix judges the
// table's record; only a delivery received in the last second or two may not be found yet.
import { MIN_KEY_PREFIX } from '../../lambdas/adapters/dynamo-inbox-listing';
import { type InboxRecord, isExpired } from '../../lambdas/core/inbox';

/** How many matches an ambiguous prefix lists. */
export const AMBIGUOUS_SHOWN = 10;

export type Lookup =
  | { kind: 'found'; record: InboxRecord }
  | { kind: 'not_found' }
  /**
   * The whole key names a record whose lifetime is over (core/inbox.ts isExpired): gone for an operator,
   * though DynamoDB's TTL has not deleted it yet. Its epoch-seconds `expiresAt`.
   */
  | { kind: 'expired'; expiresAt: number }
  /** Not a whole key, and too short to be looked up as a prefix. */
  | { kind: 'too_short'; length: number; minimum: number }
  /** The first AMBIGUOUS_SHOWN matches, newest first; `more` when there are others. */
  | { kind: 'ambiguous'; matches: InboxRecord[]; more: boolean };

export interface LookupInbox {
  get(pk: string): Promise<InboxRecord | undefined>;
  findByPrefix(provider: string, prefix: string, limit: number): Promise<InboxRecord[]>;
  findByDeliveryId(deliveryId: string, provider?: string, limit?: number): Promise<InboxRecord[]>;
}

export async function lookUpDelivery(
  inbox: LookupInbox,
  provider: string,
  key: string,
  nowMs = Date.now(),
): Promise<Lookup> {
  const record = await inbox.get(`${provider}#${key}`);
  if (record && isExpired(record, nowMs)) return { kind: 'expired', expiresAt: record.expiresAt };
  if (record) return { kind: 'found', record };
  const prefix = key.replace(/…$/, '');
  if (prefix.length < MIN_KEY_PREFIX) {
    return { kind: 'too_short', length: prefix.length, minimum: MIN_KEY_PREFIX };
  }
  let matches = await inbox.findByPrefix(provider, prefix, AMBIGUOUS_SHOWN + 1);
  // The provider's own delivery id where it differs from the dedup key (GitHub's X-GitHub-Delivery, whose
  // deliveries are keyed by the body's SHA-256): what its dashboard shows.
  if (matches.length === 0) matches = await inbox.findByDeliveryId(prefix, provider, AMBIGUOUS_SHOWN + 1);
  const [only] = matches;
  if (matches.length === 1 && only) return { kind: 'found', record: only };
  if (matches.length === 0) return { kind: 'not_found' };
  return {
    kind: 'ambiguous',
    matches: matches.slice(0, AMBIGUOUS_SHOWN),
    more: matches.length > AMBIGUOUS_SHOWN,
  };
}
