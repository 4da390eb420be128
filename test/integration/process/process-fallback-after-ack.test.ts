// The processor's last-resort answer (lambdas/process/middy-chain.ts, `allFailed`) fails
// every record of the batch, including one the batch logic had already acknowledged because its effect ran
// and its processed mark could not be written (`markFailed`: "acknowledged anyway, never re-run"). It is
// given when the hand-back of the unstarted records takes longer than the grace, e.g. while
// ChangeMessageVisibility hangs. That record then comes back with its record still `processing`, and once
// the lease lapses its effect runs a second time.
import { describe, expect, it } from 'vitest';
import { parseConfig } from '../../../config';
import { standardWebhooks } from '../../../lambdas/core/schemes/standard-webhooks';
import { sqsRecordFrom } from '../../../local/sqs-event-source';
import { useEmulators } from '../../support/emulators';
import { attemptFaultForTest, faultForTest } from '../../support/faults';
import { deliverSigned, effectCounter, endingIn, processHandlerFor } from '../../support/pipeline';
import { isLease, isProcessedMark } from '../../support/rendered-writes';

const config = parseConfig({ providers: { 'standard-webhooks': { scheme: 'standard-webhooks' } } });
const ctx = useEmulators({ config, strictSqs: true });
const SECRET = standardWebhooks.generateSecret();

const keyIs = (dedupKey: string) => (input: Record<string, unknown>) =>
  JSON.stringify(input.Key ?? {}).includes(`standard-webhooks#${dedupKey}`);

describe('processor last-resort answer after a partial success', () => {
  it('never reports a record whose effect ran (processed mark failed) as a failure', async () => {
    const resources = await ctx.provision();
    for (const id of ['msg_ran', 'msg_stuck']) {
      const response = await deliverSigned(ctx, resources, {
        config,
        provider: 'standard-webhooks',
        secret: SECRET,
        body: `{"type":"invoice.paid","data":{"id":"${id}"}}`,
        id,
      });
      expect(response.statusCode).toBe(202);
    }
    const messages = await ctx.receiveAll(resources.queueUrl);
    const idOf = (key: string) =>
      messages.find((m) => JSON.parse(m.body).dedupkey === key)?.messageId as string;
    // msg_ran: the effect runs, every processed mark fails (acknowledged with markFailed).
    faultForTest(ctx.clients.dynamodb, {
      commands: 'UpdateItemCommand',
      match: (input) => keyIs('msg_ran')(input) && isProcessedMark(input),
    });
    // msg_stuck: its lease never answers (never starts), and handing it back hangs.
    attemptFaultForTest(ctx.clients.dynamodb, {
      commands: 'UpdateItemCommand',
      fault: 'hang-before',
      match: (input) => keyIs('msg_stuck')(input) && isLease(input),
    });
    attemptFaultForTest(ctx.clients.sqs, {
      commands: 'ChangeMessageVisibilityCommand',
      fault: 'hang-before',
    });
    const { runs, handlers } = effectCounter('standard-webhooks');
    const processor = processHandlerFor(ctx, resources, handlers, { random: () => 0, sleep: async () => {} });
    const response = await processor.handler(
      { Records: messages.map((m) => sqsRecordFrom(m, resources.queueArn)) },
      endingIn(2_500),
    );
    expect(runs).toEqual(['msg_ran']);
    expect(processor.logger.lines.some((l) => l.attributes.effectRan === true)).toBe(true);
    expect(response.batchItemFailures).toEqual([{ itemIdentifier: idOf('msg_stuck') }]);
  });
});
