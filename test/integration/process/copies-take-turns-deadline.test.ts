// Copies of one delivery in one batch take turns (BatchState.inTurn). When the first
// copy's handler runs until its cut-off, the second gets its turn after the handlers' deadline has passed
// but before the early timeout: it takes the lease and starts its handler with no time left, which is cut
// off at once and charged as a handler failure (handler_timeout, attempts + 1), rather than handed back
// unstarted like any record that had no time to start.
import { describe, expect, it } from 'vitest';
import { parseConfig } from '../../../config';
import { DynamoInbox } from '../../../lambdas/adapters/dynamo-inbox';
import { standardWebhooks } from '../../../lambdas/core/schemes/standard-webhooks';
import { sqsRecordFrom } from '../../../local/sqs-event-source';
import { useEmulators } from '../../support/emulators';
import { deliverSigned, effectCounter, endingIn, processHandlerFor } from '../../support/pipeline';

const config = parseConfig({ providers: { 'standard-webhooks': { scheme: 'standard-webhooks' } } });
const ctx = useEmulators({ config, strictSqs: true });
const SECRET = standardWebhooks.generateSecret();

describe('copies taking turns at the deadline', () => {
  it('does not start the second copy with no time left, nor charge it a handler failure', async () => {
    const resources = await ctx.provision();
    const deliver = () =>
      deliverSigned(ctx, resources, {
        config,
        provider: 'standard-webhooks',
        secret: SECRET,
        body: '{"type":"invoice.paid","data":{}}',
        id: 'msg_1',
      });
    expect((await deliver()).statusCode).toBe(202);
    // A duplicate while the record is still `claimed`: verify sends a copy.
    expect((await deliver()).statusCode).toBe(200);
    const messages = await ctx.receiveAll(resources.queueUrl);
    expect(messages).toHaveLength(2);
    const startedAborted: boolean[] = [];
    // Every run waits on its signal: the first is cut off at the handlers' deadline.
    const { runs, handlers } = effectCounter('standard-webhooks', async (context) => {
      startedAborted.push(context.signal.aborted);
      await new Promise((resolve) => context.signal.addEventListener('abort', resolve, { once: true }));
      throw new Error('cut off');
    });
    const processor = processHandlerFor(ctx, resources, handlers);
    await processor.handler(
      { Records: messages.map((m) => sqsRecordFrom(m, resources.queueArn)) },
      // Handlers cut off at 1.5 s, the early timeout at 3 s: the second copy's turn falls in between.
      endingIn(4_000),
    );
    expect(startedAborted).toEqual([false]);
    expect(runs).toHaveLength(1);
    const record = await new DynamoInbox(ctx.clients.dynamodb, resources.tableName).get(
      'standard-webhooks#msg_1',
    );
    expect(record?.attempts).toBe(1);
  });
});
