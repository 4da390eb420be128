// Reordering: deliveries arrive in any order, and handlers get what they need to resist it: the event's
// own time (`ctx.occurredAt`) and `ctx.acceptIfNewer`, one conditional write beside the inbox table.
// Through the real verify and processor handlers, against dynalite and fauxqs.
import { beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { parseConfig } from '../../../config';
import { DynamoInbox } from '../../../lambdas/adapters/dynamo-inbox';
import { defineEvent, EVENT_HANDLERS, type EventContext } from '../../../lambdas/events';
import { useEmulators } from '../../support/emulators';
import {
  deliverSigned,
  drainQueue,
  eventSourceFor,
  processHandlerFor,
  TestClock,
} from '../../support/pipeline';

const config = parseConfig({
  providers: { stripe: { scheme: 'stripe' }, github: { scheme: 'github' } },
  queue: { retrySchedule: [1, 1] },
});
const ctx = useEmulators({ config, strictSqs: true });
const SECRETS = { stripe: ['whsec_ordering_test'], github: ['gh-ordering-test'] };

let resources: typeof ctx.resources;
let clock: TestClock;
beforeEach(async () => {
  resources = await ctx.provision();
  clock = new TestClock(Date.now());
});

const stripeEvent = (id: string, created: number, amount = 500) =>
  JSON.stringify({
    id,
    object: 'event',
    type: 'payment_intent.succeeded',
    created,
    data: { object: { id: 'pi_ordering', amount, currency: 'eur' } },
  });

async function deliver(provider: 'stripe' | 'github', body: string, eventType?: string): Promise<void> {
  const secret = SECRETS[provider][0] as string;
  const response = await deliverSigned(ctx, resources, { config, provider, secret, body, eventType, clock });
  expect(response.statusCode).toBe(202);
}

async function runProcessor(handlers = EVENT_HANDLERS) {
  const processor = processHandlerFor(ctx, resources, handlers, { config });
  await drainQueue(ctx, resources, eventSourceFor(ctx, resources, processor.handler));
  return processor.logger;
}

describe('ctx.occurredAt', () => {
  it("is the provider's signed event time (Stripe's created), not the receive time", async () => {
    const seen: EventContext[] = [];
    const capture = defineEvent({
      provider: 'stripe',
      type: '*',
      schema: z.object({}),
      handle: (_d, c) => void seen.push(c),
    });
    await deliver('stripe', stripeEvent('evt_time', 1_764_000_000));
    await runProcessor([capture]);
    expect(seen[0]?.occurredAt).toBe(new Date(1_764_000_000_000).toISOString());
    expect(seen[0]?.receivedAt).toBe(new Date(clock.now()).toISOString());
  });

  it('is the receive time where the provider sends no event time (GitHub)', async () => {
    const seen: EventContext[] = [];
    const capture = defineEvent({
      provider: 'github',
      type: '*',
      schema: z.object({}),
      handle: (_d, c) => void seen.push(c),
    });
    await deliver('github', '{"zen":"Keep it logically awesome."}', 'ping');
    await runProcessor([capture]);
    expect(seen[0]?.occurredAt).toBe(seen[0]?.receivedAt);
  });
});

describe('ctx.acceptIfNewer in the shipped Stripe example', () => {
  it('skips an older event for the same payment intent that arrives after a newer one, as stale_skipped', async () => {
    await deliver('stripe', stripeEvent('evt_newer', 1_764_000_100, 700));
    const first = await runProcessor();
    // A retry of an older event, delivered late (Stripe does not guarantee order).
    await deliver('stripe', stripeEvent('evt_older', 1_764_000_000, 500));
    const second = await runProcessor();
    const applied = [...first.lines, ...second.lines].filter((line) =>
      line.message.startsWith('stripe payment_intent.succeeded'),
    );
    expect(applied.map((line) => line.message)).toEqual(['stripe payment_intent.succeeded: pi_ordering']);
    expect(second.last()?.attributes).toMatchObject({ outcome: 'stale_skipped', dedupKey: 'evt_older' });
    // A stale delivery is done: acknowledged, not retried or dead-lettered.
    const inbox = new DynamoInbox(ctx.clients.dynamodb, resources.tableName);
    expect((await inbox.get('stripe#evt_older'))?.status).toBe('processed');
    expect((await ctx.countMessages(resources.dlqUrl)).visible).toBe(0);
  });

  it('applies events that arrive in order, each one', async () => {
    await deliver('stripe', stripeEvent('evt_first', 1_764_000_000, 500));
    await runProcessor();
    await deliver('stripe', stripeEvent('evt_second', 1_764_000_100, 700));
    const logger = await runProcessor();
    expect(logger.lines.filter((line) => line.attributes.outcome === 'stale_skipped')).toEqual([]);
  });
});
