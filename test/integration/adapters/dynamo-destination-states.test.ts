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
import { attemptFaultForTest } from '../../support/faults';

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

  it('counts once a count the SDK sent again after the first send applied and its answer was lost', async () => {
    const id = `d-${randomUUID().slice(0, 8)}`;
    const states = new DynamoDestinationStates(env.clients.dynamodb, env.resources.tableName);
    const lost = attemptFaultForTest(env.clients.dynamodb, {
      commands: 'UpdateItemCommand',
      fault: 'lost-answer',
      times: 1,
      match: (input) => JSON.stringify(input.Key).includes(`destination#${id}#`),
    });
    await states.count(id, { delivered: 3, failed: 1 }, T0);
    // The first send applied, its answer was lost, and the SDK's own retry sent the same write again.
    expect(lost.failures).toBe(1);
    expect(lost.calls).toBe(2);
    expect(await states.recent(id, 1, T0)).toEqual({ delivered: 3, failed: 1 });
    // The writer goes on counting after the refused copy.
    await states.count(id, { delivered: 1, failed: 0 }, T0);
    expect(await states.recent(id, 1, T0)).toEqual({ delivered: 4, failed: 1 });
  });

  it('counts every count of two forwarders counting the same hour at once, each once, lost answers included', async () => {
    const id = `d-${randomUUID().slice(0, 8)}`;
    const first = new DynamoDestinationStates(env.clients.dynamodb, env.resources.tableName);
    const second = new DynamoDestinationStates(env.clients.dynamodb, env.resources.tableName);
    // The first send of three writes applies and loses its answer; each write's retry goes through.
    const sent = new Set<string>();
    const lost = attemptFaultForTest(env.clients.dynamodb, {
      commands: 'UpdateItemCommand',
      fault: 'lost-answer',
      times: 3,
      match: (input) => {
        const write = JSON.stringify(input);
        if (!write.includes(`destination#${id}#`) || sent.has(write)) return false;
        sent.add(write);
        return true;
      },
    });
    // Each forwarder's batches count concurrently too, as local mode runs them.
    await Promise.all(
      [first, second].flatMap((states) =>
        Array.from({ length: 6 }, (_, i) => states.count(id, { delivered: i + 1, failed: 1 }, T0 + i)),
      ),
    );
    expect(lost.failures).toBe(3);
    expect(await first.recent(id, 1, T0)).toEqual({ delivered: 2 * 21, failed: 12 });
  });

  it('counts a count started first but slow to be sent, though the next one was ready at once', async () => {
    const id = `d-${randomUUID().slice(0, 8)}`;
    // The first count's write is held a little before it leaves: were the second sent meanwhile, its
    // higher number would land first and refuse the first one.
    let updates = 0;
    const client = {
      send: async (command: { constructor: { name: string } }) => {
        if (command.constructor.name === 'UpdateItemCommand' && ++updates === 1) {
          await new Promise((resolve) => setTimeout(resolve, 50));
        }
        return env.clients.dynamodb.send(command as never);
      },
    };
    const states = new DynamoDestinationStates(client as never, env.resources.tableName);
    await Promise.all([
      states.count(id, { delivered: 1, failed: 0 }, T0),
      states.count(id, { delivered: 0, failed: 1 }, T0),
    ]);
    expect(await states.recent(id, 1, T0)).toEqual({ delivered: 1, failed: 1 });
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
