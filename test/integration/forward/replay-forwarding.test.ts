// A replay reaches the destinations again: it forgets the record's fan-out mark and each destination's
// history, so the processor sends the copy again and the forwarder delivers it rather than skipping it
// as delivered. Against local mode's processor and forwarder, on the emulators.
import { afterEach, describe, expect, it } from 'vitest';
import { openReplayTarget, replayOne } from '../../../cli/operations/replay-deliveries';
import type { Target } from '../../../cli/shared/target-types';
import { SqsQueueOps } from '../../../lambdas/adapters/sqs-queue-ops';
import { type ForwardingInbox, linesFor, startForwardingInbox } from '../../support/forwarding';

const BODY = '{"type":"order.paid","timestamp":"2026-12-01T09:00:00Z","data":{"id":"ord_1"}}';
let forwarding: ForwardingInbox | undefined;

afterEach(async () => {
  await forwarding?.stop();
  forwarding = undefined;
});

describe('a replay with destinations', () => {
  it('is forwarded again, with the history starting over', async () => {
    forwarding = await startForwardingInbox({
      destinations: {
        partner: { type: 'sqs', queueArn: 'arn:aws:sqs:us-east-1:123456789012:partner-orders' },
      },
    });
    const inbox = forwarding;
    expect(await inbox.deliver('msg_replay_fwd', BODY)).toBe(202);
    await expect
      .poll(() => inbox.history('msg_replay_fwd', 'partner'), { timeout: 20_000 })
      .toMatchObject({ state: 'delivered', attempts: 1 });

    const target = {
      kind: 'local',
      config: inbox.config,
      ...inbox.inbox.state,
      clients: async () => inbox.inbox.clients,
    } as unknown as Target;
    const outcome = await replayOne(await openReplayTarget(target), 'standard-webhooks', 'msg_replay_fwd');
    expect(outcome.kind).toBe('replayed');

    await expect
      // SQS may hand a copy out twice; the forwarder skips the second (duplicate_skipped), as it should.
      .poll(
        () =>
          linesFor(inbox.lines, 'partner')
            .map((line) => line.attributes.outcome)
            .filter((outcome) => outcome !== 'duplicate_skipped'),
        { timeout: 20_000 },
      )
      .toEqual(['delivered', 'delivered']);
    const partnerQueue = inbox.inbox.state.destinations?.partner?.targetQueueUrl as string;
    const counts = await new SqsQueueOps(inbox.inbox.clients.sqs).counts(partnerQueue);
    expect(counts.visible + counts.inFlight + counts.delayed).toBe(2);
  });
});
