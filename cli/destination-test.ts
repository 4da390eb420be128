// `webhook-inbox destinations test <id>`: one signed test event through the forwarder's own sender for
// the destination, from this machine, judged by the forwarder's own rules; nothing is recorded.
import { randomBytes } from 'node:crypto';
import type { ForwardDestination } from '../config';
import { type AttemptVerdict, judgeAttempt } from '../lambdas/core/destinations/attempt';
import type { DestinationSender } from '../lambdas/core/destinations/ports';
import { webhookId as webhookIdOf } from '../lambdas/core/destinations/signing';
import { buildEnvelope } from '../lambdas/core/envelope';
import { sha256Hex } from '../lambdas/core/schemes/primitives';
import type { Target } from './target-types';

export const TEST_EVENT_TYPE = 'webhook-inbox.test';
export const TEST_PROVIDER = 'webhook-inbox';

export interface TestOutcome {
  id: string;
  webhookId: string;
  status?: number;
  code?: string;
  verdict: AttemptVerdict['kind'];
  /** What the forwarder would do with this answer. */
  meaning: string;
  durationMs: number;
}

const MEANING: Record<AttemptVerdict['kind'], string> = {
  delivered: 'delivered',
  retry: 'the forwarder would retry this on its schedule',
  permanent: 'the forwarder would dead-letter this at once',
  gone: 'the forwarder would disable this destination (410 Gone) until `destinations enable`',
};

async function senderFor(target: Target, destination: ForwardDestination): Promise<DestinationSender> {
  const { targetSenders } = await import('./destination-senders');
  const sender = (await targetSenders(target))[destination.type];
  if (!sender) throw new Error(`no sender for ${destination.type}`);
  return sender;
}

export async function sendTestDelivery(
  target: Target,
  destination: ForwardDestination,
): Promise<TestOutcome> {
  const nowMs = Date.now();
  const body = Buffer.from(
    JSON.stringify({
      type: TEST_EVENT_TYPE,
      timestamp: new Date(nowMs).toISOString(),
      data: {
        destination: destination.id,
        message: 'a test delivery from `webhook-inbox destinations test`',
      },
    }),
  );
  const dedupKey = `test_${randomBytes(8).toString('hex')}`;
  const envelope = buildEnvelope({
    provider: TEST_PROVIDER,
    dedupKey,
    eventType: TEST_EVENT_TYPE,
    contentType: 'application/json',
    payloadSha256: sha256Hex(body),
    body,
    receivedAtMs: nowMs,
  });
  // Its own id (the dedup key is random), in the form of every other: a receiver that dedups on
  // webhook-id must not take a second test for the first.
  const webhookId = webhookIdOf(envelope.id);
  const sender = await senderFor(target, destination);
  const started = performance.now();
  const result = await sender.send({ destination, webhookId, envelope, body, attempt: 1, nowMs });
  const durationMs = Math.round(performance.now() - started);
  const verdict = judgeAttempt(result, Date.now());
  return {
    id: destination.id,
    webhookId,
    ...(result.kind === 'answered' ? { status: result.status } : {}),
    ...(verdict.kind === 'delivered' ? {} : { code: verdict.code }),
    verdict: verdict.kind,
    meaning: MEANING[verdict.kind],
    durationMs,
  };
}
