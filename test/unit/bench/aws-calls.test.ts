// The listing index's write count (bench/lib/aws-calls.ts, indexWrites): DynamoDB's GSI billing rule applied
// to the item after each table write, on records shaped as the inbox writes them (config/list-index.ts).
import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { describe, expect, it } from 'vitest';
import { type IndexShape, indexWrites } from '../../../bench/lib/aws-calls';
import { LIST_INDEX, listKeyOf, listSortOf } from '../../../config/list-index';
import type { InboxStatus } from '../../../lambdas/core/inbox';

const INDEX: IndexShape = { ...LIST_INDEX, tableKeys: ['pk'] };
const PK = 'stripe#evt_1';
const RECEIVED_AT = '2026-12-01T12:00:00.000Z';

type Item = Record<string, AttributeValue>;

/** The record after a write: its status, the listKey that status gives it, and what else changed. */
function record(status: InboxStatus, extra: Item = {}): Item {
  return {
    pk: { S: PK },
    status: { S: status },
    deliveryId: { S: 'd-1' },
    listKey: { S: listKeyOf(PK, status) },
    listSort: { S: listSortOf(RECEIVED_AT, PK) },
    ...extra,
  };
}

describe('indexWrites, the listing index', () => {
  it('costs one write per delivery that is processed: the claim puts the entry, later writes keep its key', () => {
    const writes = [
      record('enqueued'),
      record('processing', { leaseUntil: { N: '1' }, body: { S: 'x'.repeat(3000) } }),
      record('processed', { processedAt: { S: RECEIVED_AT } }),
    ];
    expect(indexWrites(writes, INDEX)).toEqual({ writes: 1, wru: 1 });
  });

  it('costs two writes for each move into, between and out of the attention partitions', () => {
    const writes = [
      record('enqueued'),
      record('processing'),
      record('failed'),
      record('dead-lettered'),
      record('enqueued'),
    ];
    // The claim's put, then a delete and a put for each of the three key changes.
    expect(indexWrites(writes, INDEX)).toEqual({ writes: 7, wru: 7 });
  });

  it('costs one write when only a projected attribute changes, and one when the entry goes', () => {
    const writes = [record('enqueued'), record('enqueued', { deliveryId: { S: 'd-2' } }), undefined];
    expect(indexWrites(writes, INDEX)).toEqual({ writes: 3, wru: 3 });
  });

  it('costs nothing for an item without the index keys (sparse), and a write unit per KB of entry', () => {
    const { listKey: _key, ...unlisted } = record('enqueued');
    expect(indexWrites([unlisted, unlisted], INDEX)).toEqual({ writes: 0, wru: 0 });
    const big = record('enqueued', { deliveryId: { S: 'd'.repeat(1500) } });
    expect(indexWrites([big], INDEX)).toEqual({ writes: 1, wru: 2 });
  });
});
