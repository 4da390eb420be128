// A destination's history written as a compare-and-set, against dynalite through the real client: a write
// that expects the history it read is refused once another copy wrote it, and two copies of one delivery
// attempted at once through the forwarder each count their attempt.
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { parseConfig } from '../../../config';
import { DynamoForwardLog } from '../../../lambdas/adapters/dynamo-forward-log';
import { DynamoInbox } from '../../../lambdas/adapters/dynamo-inbox';
import type { AttemptResult } from '../../../lambdas/core/destinations/attempt';
import { type ForwardDeps, forwardRecord } from '../../../lambdas/core/destinations/forward-record';
import type { ForwardState } from '../../../lambdas/core/destinations/forward-state';
import { buildEnvelope, MESSAGE_ATTRIBUTES, serializeEnvelope } from '../../../lambdas/core/envelope';
import { inboxKey } from '../../../lambdas/core/inbox';
import { sha256Hex } from '../../../lambdas/core/schemes/primitives';
import { useEmulators } from '../../support/emulators';

const env = useEmulators();
const T0 = Date.UTC(2026, 11, 1, 9, 30, 0);
const BODY = Buffer.from('{"type":"order.paid"}');

/** A delivery record, as verify's claim leaves it; its key. */
async function claimedRecord(dedupKey: string): Promise<string> {
  await new DynamoInbox(env.clients.dynamodb, env.resources.tableName).claim({
    provider: 'standard-webhooks',
    dedupKey,
    payloadSha256: sha256Hex(BODY),
    nowMs: T0,
    leaseSeconds: 30,
    ttlSeconds: 86_400,
    claimToken: 'c1',
  });
  return inboxKey('standard-webhooks', dedupKey);
}

describe('DynamoForwardLog compare-and-set', () => {
  it('writes over the history it read, and answers changed once another write moved it', async () => {
    const log = new DynamoForwardLog(env.clients.dynamodb, env.resources.tableName);
    const pk = await claimedRecord(`msg_${randomUUID().slice(0, 8)}`);
    const first: ForwardState = {
      destination: 'hooks',
      state: 'retrying',
      attempts: 1,
      webhookId: 'msg_x',
      lastStatus: 503,
    };
    expect(await log.put(pk, first, { previous: undefined })).toBe('written');
    // A second copy that also read no history: refused, the first write stands.
    expect(await log.put(pk, { ...first, lastStatus: 502 }, { previous: undefined })).toBe('changed');
    const read = await log.get(pk, 'hooks');
    expect(read).toEqual(first);
    expect(await log.put(pk, { ...first, attempts: 2 }, { previous: read })).toBe('written');
    expect(await log.put(pk, { ...first, attempts: 3 }, { previous: read })).toBe('changed');
    // A failing copy still cannot undo a delivery, and a gone record is still no record.
    const now = await log.get(pk, 'hooks');
    expect(await log.put(pk, { ...first, state: 'delivered', attempts: 3 }, { previous: now })).toBe(
      'written',
    );
    expect(await log.put(pk, { ...first, attempts: 4 }, { previous: now })).toBe('delivered');
    expect(await log.put(inboxKey('standard-webhooks', 'gone'), first, { previous: undefined })).toBe(
      'no_record',
    );
  });

  it('counts both attempts of two copies of one delivery whose writes interleave', async () => {
    const dedupKey = `msg_${randomUUID().slice(0, 8)}`;
    const pk = await claimedRecord(dedupKey);
    const envelope = buildEnvelope({
      provider: 'standard-webhooks',
      dedupKey,
      eventType: 'order.paid',
      contentType: 'application/json',
      payloadSha256: sha256Hex(BODY),
      body: BODY,
      receivedAtMs: T0,
    });
    const history = new DynamoForwardLog(env.clients.dynamodb, env.resources.tableName);
    // Both copies have read the empty history and sent before either writes.
    let arrived = 0;
    let release: () => void = () => undefined;
    const bothSent = new Promise<void>((resolve) => {
      release = resolve;
    });
    const deps: ForwardDeps = {
      config: parseConfig({
        destinations: {
          hooks: { type: 'http', url: 'https://hooks.example.com/in', retrySchedule: ['10s', '20s'] },
        },
      }),
      senders: {
        http: {
          send: async (): Promise<AttemptResult> => {
            if (++arrived === 2) release();
            await bothSent;
            return { kind: 'answered', status: 503 };
          },
        },
      },
      history,
      states: {
        status: async () => ({ enabled: true }),
        disable: async () => undefined,
        enable: async () => undefined,
        count: async () => undefined,
        recent: async () => ({ delivered: 0, failed: 0 }),
      },
      payloads: { get: async () => ({ body: BODY }), rewrite: async () => undefined },
      messagesFor: () => ({ delay: async () => undefined }),
      queues: { send: async () => ({ messageId: 'copy' }) },
      clock: { now: () => T0 + 1_000 },
      random: () => 0.5,
      invocationStartedMs: T0 + 1_000,
    };
    const copy = (receiptHandle: string) =>
      forwardRecord(deps, {
        messageId: 'm-1',
        receiptHandle,
        body: serializeEnvelope(envelope),
        receiveCount: 1,
        sentTimestampMs: T0,
        attributes: { [MESSAGE_ATTRIBUTES.destination]: 'hooks' },
      });
    const results = await Promise.all([copy('rh-1'), copy('rh-2')]);
    expect(results.map((r) => [r.outcome, r.recorded])).toEqual([
      ['retry', undefined],
      ['retry', undefined],
    ]);
    expect(await history.get(pk, 'hooks')).toMatchObject({
      state: 'retrying',
      attempts: 2,
      lastErrorCode: 'http_503',
    });
  });
});
