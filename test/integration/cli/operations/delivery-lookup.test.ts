// `deliveries show`'s key lookup against dynalite: the whole key, a unique prefix (with the ellipsis
// `deliveries list` prints), the provider's delivery id, a prefix too short to look up, and an ambiguous one,
// whose matches are listed.
import { beforeAll, describe, expect, it } from 'vitest';
import { AMBIGUOUS_SHOWN, lookUpDelivery } from '../../../../cli/operations/delivery-lookup';
import { DynamoInbox } from '../../../../lambdas/adapters/dynamo-inbox';
import { useEmulators } from '../../../support/emulators';
import { inboxRecord, writeRecords } from '../../../support/inbox-records';

const env = useEmulators();
const T0 = Date.UTC(2026, 0, 15, 12, 0, 0);
/** Before the lookups' clock: expired, and not deleted (dynalite runs no TTL, as DynamoDB may not yet). */
const EXPIRED = Math.floor(T0 / 1000) + 60;
let inbox: DynamoInbox;

beforeAll(async () => {
  const { tableName } = await env.provision();
  inbox = new DynamoInbox(env.clients.dynamodb, tableName, { providers: ['github', 'stripe'] });
  await writeRecords(env.clients.dynamodb, tableName, [
    inboxRecord({ provider: 'github', dedupKey: 'unique-0123456789', receivedMs: T0, status: 'processed' }),
    // The same prefix under another provider does not make it ambiguous.
    inboxRecord({ provider: 'stripe', dedupKey: 'unique-0123456789-b', receivedMs: T0, status: 'processed' }),
    ...Array.from({ length: AMBIGUOUS_SHOWN + 2 }, (_, i) =>
      inboxRecord({ provider: 'github', dedupKey: `shared-${i}`, receivedMs: T0 + i, status: 'failed' }),
    ),
    inboxRecord({ provider: 'github', dedupKey: 'pair-aa-1', receivedMs: T0, status: 'processed' }),
    inboxRecord({ provider: 'github', dedupKey: 'pair-aa-2', receivedMs: T0 + 1, status: 'dead-lettered' }),
    inboxRecord({ provider: 'github', dedupKey: 'abc', receivedMs: T0, status: 'processed' }),
    // GitHub keys a delivery by the body's digest; its dashboard shows the X-GitHub-Delivery id.
    inboxRecord({
      provider: 'github',
      dedupKey: 'f00d'.repeat(16),
      deliveryId: '39d59e5a-8d3c-11ef-9a4b-2f1c6b0e7d11',
      receivedMs: T0,
      status: 'processed',
    }),
    {
      ...inboxRecord({ provider: 'github', dedupKey: 'gone-0123', receivedMs: T0, status: 'processed' }),
      expiresAt: EXPIRED,
    },
  ]);
});

describe('lookUpDelivery', () => {
  it('finds the whole key, even one shorter than a prefix may be', async () => {
    expect(await lookUpDelivery(inbox, 'github', 'abc')).toMatchObject({
      kind: 'found',
      record: { dedupKey: 'abc' },
    });
  });

  it('finds a unique prefix, with or without the ellipsis of a shortened key', async () => {
    for (const key of ['unique-01', 'unique-0123…']) {
      expect(await lookUpDelivery(inbox, 'github', key)).toMatchObject({
        kind: 'found',
        record: { pk: 'github#unique-0123456789' },
      });
    }
  });

  it("finds a delivery by the provider's delivery id when no key starts with it", async () => {
    expect(await lookUpDelivery(inbox, 'github', '39d59e5a-8d3c-11ef-9a4b-2f1c6b0e7d11')).toMatchObject({
      kind: 'found',
      record: { dedupKey: 'f00d'.repeat(16) },
    });
  });

  it('says a prefix is too short, with the minimum', async () => {
    // One short of the minimum, the ellipsis not counted.
    expect(await lookUpDelivery(inbox, 'github', 'uniqu…')).toEqual({
      kind: 'too_short',
      length: 5,
      minimum: 6,
    });
  });

  it('lists the matches of an ambiguous prefix, newest first, and says when there are more', async () => {
    // Exactly the minimum is looked up.
    const pair = await lookUpDelivery(inbox, 'github', 'pair-a');
    expect(pair).toMatchObject({ kind: 'ambiguous', more: false });
    expect(pair.kind === 'ambiguous' && pair.matches.map((r) => [r.dedupKey, r.status])).toEqual([
      ['pair-aa-2', 'dead-lettered'],
      ['pair-aa-1', 'processed'],
    ]);
    const many = await lookUpDelivery(inbox, 'github', 'shared-');
    expect(many).toMatchObject({ kind: 'ambiguous', more: true });
    expect(many.kind === 'ambiguous' && many.matches).toHaveLength(AMBIGUOUS_SHOWN);
  });

  it('finds nothing for a prefix no key has', async () => {
    expect(await lookUpDelivery(inbox, 'github', 'nothing-here')).toEqual({ kind: 'not_found' });
  });

  it('says an expired record is gone, though DynamoDB still returns it, and finds no prefix of it', async () => {
    const later = T0 + 61_000;
    expect(await lookUpDelivery(inbox, 'github', 'gone-0123', later)).toEqual({
      kind: 'expired',
      expiresAt: EXPIRED,
    });
    expect((await inbox.get('github#gone-0123'))?.dedupKey).toBe('gone-0123');
    expect(await lookUpDelivery(inbox, 'github', 'gone-0', later)).toEqual({ kind: 'not_found' });
    // Until then, it is a delivery like any other.
    expect(await lookUpDelivery(inbox, 'github', 'gone-0123', T0)).toMatchObject({ kind: 'found' });
  });
});
