// Isolation: a destination that fails for a minute must not delay or dead-letter another. Each has its
// own queue, DLQ and event source (the stack's one mapping per queue), so the healthy one takes every
// delivery on its first attempt while the failing one is still retrying.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SqsQueueOps } from '../../../lambdas/adapters/sqs-queue-ops';
import { FORWARD_HEADERS } from '../../../lambdas/core/destinations/signing';
import { type DestinationServer, startDestinationServer, status } from '../../support/destination-server';
import { type ForwardingInbox, startForwardingInbox } from '../../support/forwarding';

const DELIVERIES = 20;
const OUTAGE_MS = 60_000;

let failing: DestinationServer;
let healthy: DestinationServer;
let forwarding: ForwardingInbox;
let outageEndsAt = 0;

beforeAll(async () => {
  failing = await startDestinationServer();
  healthy = await startDestinationServer();
  failing.answerAll((response) => status(Date.now() < outageEndsAt ? 503 : 200)(response));
  forwarding = await startForwardingInbox({
    destinations: {
      failing: { type: 'http', url: failing.url(), retrySchedule: Array(20).fill('10s') },
      // Two steps, three receives: SQS may lose its answers to receives (they count all the same), and with
      // two receives two lost answers in a row would move a message to the DLQ before its first attempt.
      healthy: { type: 'http', url: healthy.url(), retrySchedule: ['10s', '10s'] },
    },
  });
  outageEndsAt = Date.now() + OUTAGE_MS;
  for (let i = 0; i < DELIVERIES; i++) {
    expect(
      await forwarding.deliver(`msg_iso_${i}`, JSON.stringify({ type: 'order.paid', data: { i } })),
    ).toBe(202);
  }
}, 60_000);

afterAll(async () => {
  await forwarding?.stop();
  await failing?.close();
  await healthy?.close();
});

describe('one failing destination and one healthy one', () => {
  it(
    'delivers everything to the healthy one on the first attempt while the other answers 503 for a minute, then both end delivered',
    async () => {
      await expect.poll(() => healthy.received.length, { timeout: 30_000 }).toBe(DELIVERIES);
      expect(healthy.received.every((r) => r.headers[FORWARD_HEADERS.attempt] === '1')).toBe(true);
      // All of them while the failing destination had yet to take a single one.
      const lastHealthy = Math.max(...healthy.received.map((r) => r.atMs));
      expect(lastHealthy).toBeLessThan(outageEndsAt);
      expect(failing.received.filter((r) => r.atMs <= lastHealthy).length).toBeGreaterThan(0);
      for (let i = 0; i < DELIVERIES; i++) {
        expect(await forwarding.history(`msg_iso_${i}`, 'healthy')).toMatchObject({
          state: 'delivered',
          attempts: 1,
        });
      }
      // The failing one recovers after its outage, from its own retries: nothing dead-lettered anywhere.
      await expect
        .poll(
          async () => {
            const states = await Promise.all(
              Array.from({ length: DELIVERIES }, (_, i) => forwarding.history(`msg_iso_${i}`, 'failing')),
            );
            return states.filter((s) => s?.state === 'delivered').length;
          },
          { timeout: OUTAGE_MS + 60_000, interval: 1_000 },
        )
        .toBe(DELIVERIES);
      expect(await forwarding.depth('failing', 'dlq')).toBe(0);
      // SQS may hand a message out again after its copy was delivered, and moves it to the DLQ on that
      // receive if the count is past maxReceiveCount: the forwarder never sees that copy. What
      // may be there is such a copy of a delivered delivery (a redrive skips it), never one dead-lettered.
      for (const dedupKey of await dlqDedupKeys('healthy')) {
        expect(await forwarding.history(dedupKey, 'healthy')).toMatchObject({
          state: 'delivered',
          attempts: 1,
        });
      }
      // The failing one's first success came only after its outage, well after the healthy one had all.
      const firstSuccess = Math.min(
        ...failing.received.filter((r) => r.atMs >= outageEndsAt).map((r) => r.atMs),
      );
      expect(firstSuccess).toBeGreaterThan(lastHealthy);
    },
    OUTAGE_MS + 120_000,
  );
});

/** The dedup keys of the deliveries on a destination's DLQ (each message read once, and left hidden). */
async function dlqDedupKeys(id: string): Promise<string[]> {
  const dlqUrl = forwarding.inbox.state.destinations?.[id]?.dlqUrl as string;
  const ops = new SqsQueueOps(forwarding.inbox.clients.sqs);
  const depth = await forwarding.depth(id, 'dlq');
  const keys = new Map<string, string>();
  for (let polls = 0; keys.size < depth && polls < 20; polls++) {
    for (const message of await ops.receive(dlqUrl, { waitSeconds: 1, visibilitySeconds: 60 })) {
      keys.set(message.messageId, (JSON.parse(message.body) as { dedupkey: string }).dedupkey);
    }
  }
  expect(keys.size).toBe(depth);
  return [...keys.values()];
}
