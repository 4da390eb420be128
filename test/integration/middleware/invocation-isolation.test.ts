// Middy 6 shares one AbortController across every chain in the
// process; local mode runs several invocations at once. One invocation's early timeout must not abort a
// concurrent one, and the cold-start flag is on the first invocation's lines only.
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { parseConfig } from '../../../config';
import { standardWebhooks } from '../../../lambdas/core/schemes/standard-webhooks';
import { useEmulators } from '../../support/emulators';
import { endingIn, signedEvent, TestClock, verifyHandlerFor } from '../../support/pipeline';

const config = parseConfig({ providers: { 'standard-webhooks': { scheme: 'standard-webhooks' } } });
const ctx = useEmulators({ config });
const SECRET = standardWebhooks.generateSecret();

describe('invocations of one process stay apart', () => {
  it("one invocation's early timeout leaves a concurrent one running; only the first invocation is cold", async () => {
    const resources = await ctx.provision();
    const clock = new TestClock(Date.now());
    // A slow secret source: longer than the short invocation has before its early timeout.
    const pipeline = verifyHandlerFor(ctx, resources, {
      secrets: {
        get: async () => {
          await sleep(700);
          return [SECRET];
        },
      },
      clock,
    });
    const event = (id: string) =>
      signedEvent('standard-webhooks', config, {
        body: '{"type":"invoice.paid","data":{}}',
        secret: SECRET,
        timestamp: clock.seconds(),
        id,
      });
    // The first invocation alone (the shared test logger keeps one context, as on Lambda's one at a time).
    expect((await pipeline.handler(event('msg_first'), endingIn(30_000, 'req-first'))).statusCode).toBe(202);
    expect(pipeline.logger.last()?.attributes).toMatchObject({ requestId: 'req-first', coldStart: true });
    const [short, long] = await Promise.all([
      pipeline.handler(event('msg_short'), endingIn(1_800, 'req-short')),
      pipeline.handler(event('msg_long'), endingIn(30_000, 'req-long')),
    ]);
    expect(short.statusCode).toBe(503);
    expect(long.statusCode).toBe(202);
    expect(await ctx.receiveAll(resources.queueUrl)).toHaveLength(2);
    await pipeline.handler(event('msg_warm'), endingIn(30_000, 'req-warm'));
    expect(pipeline.logger.last()?.attributes).toMatchObject({ outcome: 'accepted', requestId: 'req-warm' });
    expect(pipeline.logger.last()?.attributes.coldStart).toBeUndefined();
  });
});
