// The inbox table's one listing index, shared by the CDK stack, local mode and the adapters, and the keys a
// record carries in it. One global secondary index, overloaded, rather than one per question: CloudFormation
// adds or deletes a single GSI per stack update, so a second index would fail `cdk deploy` on every stack
// deployed before it. Light on purpose: the verify Lambda's claim writes these keys on its hot path.
//
// A record's `listKey` is its home partition, `<provider>#<shard>`, while it needs no attention, and
// `<provider>#<status>#<shard>` while it is failed or dead-lettered: listing those reads only them. The sort
// key `listSort` is `<receivedAt>#<pk>`, unique, so a cursor is one string and ties cannot reorder. Only
// the transitions into and out of an attention state change `listKey`; the projection holds `deliveryId`,
// which never changes, so every other write leaves the index alone (docs/listing.md).
import type { InboxRecord, InboxStatus } from '../lambdas/core/inbox';

export const LIST_INDEX = {
  name: 'list-by-time',
  partitionKey: 'listKey',
  sortKey: 'listSort',
  /** Projected besides the keys: set at the claim and never changed. */
  nonKeyAttributes: ['deliveryId'],
} as const;

/**
 * Partitions per provider (and per attention status). A GSI partition takes about 1,000 writes a second
 * and `receivedAt` only grows, so a split cannot spread one key's writes: 4 shards hold about 4,000
 * deliveries a second per provider. Fixed: records keep the shard they were written with.
 */
export const LIST_SHARDS = 4;

export const ATTENTION_STATUSES = ['failed', 'dead-lettered'] as const;
export type AttentionStatus = (typeof ATTENTION_STATUSES)[number];

export function isAttention(status: InboxStatus | undefined): status is AttentionStatus {
  return status === 'failed' || status === 'dead-lettered';
}

/** FNV-1a over the table key: the same record always lands in the same shard. */
export function listShard(pk: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < pk.length; i++) {
    hash ^= pk.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return (hash >>> 0) % LIST_SHARDS;
}

/** Provider ids never contain `#` (PROVIDER_ID_PATTERN), so the table key's first part is the provider. */
function providerOfKey(pk: string): string {
  return pk.slice(0, pk.indexOf('#'));
}

export function homePartition(provider: string, shard: number): string {
  return `${provider}#${shard}`;
}

export function attentionPartition(provider: string, status: AttentionStatus, shard: number): string {
  return `${provider}#${status}#${shard}`;
}

/** The `listKey` a record with this table key has in this status. */
export function listKeyOf(pk: string, status?: InboxStatus): string {
  const shard = listShard(pk);
  return isAttention(status)
    ? attentionPartition(providerOfKey(pk), status, shard)
    : homePartition(providerOfKey(pk), shard);
}

export function listSortOf(receivedAt: string, pk: string): string {
  return `${receivedAt}#${pk}`;
}

/** The index attributes a whole record is written with (the claim's put). */
export function listAttributes(record: Pick<InboxRecord, 'pk' | 'receivedAt' | 'status'>) {
  return {
    [LIST_INDEX.partitionKey]: listKeyOf(record.pk, record.status),
    [LIST_INDEX.sortKey]: listSortOf(record.receivedAt, record.pk),
  };
}

/** Kept off InboxRecord: they are where the record sits in the index, not facts about the delivery. */
export const LIST_ATTRIBUTE_NAMES: ReadonlySet<string> = new Set([
  LIST_INDEX.partitionKey,
  LIST_INDEX.sortKey,
]);
