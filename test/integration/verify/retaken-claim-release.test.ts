// A regression test. Verify no longer marks `enqueued` after
// SendMessage, so an accepted delivery's record stays `claimed`; once the claim's lease lapses, the same
// bytes retake it (a provider retry). If that retry's SendMessage fails, verify releases the claim: the
// DeleteItem is conditioned only on the retry's token, so it deletes the record of a delivery already
// answered 202. A different body under the same signed id is then accepted (202) instead of 409, and one
// of the two 202s is dead-lettered as a conflict rather than run.
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { parseConfig } from '../../../config';
import { DynamoInbox } from '../../../lambdas/adapters/dynamo-inbox';
import { standardWebhooks } from '../../../lambdas/core/schemes/standard-webhooks';
import { defineEvent } from '../../../lambdas/events';
import { useEmulators } from '../../support/emulators';
import { faultForTest } from '../../support/faults';
import {
  drainQueue,
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
const BODY_A = '{"type":"invoice.paid","data":{"amount":1}}';
const BODY_B = '{"type":"invoice.paid","data":{"amount":2}}';

describe('a retaken claim released after a failed send', () => {
  it('keeps the record of a delivery already answered 202, so other bytes under its id are 409', async () => {
    const resources = await ctx.provision();
    const clock = new TestClock(Date.now());
    const { handler } = verifyHandlerFor(ctx, resources, {
      secrets: new StaticSecrets({ 'standard-webhooks': [SECRET] }),
      clock,
    });
    const deliver = (body: string) =>
      handler(
        signedEvent('standard-webhooks', config, {
          body,
          secret: SECRET,
          timestamp: clock.seconds(),
          id: 'msg_1',
        }),
      );

    expect((await deliver(BODY_A)).statusCode).toBe(202);
    // The processor is behind (a backlog): the record is still `claimed` when the claim's lease lapses.
    clock.advance(config.claimLeaseSeconds + 1);
    // The provider retries A (it never saw the 202); this invocation's SendMessage fails.
    const fault = faultForTest(ctx.clients.sqs, { commands: 'SendMessageCommand', times: 1 });
    expect((await deliver(BODY_A)).statusCode).toBe(503);
    expect(fault.failures).toBe(1);
    // The record of the accepted delivery must still be there.
    const record = await new DynamoInbox(ctx.clients.dynamodb, resources.tableName).get(
      'standard-webhooks#msg_1',
    );
    expect(record).toBeDefined();
    // Same signed id, other bytes: 409, never run.
    expect((await deliver(BODY_B)).statusCode).toBe(409);

    const ran: string[] = [];
    const handlers = [
      defineEvent({
        provider: 'standard-webhooks',
        type: '*',
        schema: z.object({}).loose(),
        handle: async (_data, context) => {
          ran.push(context.rawBody.toString());
        },
      }),
    ];
    const processor = processHandlerFor(ctx, resources, handlers);
    await drainQueue(ctx, resources, eventSourceFor(ctx, resources, processor.handler));
    expect(ran).toEqual([BODY_A]);
  });
});
