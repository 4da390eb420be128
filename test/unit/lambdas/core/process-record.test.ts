// processRecord's decisions over in-memory ports: the lease, the archive, the fan-out, the handler and its
// cut-off, the marks, and what SQS is told, for one record at a time. The inbox is MemoryInbox, which runs
// the lifecycle kernel's own transitions; the integration suites (test/integration/process) show the same
// against the emulators, slowly.
import { describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import { type Config, parseConfig } from '../../../../config';
import { recordLifetimes } from '../../../../config/retention';
import { attemptEntries } from '../../../../lambdas/core/attempt-log';
import {
  buildEnvelope,
  type Envelope,
  envelopeAttributes,
  MESSAGE_ATTRIBUTES,
  serializeEnvelope,
} from '../../../../lambdas/core/envelope';
import {
  defineEvent,
  type EventContext,
  type EventDefinition,
} from '../../../../lambdas/core/events/define-event';
import { PermanentError } from '../../../../lambdas/core/events/handler-errors';
import { inboxKey } from '../../../../lambdas/core/inbox';
import { type ProcessDeps, processRecord, type QueueRecord } from '../../../../lambdas/core/process-record';
import { sha256Hex } from '../../../../lambdas/core/schemes/primitives';
import { MemoryInbox } from '../../../support/memory-inbox';
import {
  LogSink,
  ManualClock,
  MemoryForwardQueues,
  MemoryMessages,
  MemoryPayloads,
  MemoryResourceVersions,
} from '../../../support/memory-ports';

const T0 = Date.UTC(2026, 10, 30, 12, 0, 0);
const LEASE_MS = 60_000;
const PROVIDER = 'standard-webhooks';
const TYPE = 'order.paid';
const DEDUP_KEY = 'msg_1';
const PK = inboxKey(PROVIDER, DEDUP_KEY);

// Two retry steps: three receives (maxReceiveCount 3). With random() = 0.5 the first retry waits 23 s
// (a draw between 15 and 30) and the second 90 s (between 60 and 120).
const FIRST_RETRY_SECONDS = 23;
const SECOND_RETRY_SECONDS = 90;
const LAST_RECEIVE = 3;
const config = parseConfig(configInput());

const BODY = Buffer.from(JSON.stringify({ type: TYPE, amount: 12 }));

function envelopeOf(options: { body?: Buffer; type?: string; provider?: string; dataref?: string } = {}) {
  const body = options.body ?? BODY;
  return buildEnvelope({
    provider: options.provider ?? PROVIDER,
    dedupKey: DEDUP_KEY,
    eventType: options.type ?? TYPE,
    contentType: 'application/json',
    payloadSha256: sha256Hex(body),
    body,
    ...(options.dataref === undefined ? {} : { dataref: options.dataref }),
    receivedAtMs: T0 - 1_000,
  });
}

interface HarnessOptions {
  config?: Config;
  /** The handler for `order.paid` (and the strict provider's); by default it succeeds. */
  handle?: EventDefinition['handle'];
  handlers?: EventDefinition[];
  leaseMs?: number;
  /** How long the invocation has, from T0. */
  invocationMs?: number;
  signal?: AbortSignal;
}

function harness(options: HarnessOptions = {}) {
  const clock = new ManualClock(T0);
  const inbox = new MemoryInbox(() => clock.now());
  const payloads = new MemoryPayloads(clock);
  const messages = new MemoryMessages();
  const versions = new MemoryResourceVersions();
  const forwards = new MemoryForwardQueues();
  const sink = new LogSink();
  const runs: EventContext[] = [];
  const started: string[] = [];
  const handle = options.handle ?? (() => undefined);
  const schema = z.object({ type: z.string(), amount: z.number() });
  const handlers = options.handlers ?? [
    defineEvent({
      provider: PROVIDER,
      type: TYPE,
      schema,
      handle: (data, ctx) => {
        runs.push(ctx);
        return handle(data, ctx);
      },
    }),
    defineEvent({
      provider: 'strict',
      type: TYPE,
      schema,
      handle: (_data, ctx) => void runs.push(ctx),
    }),
  ];
  const deps: ProcessDeps = {
    config: options.config ?? config,
    inbox,
    payloads,
    messages,
    versions,
    handlers,
    clock,
    random: () => 0.5,
    leaseMs: options.leaseMs ?? LEASE_MS,
    invocationStartedMs: T0,
    deadlineMs: T0 + (options.invocationMs ?? 60_000),
    // The write retries' waits pass on the test's clock, not the wall clock.
    sleep: async (ms) => clock.advance(ms),
    log: sink.log,
    ...(options.signal === undefined ? {} : { signal: options.signal }),
    onStarted: (messageId) => void started.push(messageId),
    forwards,
  };
  const record = (receiveCount = 1, messageId = 'm-1', envelope: Envelope = envelopeOf()): QueueRecord => ({
    messageId,
    receiptHandle: `rh-${messageId}-${receiveCount}`,
    body: serializeEnvelope(envelope),
    receiveCount,
    sentTimestampMs: T0 - 1_000,
    attributes: envelopeAttributes(envelope),
  });
  const run = (receiveCount = 1, messageId = 'm-1', envelope?: Envelope) =>
    processRecord(deps, record(receiveCount, messageId, envelope));
  /** A receive in another invocation, starting now on the test's clock. */
  const runElsewhere = (receiveCount: number, messageId: string) =>
    processRecord(
      { ...deps, invocationStartedMs: clock.now(), deadlineMs: clock.now() + deps.deadlineMs - T0 },
      record(receiveCount, messageId),
    );
  return {
    deps,
    clock,
    inbox,
    payloads,
    messages,
    versions,
    forwards,
    sink,
    runs,
    started,
    record,
    run,
    runElsewhere,
  };
}

class DownstreamError extends Error {
  readonly code = 'downstream_timeout';
}
const failing = () => {
  throw new DownstreamError('the downstream timed out');
};

describe('processRecord: the lease decides what runs', () => {
  it('runs the handler once with the delivery facts and marks the delivery processed', async () => {
    const h = harness();
    expect(await h.run()).toMatchObject({
      outcome: 'processed',
      provider: PROVIDER,
      eventType: TYPE,
      dedupKey: DEDUP_KEY,
      ageMs: 1_000,
    });
    expect(h.runs).toHaveLength(1);
    expect(h.runs[0]).toMatchObject({ idempotencyKey: `${PROVIDER}:${DEDUP_KEY}`, receiveCount: 1 });
    expect(h.runs[0]?.rawBody.equals(BODY)).toBe(true);
    expect(h.started).toEqual(['m-1']);
    expect(h.inbox.peek(PK)).toMatchObject({ status: 'processed', processedAt: new Date(T0).toISOString() });
    // Acknowledged: the Lambda layer deletes the message; its visibility is left alone.
    expect(h.messages.delays).toEqual([]);
  });

  it('skips a second copy of a processed delivery (duplicate_skipped) without running it again', async () => {
    const h = harness();
    await h.run(1, 'm-1');
    const before = h.inbox.item(PK);
    expect(await h.run(1, 'm-2')).toMatchObject({ outcome: 'duplicate_skipped' });
    expect(h.runs).toHaveLength(1);
    expect(h.inbox.item(PK)).toEqual(before);
  });

  it('answers a copy that finds a live lease with a retry after that lease, not on the schedule', async () => {
    let inner: Awaited<ReturnType<typeof processRecord>> | undefined;
    let nested = false;
    const h = harness({
      // SQS hands the same message out twice at once: the second copy arrives while the first runs.
      handle: async () => {
        if (nested) return;
        nested = true;
        inner = await h.run(1, 'm-1');
      },
    });
    expect(await h.run(1, 'm-1')).toMatchObject({ outcome: 'processed' });
    expect(inner).toEqual(
      expect.objectContaining({
        outcome: 'retry',
        code: 'lease_held',
        delaySeconds: LEASE_MS / 1000 + 1,
      }),
    );
    expect(h.runs).toHaveLength(1);
    expect(h.messages.seconds()).toEqual([LEASE_MS / 1000 + 1]);
  });

  it('waits the schedule, not less, for a held lease about to lapse', async () => {
    let inner: Awaited<ReturnType<typeof processRecord>> | undefined;
    let nested = false;
    const h = harness({
      handle: async () => {
        if (nested) return;
        nested = true;
        h.clock.advance(LEASE_MS - 2_000);
        inner = await h.run(1, 'm-1');
      },
    });
    await h.run(1, 'm-1');
    expect(inner).toMatchObject({ outcome: 'retry', code: 'lease_held', delaySeconds: FIRST_RETRY_SECONDS });
  });

  it('on the last receive gives up a copy whose lease is held, recording nothing (the lease is not its own)', async () => {
    let inner: Awaited<ReturnType<typeof processRecord>> | undefined;
    let nested = false;
    const h = harness({
      handle: async () => {
        if (nested) return;
        nested = true;
        inner = await h.run(LAST_RECEIVE, 'm-1');
      },
    });
    await h.run(1, 'm-1');
    expect(inner).toMatchObject({ outcome: 'dead_lettered', code: 'lease_held', recorded: false });
    expect(h.messages.seconds()).toEqual([0]);
    expect(h.inbox.peek(PK)?.status).toBe('processed');
  });

  it('never runs a copy whose bytes differ from the record under its key, and leaves that record alone', async () => {
    const h = harness();
    await h.run(1, 'm-1');
    const before = h.inbox.item(PK);
    const other = envelopeOf({ body: Buffer.from(JSON.stringify({ type: TYPE, amount: 99 })) });
    expect(await h.run(1, 'm-2', other)).toMatchObject({
      outcome: 'dead_lettered',
      code: 'payload_conflict',
      recorded: false,
    });
    expect(h.runs).toHaveLength(1);
    expect(h.inbox.item(PK)).toEqual(before);
    expect(h.messages.seconds()).toEqual([0]);
  });

  it('never runs the same bytes named as another event type (event_type_conflict), even before the first ran', async () => {
    const h = harness({ handle: failing });
    await h.run(1, 'm-1');
    const before = h.inbox.item(PK);
    expect(await h.run(1, 'm-2', envelopeOf({ type: 'order.refunded' }))).toMatchObject({
      outcome: 'dead_lettered',
      code: 'event_type_conflict',
    });
    expect(h.runs).toHaveLength(1);
    expect(h.inbox.item(PK)).toEqual(before);
  });

  it('recreates a record that TTL deleted from the message, then runs it', async () => {
    const h = harness();
    // Never claimed here, as if the record had been deleted since: the lease writes it from the envelope.
    expect(await h.run()).toMatchObject({ outcome: 'processed' });
    const lifetimes = recordLifetimes(config, config.providers[PROVIDER]);
    const nowSec = Math.floor(T0 / 1000);
    expect(h.inbox.peek(PK)).toMatchObject({
      provider: PROVIDER,
      dedupKey: DEDUP_KEY,
      payloadSha256: sha256Hex(BODY),
      eventType: TYPE,
      expiresAt: nowSec + lifetimes.ttlSeconds,
      dedupUntil: nowSec + lifetimes.dedupSeconds,
      receivedAt: new Date(T0).toISOString(),
      attempts: 0,
      status: 'processed',
    });
    expect(h.inbox.item(PK)).toHaveProperty('listKey');
  });

  it('recreates the record when TTL deletes it between two receives, and the retry runs', async () => {
    let calls = 0;
    const h = harness({ handle: () => (calls++ === 0 ? failing() : undefined) });
    await h.run(1);
    h.inbox.delete(PK);
    h.clock.advance(FIRST_RETRY_SECONDS * 1000);
    expect(await h.run(2)).toMatchObject({ outcome: 'processed' });
    expect(h.inbox.peek(PK)).toMatchObject({ status: 'processed', attempts: 0 });
  });
});

describe('processRecord: failures, retries and giving up', () => {
  it('marks a transient failure failed, releases the lease, and hides the message for the scheduled wait', async () => {
    const h = harness({ handle: failing });
    expect(await h.run(1)).toMatchObject({
      outcome: 'retry',
      code: 'downstream_timeout',
      delaySeconds: FIRST_RETRY_SECONDS,
    });
    const record = h.inbox.peek(PK);
    expect(record).toMatchObject({ status: 'failed', attempts: 1, lastErrorCode: 'downstream_timeout' });
    expect(record?.processingToken).toBeUndefined();
    expect(attemptEntries(record?.attemptLog)).toEqual([
      expect.objectContaining({ errorCode: 'downstream_timeout', receiveCount: 1, outcome: 'failed' }),
    ]);
    expect(h.messages.delays).toEqual([{ receiptHandle: 'rh-m-1-1', seconds: FIRST_RETRY_SECONDS }]);
  });

  it('waits the second step after a second failure, and a later receive runs it: two attempts counted', async () => {
    let calls = 0;
    const h = harness({ handle: () => (calls++ < 2 ? failing() : undefined) });
    await h.run(1);
    expect(await h.run(2)).toMatchObject({ outcome: 'retry', delaySeconds: SECOND_RETRY_SECONDS });
    expect(await h.run(3)).toMatchObject({ outcome: 'processed' });
    expect(h.inbox.peek(PK)).toMatchObject({ status: 'processed', attempts: 2 });
  });

  it('waits out its own lease when the failed mark cannot be written, so the next receive does not find it held', async () => {
    const h = harness({ handle: failing });
    h.inbox.failNext('markFailed');
    expect(await h.run(1)).toMatchObject({ outcome: 'retry', delaySeconds: LEASE_MS / 1000 + 1 });
    expect(h.inbox.peek(PK)?.status).toBe('processing');
  });

  it('on the last receive gives up: dead-lettered naming the message, and handed back at once for the redrive policy', async () => {
    const h = harness({ handle: failing });
    expect(await h.run(LAST_RECEIVE)).toMatchObject({
      outcome: 'dead_lettered',
      code: 'downstream_timeout',
      recorded: true,
    });
    expect(h.inbox.peek(PK)).toMatchObject({
      status: 'dead-lettered',
      deadLetterMessageId: 'm-1',
      givenUpMessageIds: ['m-1'],
      lastErrorCode: 'downstream_timeout',
      attempts: 1,
    });
    expect(h.messages.seconds()).toEqual([0]);
  });

  it('drains a later receive of a given-up message without running it, and runs a redriven copy', async () => {
    let calls = 0;
    const h = harness({ handle: () => (calls++ === 0 ? failing() : undefined) });
    await h.run(LAST_RECEIVE, 'm-1');
    expect(await h.run(LAST_RECEIVE + 1, 'm-1')).toMatchObject({
      outcome: 'draining',
      code: 'downstream_timeout',
    });
    expect(h.runs).toHaveLength(1);
    expect(h.messages.seconds()).toEqual([0, 0]);
    // A redrive sends the delivery as a new message: it is not the one given up.
    expect(await h.run(1, 'm-redriven')).toMatchObject({ outcome: 'processed' });
    expect(h.runs).toHaveLength(2);
  });

  it('gives a permanent failure up on its first receive, recorded', async () => {
    const h = harness({
      handle: () => {
        throw new PermanentError('order_unknown');
      },
    });
    expect(await h.run(1)).toMatchObject({ outcome: 'dead_lettered', code: 'order_unknown', recorded: true });
    expect(h.inbox.peek(PK)).toMatchObject({ status: 'dead-lettered', lastErrorCode: 'order_unknown' });
  });

  it('gives a body that does not match the schema up with the failing fields, on the record too', async () => {
    const h = harness();
    const body = Buffer.from(JSON.stringify({ type: TYPE, amount: 'twelve' }));
    const result = await h.run(1, 'm-1', envelopeOf({ body }));
    expect(result).toMatchObject({ outcome: 'dead_lettered', code: 'schema_mismatch', recorded: true });
    const detail = (result as { detail?: string }).detail;
    expect(detail).toContain('amount');
    expect(detail).not.toContain('twelve');
    expect(h.inbox.peek(PK)?.lastErrorDetail).toBe(detail);
    expect(h.runs).toEqual([]);
  });

  it('gives a body that is not JSON up as not_json without running the handler', async () => {
    const h = harness();
    expect(await h.run(1, 'm-1', envelopeOf({ body: Buffer.from('not json') }))).toMatchObject({
      outcome: 'dead_lettered',
      code: 'not_json',
    });
    expect(h.runs).toEqual([]);
  });

  it('puts the give-up off, waiting out its lease, when the dead-lettered mark cannot be written before the last receive', async () => {
    const h = harness({
      handle: () => {
        throw new PermanentError('order_unknown');
      },
    });
    h.inbox.failNext('markDeadLettered', 6);
    const result = await h.run(1);
    const leaseLeft = Math.ceil((T0 + LEASE_MS - h.clock.now()) / 1000) + 1;
    expect(result).toMatchObject({ outcome: 'retry', code: 'order_unknown', delaySeconds: leaseLeft });
    expect(h.inbox.peek(PK)?.status).toBe('processing');
  });

  it('on the last receive gives up all the same when the dead-lettered mark cannot be written (recorded false)', async () => {
    const h = harness({ handle: failing });
    h.inbox.failNext('markDeadLettered', 6);
    expect(await h.run(LAST_RECEIVE)).toMatchObject({ outcome: 'dead_lettered', recorded: false });
    expect(h.messages.seconds()).toEqual([0]);
  });

  it.each(['lost_then_throw', 'lost_then_retry'] as const)(
    'knows a dead-lettered mark applied with its answer lost (%s) by its read-back: recorded',
    async (fault) => {
      const h = harness({ handle: failing });
      h.inbox.failNext('markDeadLettered', 1, fault);
      expect(await h.run(LAST_RECEIVE)).toMatchObject({ outcome: 'dead_lettered', recorded: true });
      expect(h.inbox.peek(PK)).toMatchObject({ status: 'dead-lettered', attempts: 1 });
    },
  );

  it('gives a message that is not an envelope up without touching the inbox', async () => {
    const h = harness();
    const result = await processRecord(h.deps, { ...h.record(1), body: '{"not":"an envelope"}' });
    expect(result).toMatchObject({ outcome: 'dead_lettered', code: 'malformed_envelope', recorded: false });
    expect(h.inbox.calls).toEqual([]);
    expect(h.messages.seconds()).toEqual([0]);
  });

  it.each([
    [
      'an event type verify would refuse (a bidirectional override)',
      { type: 'push\u202egnp' },
      'bad_event_type',
    ],
    ['an event type verify would refuse (a space)', { type: 'push now' }, 'bad_event_type'],
    ['a delivery id verify would refuse', { deliveryid: 'a b,c' }, 'malformed_id'],
  ])('dead-letters an envelope with %s, running nothing and touching no record', async (_, change, code) => {
    const h = harness();
    const record = h.record(1);
    const body = JSON.stringify({ ...JSON.parse(record.body), ...change });
    const result = await processRecord(h.deps, { ...record, body });
    expect(result).toMatchObject({ outcome: 'dead_lettered', code, recorded: false });
    expect(h.inbox.calls).toEqual([]);
    expect(h.runs).toEqual([]);
  });

  it('reports the retry even when the visibility change fails (the queue timeout brings the message back)', async () => {
    const h = harness({ handle: failing });
    h.messages.failNext();
    expect(await h.run(1)).toMatchObject({ outcome: 'retry', delaySeconds: FIRST_RETRY_SECONDS });
    expect(h.messages.delays).toEqual([]);
  });

  it('never asks for more visibility than SQS allows counted from the receive', async () => {
    const h = harness({
      config: parseConfig({ ...configInput(), queue: { retrySchedule: ['12h', '12h'] } }),
      handle: failing,
    });
    h.deps.random = () => 0.999_999;
    const result = await h.run(1);
    // 12 h less the invocation so far and what the record may have waited before it: the batching window
    // and the queue's visibility timeout (six times the 61 s the function may run), and a cold start's
    // Init phase (at most 10 s).
    expect(result).toMatchObject({ outcome: 'retry', delaySeconds: 43_200 - 0 - 6 * 61 - 10 });
  });
});

describe('processRecord: the inbox failing or answering late', () => {
  it('retries on the schedule, running nothing, when the lease cannot be taken', async () => {
    const h = harness();
    h.inbox.failNext('beginProcessing');
    expect(await h.run(1)).toMatchObject({
      outcome: 'retry',
      code: 'dynamodb_unavailable',
      delaySeconds: FIRST_RETRY_SECONDS,
    });
    expect(h.runs).toEqual([]);
    expect(h.inbox.peek(PK)).toBeUndefined();
  });

  it('on the last receive gives the message up, unrecorded, when the lease cannot be taken', async () => {
    const h = harness();
    h.inbox.failNext('beginProcessing');
    expect(await h.run(LAST_RECEIVE)).toMatchObject({
      outcome: 'dead_lettered',
      code: 'dynamodb_unavailable',
      recorded: false,
    });
    expect(h.messages.seconds()).toEqual([0]);
  });

  it('runs the handler once when the lease applied and its answer was lost (the SDK sent it again)', async () => {
    const h = harness();
    h.inbox.failNext('beginProcessing', 1, 'lost_then_retry');
    expect(await h.run(1)).toMatchObject({ outcome: 'processed' });
    expect(h.runs).toHaveLength(1);
    expect(h.inbox.peek(PK)?.status).toBe('processed');
  });

  it('hands back a lease applied whose answer was lost for good, so it does not cost the delivery its last receive', async () => {
    // The processor's default 30 s timeout makes a 35 s lease; a schedule of two 30 s steps. Receive 2 of
    // 3: the lease is written but the SDK gives up, and the processor retries on the schedule (23 s),
    // leaving its own lease behind without waiting it out. The last receive then finds that lease live
    // and gives the delivery up as lease_held, never having run it.
    const h = harness({
      config: parseConfig({ ...configInput(), queue: { retrySchedule: ['30s', '30s'] } }),
      leaseMs: 35_000,
    });
    h.inbox.failNext('beginProcessing', 1, 'lost_then_throw');
    const second = await h.run(2);
    expect(second).toMatchObject({ outcome: 'retry', code: 'dynamodb_unavailable', delaySeconds: 23 });
    h.clock.advance(23_000);
    expect(await h.runElsewhere(LAST_RECEIVE, 'm-1')).toMatchObject({ outcome: 'processed' });
    expect(h.runs).toHaveLength(1);
  });

  it('waits out a lease applied whose answer was lost for good when handing it back fails too', async () => {
    // As above, but DynamoDB also refuses the hand-back: the lease stays ours and live for 35 s. The retry
    // must then wait it out (as every other path that cannot release its lease does), or the last receive
    // finds it live and gives the delivery up as lease_held, never having run it.
    const h = harness({
      config: parseConfig({ ...configInput(), queue: { retrySchedule: ['30s', '30s'] } }),
      leaseMs: 35_000,
    });
    h.inbox.failNext('beginProcessing', 1, 'lost_then_throw');
    h.inbox.failNext('releaseLease');
    const second = await h.run(2);
    expect(second).toMatchObject({ outcome: 'retry', code: 'dynamodb_unavailable' });
    h.clock.advance((second as { delaySeconds: number }).delaySeconds * 1000);
    expect(await h.runElsewhere(LAST_RECEIVE, 'm-1')).toMatchObject({ outcome: 'processed' });
    expect(h.runs).toHaveLength(1);
  });

  it('retries a processed mark that fails for a while, within the invocation', async () => {
    const h = harness();
    h.inbox.failNext('markProcessed', 2);
    const result = await h.run(1);
    expect(result).toMatchObject({ outcome: 'processed' });
    expect(result).not.toHaveProperty('markFailed');
    expect(h.inbox.peek(PK)?.status).toBe('processed');
  });

  it('acknowledges an effect whose processed mark cannot be written (markFailed), and does not run it again', async () => {
    const h = harness();
    h.inbox.failNext('markProcessed', 6);
    expect(await h.run(1)).toMatchObject({ outcome: 'processed', markFailed: true });
    expect(h.runs).toHaveLength(1);
    // Neither a retry nor a give-up: the message is deleted, and no failed mark releases the lease for a
    // second run while it is live.
    expect(h.messages.delays).toEqual([]);
    expect(h.inbox.calls).not.toContain('markFailed');
    expect(h.inbox.peek(PK)?.status).toBe('processing');
    expect(await h.run(1, 'm-copy')).toMatchObject({ outcome: 'retry', code: 'lease_held' });
    expect(h.runs).toHaveLength(1);
  });

  it.each(['lost_then_throw', 'lost_then_retry'] as const)(
    'finds its own processed mark applied with its answer lost (%s): marked, no lease lost',
    async (fault) => {
      const h = harness();
      h.inbox.failNext('markProcessed', 1, fault);
      const result = await h.run(1);
      expect(result).toMatchObject({ outcome: 'processed' });
      expect(result).not.toHaveProperty('markFailed');
      expect(result).not.toHaveProperty('leaseLost');
    },
  );

  it('says leaseLost when another worker took the lease over while the handler outlived it', async () => {
    let inner: Awaited<ReturnType<typeof processRecord>> | undefined;
    let nested = false;
    const h = harness({
      // The second worker runs the same handler: only the first run takes the lease over.
      handle: async () => {
        if (nested) return;
        nested = true;
        h.clock.advance(LEASE_MS + 1);
        inner = await h.runElsewhere(2, 'm-1');
      },
    });
    expect(await h.run(1, 'm-1')).toMatchObject({ outcome: 'processed', leaseLost: true });
    expect(inner).toMatchObject({ outcome: 'processed' });
    expect(h.runs).toHaveLength(2);
  });

  it('counts a released failed mark even when its answer was lost and the SDK sent it again', async () => {
    const h = harness({ handle: failing });
    h.inbox.failNext('markFailed', 1, 'lost_then_retry');
    expect(await h.run(1)).toMatchObject({ outcome: 'retry', delaySeconds: FIRST_RETRY_SECONDS });
    expect(h.inbox.peek(PK)).toMatchObject({ status: 'failed', attempts: 1 });
  });
});

describe('processRecord: starting in time', () => {
  it('does not start once the invocation is ending: nothing read, nothing written (not_started)', async () => {
    const controller = new AbortController();
    controller.abort();
    const h = harness({ signal: controller.signal });
    expect(await h.run(1)).toMatchObject({ outcome: 'not_started' });
    expect(h.inbox.calls).toEqual([]);
    expect(h.messages.delays).toEqual([]);
  });

  it("gives the lease back, and leaves the message to the Lambda layer, when the invocation's end comes during the lease", async () => {
    const controller = new AbortController();
    const h = harness({ signal: controller.signal });
    const begin = h.inbox.beginProcessing.bind(h.inbox);
    h.inbox.beginProcessing = async (...args) => {
      const lease = await begin(...args);
      controller.abort();
      return lease;
    };
    expect(await h.run(1)).toMatchObject({ outcome: 'not_started' });
    expect(h.runs).toEqual([]);
    expect(h.started).toEqual([]);
    expect(h.messages.delays).toEqual([]);
    expect(h.inbox.peek(PK)).toMatchObject({ status: 'processing', leaseUntil: 0 });
    expect(h.inbox.peek(PK)?.processingToken).toBeUndefined();
  });

  it("gives the lease and the message back at once when the handlers' deadline has passed before the start", async () => {
    // 40 ms of invocation: the handlers must start within its first 20 ms. This copy's turn comes later.
    const h = harness({ invocationMs: 40 });
    h.clock.advance(30);
    expect(await h.run(1)).toMatchObject({ outcome: 'not_started' });
    expect(h.runs).toEqual([]);
    expect(h.messages.seconds()).toEqual([0]);
    expect(h.inbox.peek(PK)).toMatchObject({ leaseUntil: 0 });
    // Given back: the next receive takes the lease at once instead of waiting it out.
    expect(await h.runElsewhere(2, 'm-1')).toMatchObject({ outcome: 'processed' });
  });

  it("does not hand the message back at once when the handlers' deadline passed and the lease could not be given back", async () => {
    // As above, on the receive before the last, with DynamoDB refusing the hand-back of the lease: the
    // lease stays live for a minute. Handed back at once, the message's last receive finds it live and
    // gives the delivery up as lease_held without ever running it.
    const h = harness({ invocationMs: 40 });
    h.clock.advance(30);
    h.inbox.failNext('releaseLease');
    expect(await h.run(LAST_RECEIVE - 1)).toMatchObject({ outcome: 'not_started' });
    h.clock.advance((h.messages.seconds()[0] ?? 0) * 1000);
    expect(await h.runElsewhere(LAST_RECEIVE, 'm-1')).toMatchObject({ outcome: 'processed' });
    expect(h.runs).toHaveLength(1);
  });

  it("cuts a hanging handler off before the invocation's deadline: handler_timeout, its signal aborted, retried", async () => {
    let signal: AbortSignal | undefined;
    const h = harness({
      invocationMs: 40,
      handle: (_data, ctx) => {
        signal = ctx.signal;
        return new Promise<void>(() => undefined);
      },
    });
    expect(await h.run(1)).toMatchObject({ outcome: 'retry', code: 'handler_timeout' });
    expect(signal?.aborted).toBe(true);
    expect(h.inbox.peek(PK)).toMatchObject({ status: 'failed', lastErrorCode: 'handler_timeout' });
  });

  /**
   * A handler whose first run is cut off at the deadline and goes on until `finishFirst()` (nothing can stop
   * a promise); later runs do `later`. `state` counts the runs, and the most that ran at once.
   */
  function firstRunHangs(later: () => Promise<void> | void = () => undefined) {
    const state = { runs: 0, running: 0, most: 0 };
    let release: () => void = () => undefined;
    const handle = async () => {
      state.runs++;
      state.running++;
      state.most = Math.max(state.most, state.running);
      try {
        if (state.runs === 1) await new Promise<void>((resolve) => (release = resolve));
        else await later();
      } finally {
        state.running--;
      }
    };
    return { handle, state, finishFirst: () => release() };
  }

  // An open gap, pinned: this test fails today (`.fails` keeps the suite green while it does). No lease can
  // cover a promise Lambda freezes with its environment and resumes when it reuses it, so the interleaving
  // checker counts this double effect (effect_twice_after_cut_off) rather than failing on it. Should a
  // cut-off handler ever be kept from running beside the retry, this passes, `.fails` fails, and it goes.
  it.fails('does not let the next receive run the handler while a cut-off handler is still running', async () => {
    // A handler cut off at the deadline keeps running (nothing can stop a promise; ctx.signal only asks),
    // and in Lambda it resumes in the next invocation of the same environment. The failed mark hands the
    // lease back at once, so the retry's worker runs the handler beside it: two runs of the effect at once.
    const hang = firstRunHangs();
    const h = harness({ invocationMs: 40, handle: hang.handle });
    const first = await h.run(1);
    expect(first).toMatchObject({ outcome: 'retry', code: 'handler_timeout' });
    h.clock.advance((first as { delaySeconds: number }).delaySeconds * 1000);
    await h.runElsewhere(2, 'm-1');
    hang.finishFirst();
    expect(hang.state.most).toBe(1);
  });

  it('marks a cut-off handler that finishes later processed, so the retry runs nothing', async () => {
    const hang = firstRunHangs();
    const h = harness({ invocationMs: 40, handle: hang.handle });
    expect(await h.run(1)).toMatchObject({ outcome: 'retry', code: 'handler_timeout' });
    expect(h.inbox.peek(PK)).toMatchObject({ status: 'failed', lastErrorCode: 'handler_timeout' });
    hang.finishFirst();
    await vi.waitFor(() => expect(h.inbox.peek(PK)).toMatchObject({ status: 'processed' }));
    h.clock.advance(60_000);
    expect(await h.runElsewhere(2, 'm-1')).toMatchObject({ outcome: 'duplicate_skipped' });
    expect(hang.state.runs).toBe(1);
  });

  it('leaves the record failed when a cut-off handler finishes after another worker leased it', async () => {
    // The retry's own run is cut off too, and never finishes.
    const hang = firstRunHangs(() => new Promise<void>(() => undefined));
    const h = harness({ invocationMs: 40, handle: hang.handle });
    expect(await h.run(1)).toMatchObject({ outcome: 'retry', code: 'handler_timeout' });
    h.clock.advance(60_000);
    // The retry leases (taking the token away) and is itself cut off; then the first handler finishes.
    await h.runElsewhere(2, 'm-1');
    hang.finishFirst();
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(h.inbox.peek(PK)).toMatchObject({ status: 'failed' });
  });

  it('tells the Lambda layer the moment a handler starts, and only then', async () => {
    const h = harness({
      handle: () => {
        expect(h.started).toEqual(['m-1']);
      },
    });
    expect(await h.run(1)).toMatchObject({ outcome: 'processed' });
    expect(h.started).toEqual(['m-1']);
  });
});

describe('processRecord: the archive', () => {
  it('archives a small body with the lease itself: no object, no further write', async () => {
    const h = harness();
    await h.run(1);
    expect(h.inbox.peek(PK)).toMatchObject({
      archiveBody: BODY.toString('base64'),
      archivedAt: new Date(T0).toISOString(),
      archiveContentType: 'application/json',
    });
    expect(h.payloads.puts).toEqual([]);
    expect(h.inbox.calls).toEqual(['beginProcessing', 'markProcessed']);
  });

  it('archives a large inline body as its own object before the handler runs, named on the record', async () => {
    const seen: (string | undefined)[] = [];
    const h = harness({
      config: parseConfig({ ...configInput(), archive: { retentionDays: 30, inlineMaxBytes: 8 } }),
      handle: () => void seen.push(h.inbox.peek(PK)?.archiveRef),
    });
    await h.run(1);
    const ref = `s3://payloads/archive/${PROVIDER}/${sha256Hex(BODY)}`;
    expect(seen).toEqual([ref]);
    expect(h.payloads.objects.get(ref)?.body.equals(BODY)).toBe(true);
    expect(h.inbox.peek(PK)?.archiveBody).toBeUndefined();
  });

  it('retries a failed archive write without running the handler, and archives on the next receive', async () => {
    const h = harness({
      config: parseConfig({ ...configInput(), archive: { retentionDays: 30, inlineMaxBytes: 8 } }),
    });
    h.payloads.failNext('put');
    expect(await h.run(1)).toMatchObject({ outcome: 'retry', code: 's3_unavailable' });
    expect(h.runs).toEqual([]);
    expect(await h.run(2)).toMatchObject({ outcome: 'processed' });
    expect(h.inbox.peek(PK)?.archiveRef).toBeDefined();
  });

  it('does not write the archive object again on a retry after it was archived', async () => {
    let calls = 0;
    const h = harness({
      config: parseConfig({ ...configInput(), archive: { retentionDays: 30, inlineMaxBytes: 8 } }),
      handle: () => (calls++ === 0 ? failing() : undefined),
    });
    await h.run(1);
    await h.run(2);
    expect(h.payloads.puts).toHaveLength(1);
    expect(h.inbox.calls.filter((call) => call === 'markArchived')).toHaveLength(1);
  });

  it('names the payload object verify wrote as the archive, and reads the body from it', async () => {
    const h = harness();
    const ref = await h.payloads.put(`payloads/${PROVIDER}/${sha256Hex(BODY)}`, BODY, sha256Hex(BODY));
    expect(await h.run(1, 'm-1', envelopeOf({ dataref: ref }))).toMatchObject({ outcome: 'processed' });
    expect(h.runs[0]?.rawBody.equals(BODY)).toBe(true);
    expect(h.inbox.peek(PK)).toMatchObject({ archiveRef: ref });
    expect(h.payloads.puts).toHaveLength(1);
  });

  it('retries a body kept in S3 while S3 is down; gives it up when its object is gone', async () => {
    const h = harness();
    const ref = `s3://payloads/payloads/${PROVIDER}/${sha256Hex(BODY)}`;
    h.payloads.objects.set(ref, { body: BODY, lastModifiedMs: T0 });
    h.payloads.failNext('get');
    expect(await h.run(1, 'm-1', envelopeOf({ dataref: ref }))).toMatchObject({
      outcome: 'retry',
      code: 's3_unavailable',
    });
    h.payloads.objects.delete(ref);
    expect(await h.run(2, 'm-1', envelopeOf({ dataref: ref }))).toMatchObject({
      outcome: 'dead_lettered',
      code: 'payload_missing',
    });
    expect(h.runs).toEqual([]);
  });

  it('writes no archive when the archive is off', async () => {
    const h = harness({
      config: parseConfig({ ...configInput(), archive: { retentionDays: 0, inlineMaxBytes: 3072 } }),
    });
    await h.run(1);
    expect(h.inbox.peek(PK)?.archivedAt).toBeUndefined();
  });
});

describe('processRecord: routing and resource versions', () => {
  it('acknowledges an event no handler takes, marked processed, where the provider acks unknown events', async () => {
    const h = harness();
    expect(await h.run(1, 'm-1', envelopeOf({ type: 'order.created' }))).toMatchObject({
      outcome: 'unknown_acked',
    });
    expect(h.inbox.peek(PK)?.status).toBe('processed');
  });

  it('gives up an event no handler takes where the provider dead-letters unknown events', async () => {
    const h = harness();
    const envelope = envelopeOf({ provider: 'strict', type: 'order.created' });
    expect(await h.run(1, 'm-1', envelope)).toMatchObject({
      outcome: 'dead_lettered',
      code: 'unknown_event',
      recorded: true,
    });
    expect(h.inbox.peek(inboxKey('strict', DEDUP_KEY))?.status).toBe('dead-lettered');
  });

  it('counts a delivery whose every version was stale as stale_skipped, and marks it processed', async () => {
    const h = harness({ handle: async (_data, ctx) => void (await ctx.acceptIfNewer('order:1', 5)) });
    h.versions.stored.set(`${PROVIDER}#order:1`, {
      version: 9,
      setBy: 'other',
      expiresAtSec: T0 / 1000 + 60,
    });
    expect(await h.run(1)).toMatchObject({ outcome: 'stale_skipped' });
    expect(h.inbox.peek(PK)?.status).toBe('processed');
  });

  it('counts a delivery with one newer version as processed, and its retry is let through again', async () => {
    const answers: boolean[] = [];
    let calls = 0;
    const h = harness({
      handle: async (_data, ctx) => {
        answers.push(await ctx.acceptIfNewer('order:1', new Date(T0)));
        if (calls++ === 0) failing();
      },
    });
    await h.run(1);
    expect(await h.run(2)).toMatchObject({ outcome: 'processed' });
    expect(answers).toEqual([true, true]);
  });

  it.each([
    ['', 1, 'invalid_resource_key'],
    ['order:1', 'not a date', 'invalid_resource_version'],
  ] as const)('gives up a handler that asks about %j at %j (%s)', async (key, version, code) => {
    const h = harness({ handle: async (_data, ctx) => void (await ctx.acceptIfNewer(key, version)) });
    expect(await h.run(1)).toMatchObject({ outcome: 'dead_lettered', code });
  });

  it('retries when the version store is down', async () => {
    const h = harness({ handle: async (_data, ctx) => void (await ctx.acceptIfNewer('order:1', 1)) });
    h.versions.failNext();
    expect(await h.run(1)).toMatchObject({ outcome: 'retry', code: 'dynamodb_unavailable' });
  });
});

describe('processRecord: forward destinations', () => {
  const destinations = {
    hooks: { type: 'http', url: 'https://hooks.example.com/in' },
    bus: { type: 'eventbridge' },
  } as const;

  it('sends each forward destination the message as it came plus its name, and records the fan-out before the handlers run', async () => {
    const fanned: (string | undefined)[] = [];
    const h = harness({
      config: parseConfig({ ...configInput(), destinations: { ...destinations, own: { type: 'handlers' } } }),
      handle: () => void fanned.push(h.inbox.peek(PK)?.forwardedAt),
    });
    const record = h.record(1);
    expect(await processRecord(h.deps, record)).toMatchObject({ outcome: 'processed' });
    expect(h.forwards.sent.map((sent) => sent.destinationId).sort()).toEqual(['bus', 'hooks']);
    for (const { destinationId, message } of h.forwards.sent) {
      expect(message).toEqual({
        body: record.body,
        attributes: { ...record.attributes, [MESSAGE_ATTRIBUTES.destination]: destinationId },
      });
    }
    expect(fanned).toEqual([new Date(T0).toISOString()]);
  });

  it('does not send the copies again on a handler retry', async () => {
    let calls = 0;
    const h = harness({
      config: parseConfig({ ...configInput(), destinations: { ...destinations, own: { type: 'handlers' } } }),
      handle: () => (calls++ === 0 ? failing() : undefined),
    });
    await h.run(1);
    expect(await h.run(2)).toMatchObject({ outcome: 'processed' });
    expect(h.forwards.sent).toHaveLength(2);
  });

  it('logs a fan-out it could not record and runs the handlers all the same', async () => {
    const h = harness({
      config: parseConfig({ ...configInput(), destinations: { ...destinations, own: { type: 'handlers' } } }),
    });
    h.inbox.failNext('markForwarded', 6);
    expect(await h.run(1)).toMatchObject({ outcome: 'processed' });
    expect(h.sink.messages()).toContain('fan-out not recorded: a retry sends the copies again');
    expect(h.runs).toHaveLength(1);
  });

  it('marks a forward-only delivery processed once its copies are queued, running no handler', async () => {
    const h = harness({ config: parseConfig({ ...configInput(), destinations }) });
    expect(await h.run(1)).toMatchObject({ outcome: 'processed' });
    expect(h.forwards.sent).toHaveLength(2);
    expect(h.runs).toEqual([]);
    expect(h.inbox.calls).not.toContain('markForwarded');
    expect(h.inbox.peek(PK)?.status).toBe('processed');
  });

  it('retries a receive whose copy could not be sent, recording no fan-out', async () => {
    const h = harness({
      config: parseConfig({ ...configInput(), destinations: { ...destinations, own: { type: 'handlers' } } }),
    });
    h.forwards.failNext();
    expect(await h.run(1)).toMatchObject({ outcome: 'retry', code: 'sqs_unavailable' });
    expect(h.runs).toEqual([]);
    expect(h.inbox.peek(PK)?.forwardedAt).toBeUndefined();
  });
});

/** The suite's config input, for variants. */
function configInput() {
  return {
    providers: {
      [PROVIDER]: { scheme: 'standard-webhooks' as const },
      strict: { scheme: 'standard-webhooks' as const, unknownEvents: 'dlq' as const },
    },
    queue: { retrySchedule: ['30s', '2m'] },
  };
}
