// The early timeout strikes after SendMessage was applied but
// before its answer came back. The answer is 503 (the claim released) while the message exists; the
// provider's retry is accepted as new and sends a second copy; the effect still runs once.
import { describe, expect, it } from 'vitest';
import { parseConfig } from '../../../config';
import { standardWebhooks } from '../../../lambdas/core/schemes/standard-webhooks';
import { useEmulators } from '../../support/emulators';
import { attemptFaultForTest } from '../../support/faults';
import {
  drainQueue,
  effectCounter,
  endingIn,
  eventSourceFor,
  processHandlerFor,
  StaticSecrets,
  signedEvent,
  TestClock,
  verifyHandlerFor,
} from '../../support/pipeline';

const config = parseConfig({ providers: { 'standard-webhooks': { scheme: 'standard-webhooks' } } });
const ctx = useEmulators({ config });
const SECRET = standardWebhooks.generateSecret();

describe('the early timeout after the send was applied', () => {
  it('answers 503, and the retry and the orphan copy run the effect once', async () => {
    const resources = await ctx.provision();
    const clock = new TestClock(Date.now());
    const pipeline = verifyHandlerFor(ctx, resources, {
      secrets: new StaticSecrets({ 'standard-webhooks': [SECRET] }),
      clock,
    });
    const event = () =>
      signedEvent('standard-webhooks', config, {
        body: '{"type":"invoice.paid","data":{}}',
        secret: SECRET,
        timestamp: clock.seconds(),
        id: 'msg_1',
      });
    const fault = attemptFaultForTest(ctx.clients.sqs, {
      commands: 'SendMessageCommand',
      fault: 'hang-after',
      times: 1,
    });
    expect((await pipeline.handler(event(), endingIn(1_800))).statusCode).toBe(503);
    expect(fault.failures).toBe(1);
    expect((await pipeline.handler(event(), endingIn(30_000))).statusCode).toBe(202);
    expect((await ctx.countMessages(resources.queueUrl)).visible).toBe(2);
    const { runs, handlers } = effectCounter('standard-webhooks');
    const processor = processHandlerFor(ctx, resources, handlers);
    await drainQueue(ctx, resources, eventSourceFor(ctx, resources, processor.handler));
    expect(runs).toEqual(['msg_1']);
    expect(processor.logger.lines.filter((l) => l.attributes.outcome === 'duplicate_skipped')).toHaveLength(
      1,
    );
  });
});
