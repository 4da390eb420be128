// The processor Lambda's middy chain at the edge of its timeout: records whose handler never started are
// handed back at once (visible again, reported as failures, not charged to the handler), while records
// that finished keep their results. Against dynalite and fauxqs through the real SDK clients.
import { beforeEach, describe, expect, it } from 'vitest';
import { parseConfig } from '../../../config';
import { DynamoInbox } from '../../../lambdas/adapters/dynamo-inbox';
import { standardWebhooks } from '../../../lambdas/core/schemes/standard-webhooks';
import { sqsRecordFrom } from '../../../local/sqs-event-source';
import { useEmulators } from '../../support/emulators';
import { attemptFaultForTest } from '../../support/faults';
import { deliverSigned, effectCounter, endingIn, processHandlerFor } from '../../support/pipeline';
import { isLease } from '../../support/rendered-writes';

const config = parseConfig({ providers: { 'standard-webhooks': { scheme: 'standard-webhooks' } } });
const ctx = useEmulators({ config, strictSqs: true });
const SECRET = standardWebhooks.generateSecret();
/**
 * The invocation's end: the chain answers 1 s before it, the handlers are cut off 1 s before that, so the
 * healthy record has 2 s to finish, and the stuck one is handed back at 3 s.
 */
const REMAINING_MS = 4_000;

let resources: typeof ctx.resources;
beforeEach(async () => {
  resources = await ctx.provision();
});

async function deliver(id: string) {
  const response = await deliverSigned(ctx, resources, {
    config,
    provider: 'standard-webhooks',
    secret: SECRET,
    body: `{"type":"invoice.paid","data":{"id":"${id}"}}`,
    id,
  });
  expect(response.statusCode).toBe(202);
}

const isLeaseOf = (dedupKey: string) => (input: Record<string, unknown>) =>
  isLease(input) && JSON.stringify(input.Key).includes(`standard-webhooks#${dedupKey}`);

describe('processor: the early timeout hands back what never started', () => {
  it('reports the unstarted record as a failure, makes it visible at once, and keeps the finished one', async () => {
    await deliver('msg_ok');
    await deliver('msg_stuck');
    const messages = await ctx.receiveAll(resources.queueUrl);
    const idOf = (key: string) =>
      messages.find((m) => JSON.parse(m.body).dedupkey === key)?.messageId as string;
    // The stuck record's lease write never answers: its handler never starts.
    const hang = attemptFaultForTest(ctx.clients.dynamodb, {
      commands: 'UpdateItemCommand',
      fault: 'hang-before',
      match: isLeaseOf('msg_stuck'),
    });
    const { runs, handlers } = effectCounter('standard-webhooks');
    const processor = processHandlerFor(ctx, resources, handlers);
    const response = await processor.handler(
      { Records: messages.map((m) => sqsRecordFrom(m, resources.queueArn)) },
      endingIn(REMAINING_MS),
    );
    expect(hang.failures).toBeGreaterThan(0);
    expect(response.batchItemFailures).toEqual([{ itemIdentifier: idOf('msg_stuck') }]);
    expect(runs).toEqual(['msg_ok']);
    // Visible again now, not after the queue's visibility timeout (fauxqs: 180 s here).
    expect((await ctx.countMessages(resources.queueUrl)).visible).toBe(1);
    // Not a failure of its handler: not counted, not marked failed, logged as handed back.
    const record = await new DynamoInbox(ctx.clients.dynamodb, resources.tableName).get(
      'standard-webhooks#msg_stuck',
    );
    expect(record).toMatchObject({ status: 'claimed', attempts: 0 });
    expect(record?.lastErrorCode).toBeUndefined();
    expect(processor.logger.lines.find((l) => l.attributes.outcome === 'not_started')).toMatchObject({
      level: 'warn',
      attributes: { messageId: idOf('msg_stuck'), dedupKey: 'msg_stuck', requestId: 'req-1' },
    });
    expect(processor.logger.lines.some((l) => l.attributes.outcome === 'retry')).toBe(false);

    // The next receive runs it, once.
    hang.remove();
    const again = await ctx.receiveAll(resources.queueUrl);
    expect(again.map((m) => m.messageId)).toEqual([idOf('msg_stuck')]);
    const second = await processor.handler(
      { Records: again.map((m) => sqsRecordFrom(m, resources.queueArn)) },
      endingIn(30_000),
    );
    expect(second.batchItemFailures).toEqual([]);
    expect(runs.sort()).toEqual(['msg_ok', 'msg_stuck']);
  });

  it('fails every record rather than the invocation when the batch logic throws (the last-resort answer)', async () => {
    await deliver('msg_1');
    const messages = await ctx.receiveAll(resources.queueUrl);
    // A bug before any record runs: the clock throws on its first reading.
    const processor = processHandlerFor(ctx, resources, [], {
      clock: {
        now: () => {
          throw new TypeError('broken clock');
        },
      },
    });
    const response = await processor.handler(
      { Records: messages.map((m) => sqsRecordFrom(m, resources.queueArn)) },
      endingIn(30_000),
    );
    expect(response.batchItemFailures).toEqual(messages.map((m) => ({ itemIdentifier: m.messageId })));
    expect(processor.logger.last()).toMatchObject({
      level: 'error',
      message: 'batch failed',
      attributes: { errorName: 'TypeError' },
    });
  });
});
