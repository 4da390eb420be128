// The destinations' items in the inbox table, against dynalite through the real client: each
// destination's state (and the cache that spares the forwarder a read per record), its hourly counts,
// and the per-destination histories on a delivery's record.
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { DynamoDestinationStates } from '../../../lambdas/adapters/dynamo-destination-states';
import { DynamoForwardLog } from '../../../lambdas/adapters/dynamo-forward-log';
import { DynamoInbox } from '../../../lambdas/adapters/dynamo-inbox';
import { HOUR_MS } from '../../../lambdas/core/destinations/forward-state';
import { inboxKey, newClaimRecord } from '../../../lambdas/core/inbox';
import { useEmulators } from '../../support/emulators';

const env = useEmulators();
const T0 = Date.UTC(2026, 11, 1, 9, 30, 0);

/** The client with its GetItem calls counted. */
function countingStates(options: { cacheMs?: number; now?: () => number } = {}) {
  let reads = 0;
  const client = {
    send: (command: { constructor: { name: string } }) => {
      if (command.constructor.name === 'GetItemCommand') reads++;
      return env.clients.dynamodb.send(command as never);
    },
  };
  const states = new DynamoDestinationStates(client as never, env.resources.tableName, {
    cacheMs: options.cacheMs ?? 5_000,
    clock: { now: options.now ?? (() => T0) },
  });
  return { states, reads: () => reads };
}

describe('DynamoDestinationStates', () => {
  it('is enabled until disabled, says why and since when, and is enabled again with the reason gone', async () => {
    const id = `d-${randomUUID().slice(0, 8)}`;
    const { states } = countingStates({ cacheMs: 0 });
    expect(await states.status(id)).toEqual({ enabled: true });
    await states.disable(id, 'http_410', T0);
    expect(await states.status(id)).toEqual({
      enabled: false,
      reason: 'http_410',
      changedAt: new Date(T0).toISOString(),
    });
    await states.enable(id, T0 + 1_000);
    expect(await states.status(id)).toEqual({ enabled: true, changedAt: new Date(T0 + 1_000).toISOString() });
  });

  it('answers a batch of concurrent asks with one read, and a fresh ask reads again', async () => {
    const id = `d-${randomUUID().slice(0, 8)}`;
    const counted = countingStates();
    const answers = await Promise.all(Array.from({ length: 5 }, () => counted.states.status(id)));
    expect(answers.every((a) => a.enabled)).toBe(true);
    expect(counted.reads()).toBe(1);
    await counted.states.status(id);
    expect(counted.reads()).toBe(1);
    // Another container disabled it: the cache hides that, a fresh read does not.
    await new DynamoDestinationStates(env.clients.dynamodb, env.resources.tableName).disable(
      id,
      'http_410',
      T0,
    );
    expect((await counted.states.status(id)).enabled).toBe(true);
    expect((await counted.states.status(id, { fresh: true })).enabled).toBe(false);
    expect(counted.reads()).toBe(2);
  });

  it('adds counts to the hour and sums the last hours, leaving older ones out', async () => {
    const id = `d-${randomUUID().slice(0, 8)}`;
    const { states } = countingStates();
    await states.count(id, { delivered: 3, failed: 1 }, T0);
    await states.count(id, { delivered: 2, failed: 0 }, T0 + 60_000);
    await states.count(id, { delivered: 1, failed: 4 }, T0 - HOUR_MS);
    await states.count(id, { delivered: 100, failed: 100 }, T0 - 30 * HOUR_MS);
    expect(await states.recent(id, 24, T0)).toEqual({ delivered: 6, failed: 5 });
    expect(await states.recent(id, 1, T0)).toEqual({ delivered: 5, failed: 1 });
  });

  it('stays out of the delivery listings: its items have no status', async () => {
    const id = `d-${randomUUID().slice(0, 8)}`;
    const { states } = countingStates();
    await states.disable(id, 'http_410', T0);
    await states.count(id, { delivered: 1, failed: 0 }, T0);
    const inbox = new DynamoInbox(env.clients.dynamodb, env.resources.tableName);
    const listed = await inbox.list({ limit: 1_000 });
    expect(listed.filter((r) => r.pk.startsWith(`destination#${id}`))).toEqual([]);
  });
});

describe('DynamoForwardLog', () => {
  it('keeps each destination history on the delivery record, and writes none for a record that is gone', async () => {
    const inbox = new DynamoInbox(env.clients.dynamodb, env.resources.tableName);
    const log = new DynamoForwardLog(env.clients.dynamodb, env.resources.tableName);
    const dedupKey = `msg_${randomUUID().slice(0, 8)}`;
    const claim = {
      provider: 'github',
      dedupKey,
      payloadSha256: 'a'.repeat(64),
      nowMs: T0,
      leaseSeconds: 30,
      ttlSeconds: 86_400,
      claimToken: 'c1',
    };
    await inbox.claim(claim);
    const pk = inboxKey('github', dedupKey);
    const state = {
      destination: 'orders',
      state: 'retrying' as const,
      attempts: 1,
      webhookId: 'msg_x',
      lastStatus: 503,
    };
    expect(await log.put(pk, state)).toBe('written');
    expect(await log.put(pk, { ...state, destination: 'events', state: 'delivered' })).toBe('written');
    expect(await log.get(pk, 'orders')).toEqual(state);
    expect((await log.get(pk, 'events'))?.state).toBe('delivered');
    expect(await log.get(pk, 'nope')).toBeUndefined();
    // The record itself is untouched by the histories.
    expect(await inbox.get(pk)).toMatchObject({ ...newClaimRecord(claim), status: 'claimed' });
    expect(await log.put(inboxKey('github', 'gone'), state)).toBe('no_record');
    expect(await log.get(inboxKey('github', 'gone'), 'orders')).toBeUndefined();
    // A copy that failed cannot undo another's delivery; a delivery replaces a delivery.
    expect(await log.put(pk, { ...state, destination: 'events', state: 'dead-lettered' })).toBe('delivered');
    expect((await log.get(pk, 'events'))?.state).toBe('delivered');
    expect(await log.put(pk, { ...state, destination: 'events', state: 'delivered', attempts: 2 })).toBe(
      'written',
    );
  });
});
