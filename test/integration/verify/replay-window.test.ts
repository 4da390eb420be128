// Replays of a captured delivery, through the verify handler against dynalite and fauxqs: GitHub and Shopify
// sign no timestamp and name the event type in an unsigned header, so only the inbox record stands between
// a copy and a second run. It is kept 35 days for them, and the same bytes under another type are refused.
import { beforeEach, describe, expect, it } from 'vitest';
import { parseConfig } from '../../../config';
import { DynamoInbox } from '../../../lambdas/adapters/dynamo-inbox';
import { sqsRecordFrom } from '../../../local/sqs-event-source';
import { useEmulators } from '../../support/emulators';
import {
  effectCounter,
  freshVerifyPipeline,
  processHandlerFor,
  signedEvent,
  type VerifySetup,
} from '../../support/pipeline';

const DAY = 86_400;
const config = parseConfig({
  providers: {
    github: { scheme: 'github' },
    'github-short': { scheme: 'github', dedupTtlSeconds: 5 * DAY },
    shopify: { scheme: 'shopify' },
    stripe: { scheme: 'stripe' },
  },
});
const ctx = useEmulators({ config });
const SECRET = 'replay-secret-for-tests';

let resources: VerifySetup['resources'];
let clock: VerifySetup['clock'];
let pipeline: VerifySetup['pipeline'];
beforeEach(async () => {
  ({ resources, clock, pipeline } = await freshVerifyPipeline(ctx, {
    github: [SECRET],
    'github-short': [SECRET],
    shopify: [SECRET],
    stripe: [SECRET],
  }));
});

// A body that fits both a push and a pull_request handler that read only `repository`.
const BODY = '{"action":"opened","repository":{"id":1296269,"full_name":"octo/hello"},"marker":"do-not-log"}';
const send = (provider: string, eventType: string, body = BODY, deliveryId = 'd-1') =>
  pipeline.handler(
    signedEvent(provider, config, {
      body,
      secret: SECRET,
      timestamp: clock.seconds(),
      id: deliveryId,
      eventType,
    }),
  );
const queued = async () => (await ctx.countMessages(resources.queueUrl)).visible;
const inbox = () => new DynamoInbox(ctx.clients.dynamodb, resources.tableName);
const recordOf = async (provider: string) => {
  const [record] = await inbox().list({ provider, limit: 2 });
  return record;
};

/** Runs every queued message through the processor; the types the effects ran as. */
async function processQueued(provider: string): Promise<string[]> {
  const types: string[] = [];
  const { handlers } = effectCounter(provider, (context) => {
    types.push(context.eventType);
  });
  const processor = processHandlerFor(ctx, resources, handlers, { clock });
  for (const message of await ctx.receiveAll(resources.queueUrl)) {
    const response = await processor.handler({ Records: [sqsRecordFrom(message, resources.queueArn)] });
    expect(response.batchItemFailures).toEqual([]);
  }
  return types;
}

describe('a replay after the generic 7-day window', () => {
  it('answers a GitHub delivery replayed 8 days later 200 duplicate, and runs nothing again', async () => {
    expect((await send('github', 'push')).statusCode).toBe(202);
    expect(await processQueued('github')).toEqual(['push']);
    clock.advance(8 * DAY);
    const again = await send('github', 'push', BODY, 'd-2');
    expect(again.statusCode).toBe(200);
    expect(JSON.parse(again.body)).toMatchObject({ duplicate: true });
    expect(await queued()).toBe(0);
  });

  it('lets an explicit dedupTtlSeconds win: a GitHub provider set to 5 days takes the 8-day replay as new', async () => {
    // The window's end is the residual exposure (docs/security.md): the handler must be idempotent.
    expect((await send('github-short', 'push')).statusCode).toBe(202);
    await processQueued('github-short');
    clock.advance(8 * DAY);
    expect((await send('github-short', 'push')).statusCode).toBe(202);
    expect(await queued()).toBe(1);
  });

  it('keeps 7 days for Stripe, whose signed timestamp already refuses an old capture', async () => {
    const event = '{"id":"evt_replay","type":"charge.succeeded","data":{"object":{"id":"ch_1"}}}';
    expect((await send('stripe', 'charge.succeeded', event)).statusCode).toBe(202);
    const record = await recordOf('stripe');
    // The dedup window; the record itself lives on for the archive's 30 days (dedup-window.test.ts).
    expect(record!.dedupUntil! - clock.seconds()).toBe(7 * DAY);
    await processQueued('stripe');
    // The capture itself is stale; only Stripe's own resend (a fresh signature) gets through, as new.
    const capture = signedEvent('stripe', config, {
      body: event,
      secret: SECRET,
      timestamp: clock.seconds(),
    });
    clock.advance(8 * DAY);
    expect((await pipeline.handler(capture)).statusCode).toBe(401);
    expect((await send('stripe', 'charge.succeeded', event)).statusCode).toBe(202);
  });

  it('keeps the GitHub record 35 days', async () => {
    await send('github', 'push');
    const record = await recordOf('github');
    expect(record!.dedupUntil! - clock.seconds()).toBe(35 * DAY);
    expect(record!.expiresAt - clock.seconds()).toBe(35 * DAY);
  });
});

describe('the same signed body under another event type', () => {
  const expectRefused = async (response: { statusCode: number; body: string }) => {
    expect(response.statusCode).toBe(409);
    expect(JSON.parse(response.body)).toMatchObject({ error: 'conflict' });
    expect(pipeline.logger.last()).toMatchObject({
      level: 'warn',
      message: 'delivery conflict',
      attributes: { conflict: 'event_type', eventType: 'pull_request', status: 409 },
    });
    expect(JSON.stringify(pipeline.logger.lines)).not.toContain('do-not-log');
  };

  it('answers 409 while the first is still claimed, and sends no copy', async () => {
    expect((await send('github', 'push')).statusCode).toBe(202);
    const before = await recordOf('github');
    await expectRefused(await send('github', 'pull_request'));
    expect(await queued()).toBe(1);
    expect(await recordOf('github')).toEqual(before);
  });

  it('answers 409 once the first is processed, enqueues nothing, and never runs the other handler', async () => {
    expect((await send('github', 'push')).statusCode).toBe(202);
    expect(await processQueued('github')).toEqual(['push']);
    await expectRefused(await send('github', 'pull_request'));
    expect(await queued()).toBe(0);
    expect(await recordOf('github')).toMatchObject({ status: 'processed', eventType: 'push' });
  });

  it('does not retake a lapsed claim under another type; the same type still retakes it', async () => {
    // No mark follows the send, so the record stays `claimed` and its lease lapses: only the same
    // delivery may take it over (its copy is absorbed by the processor's lease and processed mark).
    expect((await send('github', 'push')).statusCode).toBe(202);
    clock.advance(config.claimLeaseSeconds + 1);
    const before = await recordOf('github');
    await expectRefused(await send('github', 'pull_request'));
    expect(await recordOf('github')).toEqual(before);
    expect(await queued()).toBe(1);
    expect((await send('github', 'push')).statusCode).toBe(202);
    expect(await queued()).toBe(2);
    expect(await processQueued('github')).toEqual(['push']);
  });

  it('answers a Shopify body under another X-Shopify-Topic 200 duplicate, and runs nothing under it', async () => {
    // Shopify sends orders/create and orders/updated with one body at once: a 409 would be retried for
    // hours. The body arrived under its first topic; under the second, nothing is queued or run.
    const order = '{"id":820982911946154500,"email":"jon@example.com","marker":"do-not-log"}';
    expect((await send('shopify', 'orders/create', order)).statusCode).toBe(202);
    const again = await send('shopify', 'orders/cancelled', order);
    expect(again.statusCode).toBe(200);
    expect(JSON.parse(again.body)).toMatchObject({ duplicate: true });
    expect(pipeline.logger.last()).toMatchObject({ level: 'warn', attributes: { conflict: 'event_type' } });
    expect(JSON.stringify(pipeline.logger.lines)).not.toContain('do-not-log');
    expect(await queued()).toBe(1);
    expect(await processQueued('shopify')).toEqual(['orders/create']);
  });
});
