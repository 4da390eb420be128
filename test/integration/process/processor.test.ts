import { beforeEach, describe, expect, it, onTestFinished } from 'vitest';
import { z } from 'zod';
import { parseConfig } from '../../../config';
import { PROCESS_METRICS } from '../../../config/telemetry';
import { DynamoInbox } from '../../../lambdas/adapters/dynamo-inbox';
import { standardWebhooks } from '../../../lambdas/core/schemes/standard-webhooks';
import { type MetricSink, noMetrics } from '../../../lambdas/core/telemetry';
import { defineEvent, type EventDefinition, PermanentError } from '../../../lambdas/events';
import { DEMO_PERMANENT_TYPE, DEMO_TRANSIENT_TYPE, demoEvents } from '../../../lambdas/events/demo';
import { sqsRecordFrom } from '../../../local/sqs-event-source';
import { useEmulators } from '../../support/emulators';
import { faultForTest } from '../../support/faults';
import {
  deliverSigned,
  drainQueue,
  eventSourceFor,
  processHandlerFor,
  TestClock,
} from '../../support/pipeline';

// Two retry steps of a second: three receives (maxReceiveCount 3), each retry one second later.
const config = parseConfig({
  providers: {
    'standard-webhooks': { scheme: 'standard-webhooks' },
    strict: { scheme: 'standard-webhooks', unknownEvents: 'dlq' },
  },
  queue: { retrySchedule: [1, 1], batchSize: 10 },
});
const MAX_RECEIVES = 3;
const ctx = useEmulators({ config, strictSqs: true });
const SECRET = standardWebhooks.generateSecret();

let resources: typeof ctx.resources;
let clock: TestClock;
beforeEach(async () => {
  resources = await ctx.provision();
  clock = new TestClock(Date.now());
});

async function deliver(provider: string, id: string, payload: unknown): Promise<void> {
  const body = typeof payload === 'string' ? payload : JSON.stringify(payload);
  const response = await deliverSigned(ctx, resources, { config, provider, secret: SECRET, body, id, clock });
  expect(response.statusCode).toBe(202);
}

function eventSource(handlers: readonly EventDefinition[], random?: () => number, metrics?: MetricSink) {
  const processor = processHandlerFor(ctx, resources, handlers, { config, random, metrics });
  return { source: eventSourceFor(ctx, resources, processor.handler), logger: processor.logger };
}

/** Runs the event source until the main queue is empty (visible, in flight and delayed), or gives up. */

const inbox = () => new DynamoInbox(ctx.clients.dynamodb, resources.tableName);
const sw = (type: string, data: Record<string, unknown> = {}) => ({
  type,
  timestamp: '2026-11-30T12:00:00Z',
  data,
});
const anyEvent = (handle: EventDefinition['handle']) =>
  defineEvent({
    provider: 'standard-webhooks',
    type: '*',
    schema: z.object({ type: z.string(), data: z.record(z.string(), z.unknown()) }),
    handle,
  });
const outcomes = (logger: ReturnType<typeof eventSource>['logger']) =>
  logger.lines.map((line) => line.attributes.outcome);

/** Counts the processor's SendMessage calls: it must never send to the DLQ itself. */
function countSends() {
  const sends = faultForTest(ctx.clients.sqs, { commands: 'SendMessageCommand' });
  sends.off();
  return sends;
}

describe('processor: partial batch failures', () => {
  it('reports exactly the 2 failing records of 10; the 8 others are deleted and processed', async () => {
    for (let i = 0; i < 10; i++)
      await deliver('standard-webhooks', `msg_${i}`, sw('item.created', { fail: i === 3 || i === 7 }));
    const failing = new Set<string>();
    const processor = processHandlerFor(
      ctx,
      resources,
      [
        anyEvent((data, ctx) => {
          if ((data as { data: { fail?: boolean } }).data.fail) {
            failing.add(ctx.dedupKey);
            throw new Error('downstream timeout');
          }
        }),
      ],
      { config },
    );
    // One batch of all ten, as Lambda may hand them over: SQS answers a single receive with fewer. The
    // batch's shape is what is under test, so the SQS double neither withholds nor repeats a message here.
    if (ctx.sqsDouble) onTestFinished(ctx.sqsDouble.set({ duplicate: 0, withhold: 0 }));
    const messages = await ctx.receiveAll(resources.queueUrl);
    expect(messages).toHaveLength(10);
    const response = await processor.handler({
      Records: messages.map((m) => sqsRecordFrom(m, resources.queueArn)),
    });
    const failedIds = response.batchItemFailures.map((f) => f.itemIdentifier).sort();
    const expected = messages
      .filter((m) => JSON.parse(m.body).dedupkey.match(/^msg_[37]$/))
      .map((m) => m.messageId)
      .sort();
    expect(failedIds).toEqual(expected);
    expect([...failing].sort()).toEqual(['msg_3', 'msg_7']);
    for (let i = 0; i < 10; i++) {
      const record = await inbox().get(`standard-webhooks#msg_${i}`);
      if (i === 3 || i === 7)
        expect(record).toMatchObject({ status: 'failed', attempts: 1, lastErrorCode: 'Error' });
      else expect(record?.status).toBe('processed');
    }
  });

  it('deletes the settled records through the event source, leaving only the failures', async () => {
    for (let i = 0; i < 4; i++)
      await deliver('standard-webhooks', `msg_${i}`, sw('item.created', { fail: i === 0 }));
    const { source } = eventSource(
      [
        anyEvent((data) => {
          if ((data as { data: { fail?: boolean } }).data.fail) throw new Error('boom');
        }),
      ],
      () => 1,
    );
    // SQS may hand the four over in more than one batch (a receive answers with fewer than are visible),
    // and a message more than once: run until none is left visible.
    for (let runs = 0; runs < 20 && (await ctx.countMessages(resources.queueUrl)).visible > 0; runs++)
      await source.runOnce();
    const counts = await ctx.countMessages(resources.queueUrl);
    expect(counts.visible + counts.inFlight).toBe(1);
  });
});

describe('processor: retries follow the schedule, and exhausted retries say dead-lettered', () => {
  it('retries a failing message once per step, then marks it dead-lettered on the last receive and lets the redrive policy move it', async () => {
    await deliver('standard-webhooks', 'msg_poison', sw('item.created'));
    let attempts = 0;
    const sends = countSends();
    const { source, logger } = eventSource(
      [
        anyEvent(() => {
          attempts++;
          throw new Error('still broken');
        }),
      ],
      () => 1,
    );
    await drainQueue(ctx, resources, source);
    expect(attempts).toBe(MAX_RECEIVES);
    const delays = logger.lines
      .filter((l) => l.message === 'event will be retried')
      .map((l) => l.attributes.delaySeconds);
    expect(delays).toEqual([1, 1]);
    const dlq = await ctx.receiveAll(resources.dlqUrl);
    expect(dlq).toHaveLength(1);
    expect(JSON.parse(dlq[0]!.body).dedupkey).toBe('msg_poison');
    // The runbook's own query finds it: the last receive's failure marked it.
    expect(await inbox().get('standard-webhooks#msg_poison')).toMatchObject({
      status: 'dead-lettered',
      attempts: MAX_RECEIVES,
      lastErrorCode: 'Error',
      deadLetterMessageId: dlq[0]!.messageId,
    });
    expect(sends.calls).toBe(0);
  });

  it('dead-letters a PermanentError after one run of the handler, through the redrive policy, never by SendMessage', async () => {
    await deliver('standard-webhooks', 'msg_perm', sw('order.cancelled'));
    let attempts = 0;
    const sends = countSends();
    const counted: string[] = [];
    const { source, logger } = eventSource(
      [
        anyEvent(() => {
          attempts++;
          throw new PermanentError('order_not_found');
        }),
      ],
      undefined,
      { ...noMetrics, addMetric: (name) => void counted.push(name) },
    );
    await drainQueue(ctx, resources, source);
    expect(attempts).toBe(1);
    expect(sends.calls).toBe(0);
    const [message] = await ctx.receiveAll(resources.dlqUrl);
    expect(message?.attributes).toMatchObject({ provider: 'standard-webhooks', dedupKey: 'msg_perm' });
    expect(await inbox().get('standard-webhooks#msg_perm')).toMatchObject({
      status: 'dead-lettered',
      lastErrorCode: 'order_not_found',
    });
    // The first receive gave it up, and its one line says when SQS moves it; the later receives only hand
    // it on, counted by the metric, with no line of their own.
    expect(logger.lines.map((line) => line.attributes)).toEqual([
      expect.objectContaining({ outcome: 'dead_lettered', receiveCount: 1, dlqAtReceive: MAX_RECEIVES }),
    ]);
    expect(counted.filter((name) => name === PROCESS_METRICS.draining)).toHaveLength(MAX_RECEIVES - 1);
  });

  it('dead-letters a payload that does not match the handler schema as schema_mismatch', async () => {
    await deliver('standard-webhooks', 'msg_schema', { type: 'x', timestamp: 't', data: 'not an object' });
    const { source } = eventSource([anyEvent(() => undefined)]);
    await drainQueue(ctx, resources, source);
    expect(await ctx.receiveAll(resources.dlqUrl)).toHaveLength(1);
    expect((await inbox().get('standard-webhooks#msg_schema'))?.lastErrorCode).toBe('schema_mismatch');
  });

  it('runs the shipped demo events: the transient one fails its first receives then is processed, the permanent one is given up at once', async () => {
    // The attempt count and the outcome sequence are under test: the SQS double neither withholds nor
    // repeats a message here (a second copy would add its own receive to both).
    if (ctx.sqsDouble) onTestFinished(ctx.sqsDouble.set({ duplicate: 0, withhold: 0 }));
    await deliver('standard-webhooks', 'msg_demo_transient', sw(DEMO_TRANSIENT_TYPE, { failures: 2 }));
    await deliver('standard-webhooks', 'msg_demo_permanent', sw(DEMO_PERMANENT_TYPE));
    const { source, logger } = eventSource(demoEvents);
    await drainQueue(ctx, resources, source);
    expect(await inbox().get('standard-webhooks#msg_demo_transient')).toMatchObject({
      status: 'processed',
      attempts: 2,
      lastErrorCode: 'demo_transient_failure',
    });
    expect(await inbox().get('standard-webhooks#msg_demo_permanent')).toMatchObject({
      status: 'dead-lettered',
      attempts: 1,
      lastErrorCode: 'demo_permanent_failure',
    });
    const transient = logger.lines.filter((line) => line.attributes.dedupKey === 'msg_demo_transient');
    expect(transient.map((line) => line.attributes.outcome).filter((o) => o !== undefined)).toEqual([
      'retry',
      'retry',
      'processed',
    ]);
  });

  it('records and logs which fields a schema_mismatch failed on, with zod issue codes and no value', async () => {
    const email = 'grace.hopper@example.com';
    await deliver('standard-webhooks', 'msg_schema_detail', sw('user.created', { email, age: email }));
    const strict = defineEvent({
      provider: 'standard-webhooks',
      type: 'user.created',
      schema: z.object({ type: z.string(), data: z.object({ age: z.number(), name: z.string() }) }),
      handle: () => undefined,
    });
    const { source, logger } = eventSource([strict]);
    await drainQueue(ctx, resources, source);
    const detail = 'data.age invalid_type; data.name invalid_type';
    expect(await inbox().get('standard-webhooks#msg_schema_detail')).toMatchObject({
      status: 'dead-lettered',
      lastErrorCode: 'schema_mismatch',
      lastErrorDetail: detail,
    });
    const given = logger.lines.filter((line) => line.attributes.outcome === 'dead_lettered');
    expect(given.map((line) => line.attributes.errorDetail)).toEqual([detail]);
    expect(JSON.stringify(logger.lines)).not.toContain('grace');
  });

  it("drops an earlier failure's detail when the delivery fails again for another reason", async () => {
    await deliver('standard-webhooks', 'msg_detail_then_other', sw('user.created', { name: 1 }));
    const strict = defineEvent({
      provider: 'standard-webhooks',
      type: 'user.created',
      schema: z.object({ type: z.string(), data: z.object({ name: z.string() }) }),
      handle: () => undefined,
    });
    await drainQueue(ctx, resources, eventSource([strict]).source);
    expect((await inbox().get('standard-webhooks#msg_detail_then_other'))?.lastErrorDetail).toBe(
      'data.name invalid_type',
    );
    // The handler is fixed to accept the body, then fails for good on something else after a redrive.
    const [dead] = await ctx.receiveAll(resources.dlqUrl);
    if (!dead) throw new Error('expected the dead letter');
    await ctx.queueOps.sendRaw(resources.queueUrl, dead.body, dead.attributes);
    await drainQueue(
      ctx,
      resources,
      eventSource([
        anyEvent(() => {
          throw new PermanentError('downstream_rejected');
        }),
      ]).source,
    );
    const record = await inbox().get('standard-webhooks#msg_detail_then_other');
    expect(record).toMatchObject({ status: 'dead-lettered', lastErrorCode: 'downstream_rejected' });
    expect(record).not.toHaveProperty('lastErrorDetail');
  });

  it('moves a hand-written malformed envelope to the DLQ unchanged, without retrying it on the schedule', async () => {
    await ctx.queueOps.sendRaw(resources.queueUrl, '{"hello":"world"}', {});
    const { source, logger } = eventSource([anyEvent(() => undefined)]);
    await drainQueue(ctx, resources, source);
    const [message] = await ctx.receiveAll(resources.dlqUrl);
    expect(message?.body).toBe('{"hello":"world"}');
    expect(logger.lines.every((line) => line.attributes.errorCode === 'malformed_envelope')).toBe(true);
    expect(logger.lines.some((line) => line.message === 'event will be retried')).toBe(false);
  });

  it('acknowledges an event type without a handler by default', async () => {
    await deliver('standard-webhooks', 'msg_unknown', sw('never.heard.of'));
    const { source, logger } = eventSource([]);
    await source.runOnce();
    expect(logger.last()?.attributes.outcome).toBe('unknown_acked');
    expect((await ctx.countMessages(resources.dlqUrl)).visible).toBe(0);
    expect((await inbox().get('standard-webhooks#msg_unknown'))?.status).toBe('processed');
  });

  it('dead-letters an unknown event type when the provider says unknownEvents: dlq', async () => {
    await deliver('strict', 'msg_strict', sw('never.heard.of'));
    const { source } = eventSource([]);
    await drainQueue(ctx, resources, source);
    expect(await ctx.receiveAll(resources.dlqUrl)).toHaveLength(1);
    expect((await inbox().get('strict#msg_strict'))?.lastErrorCode).toBe('unknown_event');
  });
});

describe('processor: a redriven message is processed like a new one', () => {
  it('processes a message moved back from the DLQ as a new message (as the console redrive does) and the record ends processed', async () => {
    await deliver('standard-webhooks', 'msg_redrive', sw('item.created'));
    let broken = true;
    let effects = 0;
    const { source } = eventSource([
      anyEvent(() => {
        if (broken) throw new PermanentError('downstream_rejects');
        effects++;
      }),
    ]);
    await drainQueue(ctx, resources, source);
    const [dead] = await ctx.receiveAll(resources.dlqUrl);
    expect((await inbox().get('standard-webhooks#msg_redrive'))?.status).toBe('dead-lettered');
    // What a move task does: the same body and attributes, enqueued anew (a new message id), and no
    // record touched. The console's redrive marks nothing.
    broken = false;
    await ctx.queueOps.sendRaw(resources.queueUrl, dead!.body, dead!.attributes);
    await ctx.queueOps.delete(resources.dlqUrl, dead!.receiptHandle);
    await drainQueue(ctx, resources, source);
    expect(effects).toBe(1);
    expect((await inbox().get('standard-webhooks#msg_redrive'))?.status).toBe('processed');
    expect((await ctx.countMessages(resources.dlqUrl)).visible).toBe(0);
  });
});

describe('processor: exactly-once effects', () => {
  it('runs the effect once when the same envelope is delivered twice', async () => {
    await deliver('standard-webhooks', 'msg_twice', sw('item.created'));
    const [original] = await ctx.receiveAll(resources.queueUrl);
    await ctx.queueOps.changeVisibility(resources.queueUrl, original!.receiptHandle, 0);
    const keys: string[] = [];
    const { source, logger } = eventSource([anyEvent((_d, c) => void keys.push(c.idempotencyKey))]);
    while ((await source.runOnce()) > 0);
    // The second copy after the first was processed. (Sent together, the two would share a batch and run
    // in parallel, and the second would find the first's live lease: that case is the next test's.)
    await ctx.queueOps.sendRaw(resources.queueUrl, original!.body, original!.attributes);
    while ((await source.runOnce()) > 0);
    expect(keys).toEqual(['standard-webhooks:msg_twice']);
    // One run, and every other copy skipped: SQS may hand a copy out more than once itself.
    expect(outcomes(logger).filter((o) => o === 'processed')).toHaveLength(1);
    expect(new Set(outcomes(logger))).toEqual(new Set(['duplicate_skipped', 'processed']));
  });

  it('runs two copies of one delivery in one batch one after the other: processed, then skipped, no retry', async () => {
    await deliver('standard-webhooks', 'msg_pair', sw('item.created'));
    const [original] = await ctx.receiveAll(resources.queueUrl);
    await ctx.queueOps.sendRaw(resources.queueUrl, original!.body, original!.attributes);
    await ctx.queueOps.changeVisibility(resources.queueUrl, original!.receiptHandle, 0);
    const keys: string[] = [];
    // A handler slow enough that two copies run in parallel would overlap.
    const { handler, logger } = processHandlerFor(ctx, resources, [
      anyEvent(async (_d, c) => {
        keys.push(c.idempotencyKey);
        await new Promise((resolve) => setTimeout(resolve, 300));
      }),
    ]);
    const both = await ctx.receiveAll(resources.queueUrl);
    expect(both).toHaveLength(2);
    const response = await handler({ Records: both.map((m) => sqsRecordFrom(m, resources.queueArn)) });
    expect(response.batchItemFailures).toEqual([]);
    expect(keys).toEqual(['standard-webhooks:msg_pair']);
    expect(outcomes(logger)).toEqual(['processed', 'duplicate_skipped']);
  });

  it('does not let a second message of the same delivery run the effect while the first holds a live lease', async () => {
    await deliver('standard-webhooks', 'msg_lease', sw('item.created'));
    const [message] = await ctx.receiveAll(resources.queueUrl);
    // A second copy of the delivery, as after verify crashed between SendMessage and its mark.
    await ctx.queueOps.sendRaw(resources.queueUrl, message!.body, message!.attributes);
    const [copy] = await ctx.receiveAll(resources.queueUrl);
    let release: () => void = () => undefined;
    let entered: () => void = () => undefined;
    const started = new Promise<void>((resolve) => {
      entered = resolve;
    });
    let effects = 0;
    const slow = processHandlerFor(
      ctx,
      resources,
      [
        anyEvent(() => {
          effects++;
          entered();
          return new Promise<void>((r) => {
            release = r;
          });
        }),
      ],
      { config },
    );
    const first = slow.handler({ Records: [sqsRecordFrom(message!, resources.queueArn)] });
    // The first worker is inside the handler, holding its lease: no sleep, an explicit signal.
    await started;
    const second = await slow.handler({ Records: [sqsRecordFrom(copy!, resources.queueArn)] });
    expect(second.batchItemFailures).toHaveLength(1);
    expect(slow.logger.last()?.attributes.errorCode).toBe('lease_held');
    // It comes back once the lease has lapsed, not on the schedule's first step.
    expect(Number(slow.logger.last()?.attributes.delaySeconds)).toBeGreaterThan(25);
    release();
    expect((await first).batchItemFailures).toEqual([]);
    expect(effects).toBe(1);
  });

  it('processes a payload that went through S3 with byte-identical data, read from the payload bucket', async () => {
    const blob = 'é'.repeat(150_000);
    await deliver('standard-webhooks', 'msg_s3', sw('big.one', { blob }));
    const reads = faultForTest(ctx.clients.s3, { commands: 'GetObjectCommand' });
    reads.off();
    let seen: Buffer | undefined;
    const { source } = eventSource([
      anyEvent((_d, c) => {
        seen = c.rawBody;
      }),
    ]);
    await source.runOnce();
    expect(reads.calls).toBe(1);
    expect(seen?.equals(Buffer.from(JSON.stringify(sw('big.one', { blob }))))).toBe(true);
    expect((await inbox().get('standard-webhooks#msg_s3'))?.status).toBe('processed');
  });
});
