// A defect in abortThenAnswer (lambdas/middleware/invocation.ts). The grace timer that
// gives the chain's own answer is never cleared when the handler answers in time, so the fallback still
// runs a second later: the verify Lambda logs a second, spurious ERROR "delivery timed out" for a delivery
// already answered and logged. On Lambda the container is frozen by then, so that line comes out during
// the next invocation, under its request id.
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { parseConfig } from '../../../config';
import { standardWebhooks } from '../../../lambdas/core/schemes/standard-webhooks';
import { useEmulators } from '../../support/emulators';
import { attemptFaultForTest } from '../../support/faults';
import { endingIn, StaticSecrets, signedEvent, TestClock, verifyHandlerFor } from '../../support/pipeline';

const config = parseConfig({ providers: { 'standard-webhooks': { scheme: 'standard-webhooks' } } });
const ctx = useEmulators({ config });
const SECRET = standardWebhooks.generateSecret();

describe('verify early timeout', () => {
  it('logs one line for a delivery the handler gave back in time, and none after it answered', async () => {
    const resources = await ctx.provision();
    const clock = new TestClock(Date.now());
    const pipeline = verifyHandlerFor(ctx, resources, {
      secrets: new StaticSecrets({ 'standard-webhooks': [SECRET] }),
      clock,
    });
    attemptFaultForTest(ctx.clients.sqs, { commands: 'SendMessageCommand', fault: 'hang-before' });
    const event = signedEvent('standard-webhooks', config, {
      body: '{"type":"invoice.paid","data":{}}',
      secret: SECRET,
      timestamp: clock.seconds(),
      id: 'msg_1',
    });
    // Time enough for the claim on a loaded machine: the send is the stage that must run out.
    const response = await pipeline.handler(event, endingIn(3_000));
    expect(response.statusCode).toBe(503);
    // The handler answered (stage is its own attribute); the chain's grace (1 s by default) then runs out.
    expect(pipeline.logger.last()?.attributes).toMatchObject({ outcome: 'timed_out', stage: 'enqueue' });
    await sleep(1_300);
    expect(pipeline.logger.lines.filter((l) => l.attributes.outcome === 'timed_out')).toHaveLength(1);
  });
});
