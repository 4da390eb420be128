// forwardRecord's decisions over in-memory ports: what it sends, records and tells SQS, for the paths the
// pipeline tests cannot steer (a history that cannot be written, the last receive while disabled, a
// sender whose secret store is down).
import { describe, expect, it } from 'vitest';
import { parseConfig } from '../../../../../config';
import { forwarderTimeoutSeconds, queueVisibilitySeconds } from '../../../../../config/resources';
import type { AttemptResult } from '../../../../../lambdas/core/destinations/attempt';
import {
  type ForwardDeps,
  forwardRecord,
  WAIT_RECHECK_SECONDS,
} from '../../../../../lambdas/core/destinations/forward-record';
import {
  type ForwardState,
  parseForwardState,
  serializeForwardState,
} from '../../../../../lambdas/core/destinations/forward-state';
import type { DestinationStatus } from '../../../../../lambdas/core/destinations/ports';
import { buildEnvelope, MESSAGE_ATTRIBUTES, serializeEnvelope } from '../../../../../lambdas/core/envelope';
import { DependencyError } from '../../../../../lambdas/core/errors';
import type { QueueMessage } from '../../../../../lambdas/core/ports';
import { sha256Hex } from '../../../../../lambdas/core/schemes/primitives';

const config = parseConfig({
  destinations: {
    hooks: { type: 'http', url: 'https://hooks.example.com/in', retrySchedule: ['10s', '20s'] },
  },
});
const BODY = Buffer.from('{"type":"order.paid"}');
const envelope = buildEnvelope({
  provider: 'standard-webhooks',
  dedupKey: 'msg_1',
  eventType: 'order.paid',
  contentType: 'application/json',
  payloadSha256: sha256Hex(BODY),
  body: BODY,
  receivedAtMs: 1_000,
});

interface HarnessOptions {
  answer?: () => Promise<AttemptResult>;
  status?: DestinationStatus;
  putApplies?: boolean;
  /** Make one port fail as a dependency outage does. */
  failing?: 'status' | 'history-get' | 'history-put' | 'payload';
  config?: ForwardDeps['config'];
}

function harness(options: HarnessOptions = {}) {
  const delays: number[] = [];
  const sent: unknown[] = [];
  const requeued: QueueMessage[] = [];
  // Stored as the adapter stores it, the state's JSON, so a compare-and-set compares the same text.
  let stored: string | undefined;
  const history = () => (stored === undefined ? undefined : parseForwardState(stored));
  const deps: ForwardDeps = {
    config: options.config ?? config,
    senders: {
      http: {
        send: async (delivery) => {
          sent.push(delivery);
          return (options.answer ?? (async () => ({ kind: 'answered', status: 204 }) as AttemptResult))();
        },
      },
    },
    history: {
      get: async () => {
        if (options.failing === 'history-get') throw new DependencyError('dynamodb', 'GetItem');
        return history();
      },
      put: async (_pk, state, expect) => {
        if (options.failing === 'history-put') throw new DependencyError('dynamodb', 'UpdateItem');
        if (options.putApplies === false) return 'no_record';
        // As the adapter's condition: only a delivery replaces a delivered history, and with `expect`
        // only the history that was read is replaced.
        if (history()?.state === 'delivered' && state.state !== 'delivered') return 'delivered';
        const previous = expect?.previous && serializeForwardState(expect.previous);
        if (expect && previous !== stored) return 'changed';
        stored = serializeForwardState(state);
        return 'written';
      },
    },
    states: {
      status: async () => {
        if (options.failing === 'status') throw new DependencyError('dynamodb', 'GetItem');
        return options.status ?? { enabled: true };
      },
      disable: async () => undefined,
      enable: async () => undefined,
      count: async () => undefined,
      recent: async () => ({ delivered: 0, failed: 0 }),
    },
    payloads: {
      get: async () => {
        if (options.failing === 'payload') throw new DependencyError('s3', 'GetObject');
        return { body: BODY };
      },
      rewrite: async () => undefined,
    },
    messagesFor: () => ({ delay: async (_handle, seconds) => void delays.push(seconds) }),
    queues: {
      send: async (_id, message) => {
        requeued.push(message);
        return { messageId: 'copy' };
      },
    },
    clock: { now: () => 2_000 },
    random: () => 0.5,
    invocationStartedMs: 2_000,
  };
  const record = (receiveCount: number, messageId = 'm-1') => ({
    messageId,
    receiptHandle: 'rh',
    body: serializeEnvelope(envelope),
    receiveCount,
    sentTimestampMs: 1_000,
    attributes: { [MESSAGE_ATTRIBUTES.destination]: 'hooks' },
  });
  return {
    deps,
    record,
    delays,
    sent,
    requeued,
    history,
    setHistory: (state: ForwardState) => {
      stored = serializeForwardState(state);
    },
  };
}

describe('forwardRecord', () => {
  it("hides a 12-hour retry only as long as SQS allows from the receive, less the forwarder queue's visibility timeout the event source may have held it", async () => {
    const twelveHours = parseConfig({
      destinations: {
        hooks: { type: 'http', url: 'https://hooks.example.com/in', retrySchedule: ['12h', '12h'] },
      },
    });
    const h = harness({
      config: twelveHours,
      answer: async () => ({ kind: 'answered', status: 503, retryAfter: '86400' }),
    });
    // The forwarder queue's visibility timeout, and Lambda's 10 s Init limit on a cold start.
    const held = queueVisibilitySeconds(forwarderTimeoutSeconds(twelveHours)) + 10;
    expect(await forwardRecord(h.deps, h.record(1))).toMatchObject({ outcome: 'retry' });
    expect(h.delays).toEqual([43_200 - held]);
  });

  it('retries on the schedule, rather than draining, a give-up the history could not record', async () => {
    const h = harness({ answer: async () => ({ kind: 'answered', status: 400 }), putApplies: false });
    const result = await forwardRecord(h.deps, h.record(1));
    expect(result).toMatchObject({ outcome: 'retry', code: 'http_400', recorded: false });
    expect(h.delays).toEqual([5]); // full jitter: half of the 10 s step with random() = 0.5
  });

  it('drains a recorded give-up at once, and a later receive of that message sends nothing', async () => {
    const h = harness({ answer: async () => ({ kind: 'answered', status: 400 }) });
    expect(await forwardRecord(h.deps, h.record(1))).toMatchObject({
      outcome: 'dead_lettered',
      code: 'http_400',
    });
    expect(h.delays).toEqual([0]);
    expect(await forwardRecord(h.deps, h.record(2))).toMatchObject({ outcome: 'draining', code: 'http_400' });
    expect(h.sent).toHaveLength(1);
  });

  it('skips a delivery already delivered to the destination without sending', async () => {
    const h = harness();
    h.setHistory({ destination: 'hooks', state: 'delivered', attempts: 1, webhookId: 'msg_x' });
    expect(await forwardRecord(h.deps, h.record(1, 'm-2'))).toMatchObject({ outcome: 'duplicate_skipped' });
    expect(h.sent).toEqual([]);
  });

  it('counts no attempt when the sender cannot sign (its secret store is down): a retry, attempted false', async () => {
    const h = harness({
      answer: async () => {
        throw new DependencyError('secrets', 'GetSecretValue');
      },
    });
    expect(await forwardRecord(h.deps, h.record(1))).toMatchObject({
      outcome: 'retry',
      code: 'secrets_unavailable',
      attempted: false,
    });
    expect(h.history()?.attempts ?? 0).toBe(0);
  });

  it('while disabled, hides a waiting delivery for at most the recheck time, and never spends its last receive', async () => {
    const h = harness({ status: { enabled: false, reason: 'http_410' } });
    expect(await forwardRecord(h.deps, h.record(1))).toMatchObject({ outcome: 'waiting', delaySeconds: 5 });
    expect(h.requeued).toEqual([]);
    // maxReceiveCount is 3: the second receive is the last one that may wait; it goes to the queue anew.
    const second = await forwardRecord(h.deps, h.record(2));
    expect(second).toMatchObject({ outcome: 'waiting', requeued: true });
    expect(h.requeued).toHaveLength(1);
    expect(h.sent).toEqual([]);
    expect(h.history()).toMatchObject({ state: 'waiting', lastErrorCode: 'http_410' });
    expect(WAIT_RECHECK_SECONDS).toBeLessThanOrEqual(300);
  });

  it.each(['status', 'history-get'] as const)(
    'sends nothing and retries on the schedule when DynamoDB fails (%s), counting no attempt',
    async (failing) => {
      const h = harness({ failing });
      expect(await forwardRecord(h.deps, h.record(1))).toMatchObject({
        outcome: 'retry',
        code: 'dynamodb_unavailable',
        attempted: false,
      });
      expect(h.sent).toEqual([]);
      expect(h.delays).toEqual([5]);
    },
  );

  it('retries, sending nothing, a body kept in S3 while S3 is down', async () => {
    const h = harness({ failing: 'payload' });
    const large = buildEnvelope({
      provider: 'standard-webhooks',
      dedupKey: 'msg_large',
      eventType: 'order.paid',
      payloadSha256: sha256Hex(BODY),
      body: BODY,
      dataref: 's3://payloads/payloads/standard-webhooks/abc',
      receivedAtMs: 1_000,
    });
    const result = await forwardRecord(h.deps, { ...h.record(1), body: serializeEnvelope(large) });
    expect(result).toMatchObject({ outcome: 'retry', code: 's3_unavailable', attempted: false });
    expect(h.sent).toEqual([]);
  });

  it('acknowledges a delivered attempt whose history cannot be written, saying it was not recorded', async () => {
    const h = harness({ failing: 'history-put' });
    expect(await forwardRecord(h.deps, h.record(1))).toMatchObject({ outcome: 'delivered', recorded: false });
    expect(h.delays).toEqual([]);
  });

  it('on the last receive gives a failing delivery up to the redrive policy, recorded with its code', async () => {
    const h = harness({ answer: async () => ({ kind: 'answered', status: 503 }) });
    expect(await forwardRecord(h.deps, h.record(3))).toMatchObject({
      outcome: 'dead_lettered',
      code: 'http_503',
    });
    expect(h.delays).toEqual([0]);
    expect(h.history()).toMatchObject({ state: 'dead-lettered', deadLetterMessageId: 'm-1', attempts: 1 });
  });

  it('lets no failing copy undo a delivery another copy made at the same time: it is skipped, the history stays delivered', async () => {
    let answers = 0;
    const h = harness({
      answer: async () => {
        // The first copy's 200 arrives first; the second copy is refused by a receiver that dedups.
        const mine = answers++;
        await new Promise((resolve) => setTimeout(resolve, mine === 0 ? 0 : 5));
        return { kind: 'answered', status: mine === 0 ? 200 : 409 };
      },
    });
    const [first, second] = await Promise.all([
      forwardRecord(h.deps, h.record(1, 'm-1')),
      forwardRecord(h.deps, h.record(1, 'm-2')),
    ]);
    expect([first.outcome, second.outcome]).toEqual(['delivered', 'duplicate_skipped']);
    expect(h.history()).toMatchObject({ state: 'delivered', lastStatus: 200 });
    expect(h.delays).toEqual([]);
  });

  it('counts the attempts of two copies attempted at once: the later write finds the history moved, reads it and counts on top', async () => {
    let arrived = 0;
    let release: () => void = () => undefined;
    const bothSent = new Promise<void>((resolve) => {
      release = resolve;
    });
    const h = harness({
      answer: async () => {
        // Both copies have read the empty history and sent before either writes.
        if (++arrived === 2) release();
        await bothSent;
        return { kind: 'answered', status: 503 };
      },
    });
    const results = await Promise.all([
      forwardRecord(h.deps, h.record(1)),
      forwardRecord(h.deps, h.record(1)),
    ]);
    expect(results.map((r) => r.outcome)).toEqual(['retry', 'retry']);
    expect(h.sent).toHaveLength(2);
    expect(h.history()).toMatchObject({ state: 'retrying', attempts: 2, lastStatus: 503 });
  });

  it('counts both attempts when two copies delivered at once', async () => {
    let arrived = 0;
    let release: () => void = () => undefined;
    const bothSent = new Promise<void>((resolve) => {
      release = resolve;
    });
    const h = harness({
      answer: async () => {
        if (++arrived === 2) release();
        await bothSent;
        return { kind: 'answered', status: 200 };
      },
    });
    const results = await Promise.all([
      forwardRecord(h.deps, h.record(1)),
      forwardRecord(h.deps, h.record(1)),
    ]);
    expect(results.map((r) => [r.outcome, r.recorded])).toEqual([
      ['delivered', undefined],
      ['delivered', undefined],
    ]);
    expect(h.history()).toMatchObject({ state: 'delivered', attempts: 2 });
  });

  it('holds a second copy of a delivery waiting out its retry until the retry is due, sending nothing', async () => {
    const h = harness();
    h.setHistory({
      destination: 'hooks',
      state: 'retrying',
      attempts: 1,
      webhookId: 'msg_x',
      lastStatus: 429,
      nextAttemptAt: new Date(2_000 + 4_200).toISOString(),
    });
    expect(await forwardRecord(h.deps, h.record(2))).toMatchObject({ outcome: 'held', delaySeconds: 5 });
    expect(h.sent).toEqual([]);
    expect(h.delays).toEqual([5]);
    expect(h.requeued).toEqual([]);
    // The history is the retry's, untouched.
    expect(h.history()).toMatchObject({ state: 'retrying', attempts: 1, lastStatus: 429 });
  });

  it('on the last receive, sends a held copy to the queue anew (delayed until the retry) rather than spend the receive', async () => {
    const h = harness();
    h.setHistory({
      destination: 'hooks',
      state: 'retrying',
      attempts: 2,
      webhookId: 'msg_x',
      nextAttemptAt: new Date(2_000 + 7_000).toISOString(),
    });
    // maxReceiveCount is 3: hiding the copy again would send its next receive to the DLQ.
    expect(await forwardRecord(h.deps, h.record(3))).toMatchObject({
      outcome: 'held',
      delaySeconds: 7,
      requeued: true,
    });
    expect(h.requeued).toMatchObject([{ delaySeconds: 7 }]);
    expect(h.delays).toEqual([]);
    expect(h.sent).toEqual([]);
    expect(h.history()).toMatchObject({ state: 'retrying', requeuedAs: 'copy', receivesBefore: 2 });
  });

  it('lets the message a held copy was sent anew as carry on the schedule: its first receive is the last one', async () => {
    const h = harness({ answer: async () => ({ kind: 'answered', status: 503 }) });
    h.setHistory({
      destination: 'hooks',
      state: 'retrying',
      attempts: 2,
      webhookId: 'msg_x',
      nextAttemptAt: new Date(2_000).toISOString(),
      requeuedAs: 'copy',
      receivesBefore: 2,
    });
    expect(await forwardRecord(h.deps, h.record(1, 'copy'))).toMatchObject({
      outcome: 'dead_lettered',
      attempt: 3,
    });
    expect(h.history()).toMatchObject({ state: 'dead-lettered', attempts: 3, deadLetterMessageId: 'copy' });
    expect(h.history()).not.toHaveProperty('requeuedAs');
  });

  it('keeps the carried receives through a retry of that message, and not for another message', async () => {
    const carriedHistory = {
      state: 'retrying' as const,
      destination: 'hooks',
      attempts: 1,
      webhookId: 'msg_x',
      nextAttemptAt: new Date(2_000).toISOString(),
      requeuedAs: 'copy',
      receivesBefore: 1,
    };
    const carried = harness({ answer: async () => ({ kind: 'answered', status: 503 }) });
    carried.setHistory(carriedHistory);
    // Receive 1 of the new message is the schedule's second: the 20 s step, half of it with random() 0.5.
    expect(await forwardRecord(carried.deps, carried.record(1, 'copy'))).toMatchObject({
      outcome: 'retry',
      delaySeconds: 10,
    });
    expect(carried.history()).toMatchObject({ requeuedAs: 'copy', receivesBefore: 1, attempts: 2 });
    // A redriven copy (a message of its own) starts the schedule again.
    const redriven = harness({ answer: async () => ({ kind: 'answered', status: 503 }) });
    redriven.setHistory(carriedHistory);
    expect(await forwardRecord(redriven.deps, redriven.record(1, 'm-redriven'))).toMatchObject({
      outcome: 'retry',
      delaySeconds: 5,
    });
    expect(redriven.history()).not.toHaveProperty('requeuedAs');
  });

  it('attempts the retry itself when it comes back as its history says (within half a second)', async () => {
    const h = harness();
    h.setHistory({
      destination: 'hooks',
      state: 'retrying',
      attempts: 1,
      webhookId: 'msg_x',
      nextAttemptAt: new Date(2_000 + 300).toISOString(),
    });
    expect(await forwardRecord(h.deps, h.record(2))).toMatchObject({ outcome: 'delivered', attempt: 2 });
  });

  it('writes a retry time no earlier than the message comes back', async () => {
    let nowMs = 2_000;
    const h = harness({ answer: async () => ({ kind: 'answered', status: 503 }) });
    const hiddenAt: number[] = [];
    h.deps.clock = { now: () => (nowMs += 10) };
    h.deps.messagesFor = () => ({ delay: async () => void hiddenAt.push(nowMs) });
    const result = await forwardRecord(h.deps, h.record(1));
    expect(result).toMatchObject({ outcome: 'retry', delaySeconds: 5 });
    expect(Date.parse(h.history()?.nextAttemptAt ?? '')).toBeLessThanOrEqual((hiddenAt[0] as number) + 5_000);
  });

  it('starts the schedule again for a redriven copy, while its attempt number keeps counting', async () => {
    const h = harness({ answer: async () => ({ kind: 'answered', status: 503 }) });
    h.setHistory({
      destination: 'hooks',
      state: 'dead-lettered',
      attempts: 6,
      webhookId: 'msg_x',
      deadLetterMessageId: 'm-old',
    });
    const result = await forwardRecord(h.deps, h.record(1, 'm-redriven'));
    expect(result).toMatchObject({ outcome: 'retry', attempt: 7, delaySeconds: 5 });
  });
});
