// The processor's fan-out beside the typed handlers: each delivery's copy goes to every matching
// destination's queue once, even when the handlers fail and the delivery is retried, because the record
// says it was forwarded; and with no handlers destination the handlers do not run at all.
import { afterEach, describe, expect, it } from 'vitest';
import { type ForwardingInbox, linesFor, startForwardingInbox } from '../../support/forwarding';
import { effectCounter } from '../../support/pipeline';

const BODY = '{"type":"order.paid","timestamp":"2026-12-01T09:00:00Z","data":{"id":"ord_1"}}';
let forwarding: ForwardingInbox | undefined;

afterEach(async () => {
  await forwarding?.stop();
  forwarding = undefined;
});

async function copiesOnPartnerQueue(inbox: ForwardingInbox): Promise<number> {
  return inbox.depth('partner', 'queue');
}

describe('the processor fan-out', () => {
  it('sends one copy per destination although the handler fails once and its delivery is retried', async () => {
    let failures = 1;
    const counter = effectCounter('standard-webhooks', () => {
      if (failures-- > 0) throw new Error('downstream timeout');
    });
    forwarding = await startForwardingInbox(
      {
        queue: { retrySchedule: ['1s', '1s'] },
        destinations: {
          handlers: { type: 'handlers' },
          // Held on its queue (not consumed) so the test can count the copies: a bus never answers.
          partner: {
            type: 'sqs',
            queueArn: 'arn:aws:sqs:us-east-1:123456789012:partner-orders',
            filter: { providers: ['standard-webhooks'] },
          },
        },
      },
      counter.handlers,
    );
    const inbox = forwarding;
    expect(await inbox.deliver('msg_fan_1', BODY)).toBe(202);
    await expect.poll(() => counter.runs.length, { timeout: 20_000 }).toBe(2);
    await expect
      .poll(() => inbox.history('msg_fan_1', 'partner'), { timeout: 20_000 })
      .toMatchObject({ state: 'delivered', attempts: 1 });
    const ops = (await import('../../../lambdas/adapters/sqs-queue-ops')).SqsQueueOps;
    const target = inbox.inbox.state.destinations?.partner?.targetQueueUrl as string;
    const counts = await new ops(inbox.inbox.clients.sqs).counts(target);
    expect(counts.visible + counts.inFlight + counts.delayed).toBe(1);
    // One copy reached the forwarder: a second (sent again by the retry) would be skipped as delivered,
    // under a message id of its own. SQS may hand the one message out twice: that copy is skipped too, but
    // under the same id.
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    const partner = linesFor(inbox.lines, 'partner');
    expect(partner.filter((l) => l.attributes.outcome === 'delivered')).toHaveLength(1);
    expect(
      partner.every((l) => ['delivered', 'duplicate_skipped'].includes(String(l.attributes.outcome))),
    ).toBe(true);
    expect(new Set(partner.map((l) => l.attributes.messageId)).size).toBe(1);
    expect(await copiesOnPartnerQueue(inbox)).toBe(0);
  });

  it('runs no handler when the destinations do not list the handlers', async () => {
    const counter = effectCounter('standard-webhooks');
    forwarding = await startForwardingInbox(
      {
        destinations: {
          partner: { type: 'sqs', queueArn: 'arn:aws:sqs:us-east-1:123456789012:partner-orders' },
        },
      },
      counter.handlers,
    );
    const inbox = forwarding;
    expect(await inbox.deliver('msg_fan_2', BODY)).toBe(202);
    await expect
      .poll(() => inbox.history('msg_fan_2', 'partner'), { timeout: 20_000 })
      .toMatchObject({ state: 'delivered' });
    expect(counter.runs).toEqual([]);
  });
});
