// The processor under AWS's failure semantics, against dynalite and fauxqs through the real SDK clients:
// its own writes retried by the SDK, leases left by dead invocations, marks that fail after the effect
// ran, payload objects that are gone or old, and give-ups whose mark fails. One test per scenario of the
// delivery-guarantees issue; faults the emulators cannot produce are injected with SDK middlewares.
import { createHash } from 'node:crypto';
import { DeleteObjectCommand } from '@aws-sdk/client-s3';
import { beforeEach, describe, expect, it, onTestFinished } from 'vitest';
import { parseConfig } from '../../../config';
import { DynamoInbox } from '../../../lambdas/adapters/dynamo-inbox';
import {
  buildEnvelope,
  envelopeAttributes,
  payloadKey,
  serializeEnvelope,
} from '../../../lambdas/core/envelope';
import { inboxKey } from '../../../lambdas/core/inbox';
import { standardWebhooks } from '../../../lambdas/core/schemes/standard-webhooks';
import { type EventDefinition, PermanentError } from '../../../lambdas/events';
import { sqsRecordFrom } from '../../../local/sqs-event-source';
import { useEmulators } from '../../support/emulators';
import { attemptFaultForTest, faultForTest } from '../../support/faults';
import {
  deliverSigned,
  drainQueue,
  effectCounter,
  eventSourceFor,
  processHandlerFor,
  TestClock,
} from '../../support/pipeline';
import { isDeadLetterMark, isFailedMark, isLease, isProcessedMark } from '../../support/rendered-writes';

const config = parseConfig({
  providers: { 'standard-webhooks': { scheme: 'standard-webhooks' } },
  queue: { retrySchedule: [1, 1], batchSize: 10 },
  inlineLimitBytes: 1024,
});
const ctx = useEmulators({ config, strictSqs: true });
const SECRET = standardWebhooks.generateSecret();
const PROVIDER = 'standard-webhooks';

let resources: typeof ctx.resources;
beforeEach(async () => {
  resources = await ctx.provision();
});

const inbox = () => new DynamoInbox(ctx.clients.dynamodb, resources.tableName);
const body = (n: number | string = 1, pad = 0) =>
  JSON.stringify({
    type: 'item.created',
    timestamp: '2026-11-30T12:00:00Z',
    data: { n, pad: 'x'.repeat(pad) },
  });

async function deliver(id: string, payload: string | Buffer = body()): Promise<void> {
  const response = await deliverSigned(ctx, resources, {
    config,
    provider: PROVIDER,
    secret: SECRET,
    body: payload,
    id,
  });
  expect(response.statusCode).toBe(202);
}

const counting = (onRun?: Parameters<typeof effectCounter>[1]) => effectCounter(PROVIDER, onRun);

function sourceFor(
  handlers: readonly EventDefinition[],
  overrides: Parameters<typeof processHandlerFor>[3] = {},
) {
  const processor = processHandlerFor(ctx, resources, handlers, { config, ...overrides });
  return { ...processor, source: eventSourceFor(ctx, resources, processor.handler) };
}

describe('processor: its own lease, retried by the SDK', () => {
  it('runs the handler on the first receive when the lease was applied and its answer lost (not lease_held)', async () => {
    await deliver('msg_own_lease');
    const lost = attemptFaultForTest(ctx.clients.dynamodb, {
      commands: 'UpdateItemCommand',
      fault: 'lost-answer',
      times: 1,
      match: isLease,
    });
    const { runs, handlers } = counting();
    const { source, logger } = sourceFor(handlers);
    await source.runOnce();
    expect(lost.failures).toBe(1);
    expect(runs).toEqual(['msg_own_lease']);
    expect(logger.last()?.attributes.outcome).toBe('processed');
    expect((await inbox().get(inboxKey(PROVIDER, 'msg_own_lease')))?.status).toBe('processed');
  });

  it('takes over the lease a dead invocation left once SQS hands its message out again, without lease_held', async () => {
    await deliver('msg_dead_worker');
    const [message] = await ctx.receiveAll(resources.queueUrl);
    // The first invocation takes the lease and dies there (timed out, crashed): it never answers.
    const hang = attemptFaultForTest(ctx.clients.dynamodb, {
      commands: 'UpdateItemCommand',
      fault: 'hang-after',
      times: 1,
      match: isLease,
    });
    const { runs, handlers } = counting();
    const first = processHandlerFor(ctx, resources, handlers, { config });
    void first.handler({ Records: [sqsRecordFrom(message!, resources.queueArn)] });
    await expect.poll(() => hang.failures).toBe(1);
    expect((await inbox().get(inboxKey(PROVIDER, 'msg_dead_worker')))?.status).toBe('processing');
    // SQS hands the message out again once that receive's visibility (six times the function timeout) ran
    // out, by which time the dead worker's lease (its remaining time and a margin) has lapsed.
    const afterVisibility = new TestClock(Date.now() + 180_000);
    const second = processHandlerFor(ctx, resources, handlers, { config, clock: afterVisibility });
    const again = sqsRecordFrom({ ...message!, receiveCount: 2 }, resources.queueArn);
    expect((await second.handler({ Records: [again] })).batchItemFailures).toEqual([]);
    expect(runs).toEqual(['msg_dead_worker']);
    expect(second.logger.last()?.attributes.outcome).toBe('processed');
  });
});

describe('processor: the envelope must carry the bytes and the type the record holds', () => {
  /**
   * Delivers `dedupKey` through verify, then sends a second message under the same key by hand (what a
   * lapsed claim retaken by other bytes used to enqueue, or a copy sent late while a replay under another
   * type took the key), and processes both. The effects that ran, the DLQ and the processor's log.
   */
  async function deliverAndRival(dedupKey: string, rival: { body: Buffer; eventType?: string }) {
    await deliver(dedupKey, body(1));
    const [first] = await ctx.receiveAll(resources.queueUrl);
    const envelope = buildEnvelope({
      provider: PROVIDER,
      dedupKey,
      eventType: rival.eventType,
      contentType: 'application/json',
      payloadSha256: createHash('sha256').update(rival.body).digest('hex'),
      body: rival.body,
      receivedAtMs: Date.now(),
    });
    await ctx.queueOps.sendRaw(resources.queueUrl, serializeEnvelope(envelope), envelopeAttributes(envelope));
    await ctx.queueOps.changeVisibility(resources.queueUrl, first!.receiptHandle, 0);
    const { runs, handlers } = counting();
    const { source, logger } = sourceFor(handlers);
    await drainQueue(ctx, resources, source);
    return { runs, envelope, logger, dlq: await ctx.receiveAll(resources.dlqUrl) };
  }

  it('dead-letters a message whose payload hash differs from the record as payload_conflict, and leaves the record alone', async () => {
    const { runs, envelope, logger, dlq } = await deliverAndRival('msg_conflict', {
      body: Buffer.from(body(2)),
    });
    expect(runs).toEqual(['msg_conflict']);
    expect(dlq).toHaveLength(1);
    expect(JSON.parse(dlq[0]!.body).payloadsha256).toBe(envelope.payloadsha256);
    expect(logger.lines.some((line) => line.attributes.errorCode === 'payload_conflict')).toBe(true);
    expect(await inbox().get(inboxKey(PROVIDER, 'msg_conflict'))).toMatchObject({
      status: 'processed',
      payloadSha256: createHash('sha256').update(body(1)).digest('hex'),
    });
  });

  it('dead-letters the same bytes under another event type as event_type_conflict: the effect runs once, as the recorded type', async () => {
    const { runs, logger, dlq } = await deliverAndRival('msg_renamed', {
      body: Buffer.from(body(1)),
      eventType: 'item.deleted',
    });
    expect(runs).toEqual(['msg_renamed']);
    expect(dlq.map((message) => JSON.parse(message.body).type)).toEqual(['item.deleted']);
    expect(logger.lines.some((line) => line.attributes.errorCode === 'event_type_conflict')).toBe(true);
    expect(await inbox().get(inboxKey(PROVIDER, 'msg_renamed'))).toMatchObject({
      status: 'processed',
      eventType: 'item.created',
    });
  });
});

describe('processor: an envelope verify did not write', () => {
  /**
   * A message put on the inbox queue by hand (anyone with SendMessage on it can): well formed, but with a
   * type or delivery id the receive side would have refused. What ran, the DLQ and the processor's log.
   */
  async function forge(dedupKey: string, fields: { eventType?: string; deliveryId?: string }) {
    const bytes = Buffer.from(body(1));
    const envelope = {
      ...buildEnvelope({
        provider: PROVIDER,
        dedupKey,
        eventType: fields.eventType,
        contentType: 'application/json',
        payloadSha256: createHash('sha256').update(bytes).digest('hex'),
        body: bytes,
        receivedAtMs: Date.now(),
      }),
      ...(fields.deliveryId === undefined ? {} : { deliveryid: fields.deliveryId }),
    };
    await ctx.queueOps.sendRaw(resources.queueUrl, serializeEnvelope(envelope), envelopeAttributes(envelope));
    const { runs, handlers } = counting();
    const { source, logger } = sourceFor(handlers);
    await drainQueue(ctx, resources, source);
    return { runs, logger, dlq: await ctx.receiveAll(resources.dlqUrl) };
  }

  it.each([
    ['a terminal escape', 'item.created\u001b]0;owned\u0007'],
    ['a bidi override', 'item.\u202ecreated'],
  ])('dead-letters a type carrying %s as bad_event_type, and runs no handler', async (_name, eventType) => {
    const { runs, logger, dlq } = await forge('msg_forged_type', { eventType });
    expect(runs).toEqual([]);
    expect(dlq).toHaveLength(1);
    expect(logger.lines.some((line) => line.attributes.errorCode === 'bad_event_type')).toBe(true);
  });

  it('dead-letters a delivery id the receive side would refuse as malformed_id, and runs no handler', async () => {
    const { runs, logger, dlq } = await forge('msg_forged_id', { deliveryId: 'id with\nnew line' });
    expect(runs).toEqual([]);
    expect(dlq).toHaveLength(1);
    expect(logger.lines.some((line) => line.attributes.errorCode === 'malformed_id')).toBe(true);
  });
});

describe('processor: a mark that fails after the handler succeeded', () => {
  it('retries the processed mark within the invocation: processed once, never recorded failed', async () => {
    await deliver('msg_mark_retry');
    const fault = faultForTest(ctx.clients.dynamodb, {
      commands: 'UpdateItemCommand',
      times: 2,
      match: isProcessedMark,
    });
    const { runs, handlers } = counting();
    const { source, logger } = sourceFor(handlers);
    await drainQueue(ctx, resources, source);
    expect(fault.failures).toBe(2);
    expect(runs).toEqual(['msg_mark_retry']);
    // Any other line is a second copy SQS handed out, skipped as a duplicate.
    expect(
      logger.lines.map((line) => line.attributes.outcome).filter((o) => o !== 'duplicate_skipped'),
    ).toEqual(['processed']);
    expect(await inbox().get(inboxKey(PROVIDER, 'msg_mark_retry'))).toMatchObject({
      status: 'processed',
      attempts: 0,
    });
  });

  it('acknowledges the message when the mark keeps failing, says the effect ran, and never runs it again', async () => {
    await deliver('msg_mark_down');
    const fault = faultForTest(ctx.clients.dynamodb, {
      commands: 'UpdateItemCommand',
      match: isProcessedMark,
    });
    const { runs, handlers } = counting();
    const { source, logger } = sourceFor(handlers, { sleep: async () => undefined });
    await drainQueue(ctx, resources, source);
    expect(fault.failures).toBeGreaterThan(1);
    expect(runs).toEqual(['msg_mark_down']);
    expect(logger.last()).toMatchObject({
      level: 'error',
      attributes: { outcome: 'processed', effectRan: true, dedupKey: 'msg_mark_down' },
    });
    const record = await inbox().get(inboxKey(PROVIDER, 'msg_mark_down'));
    expect(record?.status).not.toBe('failed');
    expect((await ctx.countMessages(resources.dlqUrl)).visible).toBe(0);
  });
});

describe('processor: large payloads', () => {
  it('dead-letters a message whose payload object is gone as payload_missing at once, without retrying it', async () => {
    await deliver('msg_gone', body(1, 2000));
    const [message] = await ctx.receiveAll(resources.queueUrl);
    const ref = JSON.parse(message!.body).dataref as string;
    await ctx.clients.s3.send(
      new DeleteObjectCommand({
        Bucket: resources.bucketName,
        Key: ref.slice(`s3://${resources.bucketName}/`.length),
      }),
    );
    await ctx.queueOps.changeVisibility(resources.queueUrl, message!.receiptHandle, 0);
    const { runs, handlers } = counting();
    const { source, logger } = sourceFor(handlers);
    await drainQueue(ctx, resources, source);
    expect(runs).toEqual([]);
    expect(logger.lines.some((line) => line.message === 'event will be retried')).toBe(false);
    expect(await ctx.receiveAll(resources.dlqUrl)).toHaveLength(1);
    expect(await inbox().get(inboxKey(PROVIDER, 'msg_gone'))).toMatchObject({
      status: 'dead-lettered',
      lastErrorCode: 'payload_missing',
    });
  });

  it('dead-letters a reference to another bucket as payload_ref_invalid at once, without fetching it', async () => {
    const raw = Buffer.from(body(3));
    const sha = createHash('sha256').update(raw).digest('hex');
    const envelope = buildEnvelope({
      provider: PROVIDER,
      dedupKey: 'msg_foreign',
      contentType: 'application/json',
      payloadSha256: sha,
      body: raw,
      dataref: `s3://someone-elses-bucket/${payloadKey(PROVIDER, sha)}`,
      receivedAtMs: Date.now(),
    });
    await ctx.queueOps.sendRaw(resources.queueUrl, serializeEnvelope(envelope), envelopeAttributes(envelope));
    const reads = faultForTest(ctx.clients.s3, { commands: 'GetObjectCommand' });
    const { runs, handlers } = counting();
    const { source, logger } = sourceFor(handlers);
    await drainQueue(ctx, resources, source);
    expect(reads.calls).toBe(0);
    expect(runs).toEqual([]);
    expect(logger.lines.some((line) => line.message === 'event will be retried')).toBe(false);
    expect((await inbox().get(inboxKey(PROVIDER, 'msg_foreign')))?.lastErrorCode).toBe('payload_ref_invalid');
  });

  it('rewrites a payload object older than a day when it reads it, so a redriven message still finds it', async () => {
    await deliver('msg_old_object', body(1, 2000));
    const writes = faultForTest(ctx.clients.s3, { commands: 'PutObjectCommand' });
    writes.off();
    const { runs, handlers } = counting();
    // The processor's clock is two days ahead of the object's LastModified.
    const twoDaysOn = new TestClock(Date.now() + 2 * 86_400_000);
    const { source } = sourceFor(handlers, { clock: twoDaysOn });
    await source.runOnce();
    expect(runs).toEqual(['msg_old_object']);
    expect(writes.calls).toBe(1);
  });

  it('does not rewrite a fresh payload object', async () => {
    await deliver('msg_fresh_object', body(1, 2000));
    const writes = faultForTest(ctx.clients.s3, { commands: 'PutObjectCommand' });
    writes.off();
    const { runs, handlers } = counting();
    const { source } = sourceFor(handlers);
    await source.runOnce();
    expect(runs).toEqual(['msg_fresh_object']);
    expect(writes.calls).toBe(0);
  });
});

/** A source whose invocations may run 2 s, with no lease margin: a lease left behind lapses in 2 s. */
function shortLeaseSource(handlers: readonly EventDefinition[]) {
  const processor = processHandlerFor(ctx, resources, handlers, {
    config,
    leaseMarginMs: 0,
    sleep: async () => undefined,
  });
  return {
    ...processor,
    source: eventSourceFor(ctx, resources, processor.handler, { functionTimeoutMs: 2_000 }),
  };
}

describe('processor: a repeated delivery of the same message', () => {
  it('waits for a live worker when SQS hands out the same message again while it runs: the effect runs once', async () => {
    await deliver('msg_dup_receive');
    const [message] = await ctx.receiveAll(resources.queueUrl);
    let release: () => void = () => undefined;
    const { runs, handlers } = counting(() => new Promise<void>((resolve) => (release = resolve)));
    const first = processHandlerFor(ctx, resources, handlers, { config });
    const running = first.handler({ Records: [sqsRecordFrom(message!, resources.queueArn)] });
    await expect.poll(() => runs.length).toBe(1);
    // The same message id, handed out again (SQS standard queues deliver at least once).
    const second = processHandlerFor(ctx, resources, handlers, { config });
    const again = sqsRecordFrom({ ...message!, receiveCount: 2 }, resources.queueArn);
    expect((await second.handler({ Records: [again] })).batchItemFailures).toHaveLength(1);
    expect(second.logger.last()?.attributes.errorCode).toBe('lease_held');
    release();
    expect((await running).batchItemFailures).toEqual([]);
    expect(runs).toEqual(['msg_dup_receive']);
  });
});

describe('processor: giving up is never half done', () => {
  it('puts off a give-up whose dead-lettered mark fails until its lease lapsed, and the next receive (not lease_held) gives it up', async () => {
    // One copy: a second one SQS handed out during the first receive's lease would rightly meet lease_held.
    if (ctx.sqsDouble) onTestFinished(ctx.sqsDouble.set({ duplicate: 0 }));
    await deliver('msg_giveup_retry');
    const fault = faultForTest(ctx.clients.dynamodb, {
      commands: 'UpdateItemCommand',
      match: isDeadLetterMark,
    });
    const { runs, handlers } = counting(() => {
      throw new PermanentError('rejected_downstream');
    });
    const { source, logger } = shortLeaseSource(handlers);
    await source.runOnce();
    expect(logger.last()?.attributes).toMatchObject({ outcome: 'retry', errorCode: 'rejected_downstream' });
    // The lease of the receive that could not mark is still live; the retry waits it out.
    expect(Number(logger.last()?.attributes.delaySeconds)).toBeGreaterThanOrEqual(2);
    expect((await inbox().get(inboxKey(PROVIDER, 'msg_giveup_retry')))?.status).toBe('processing');
    fault.remove();
    await drainQueue(ctx, resources, source);
    expect(logger.lines.some((line) => line.attributes.errorCode === 'lease_held')).toBe(false);
    expect(runs).toEqual(['msg_giveup_retry', 'msg_giveup_retry']);
    expect(await ctx.receiveAll(resources.dlqUrl)).toHaveLength(1);
    expect((await inbox().get(inboxKey(PROVIDER, 'msg_giveup_retry')))?.status).toBe('dead-lettered');
  });

  it('never leaves a live lease in the way of the next receive after a failed failure mark: the retry waits it out', async () => {
    await deliver('msg_failmark');
    let calls = 0;
    const { runs, handlers } = counting(() => {
      calls++;
      if (calls === 1) throw new Error('downstream timeout');
    });
    const markFailed = faultForTest(ctx.clients.dynamodb, {
      commands: 'UpdateItemCommand',
      times: 1,
      match: (input) => isFailedMark(input),
    });
    const { source, logger } = shortLeaseSource(handlers);
    await drainQueue(ctx, resources, source);
    expect(markFailed.failures).toBe(1);
    expect(runs).toEqual(['msg_failmark', 'msg_failmark']);
    expect(logger.lines.some((line) => line.attributes.errorCode === 'lease_held')).toBe(false);
    expect((await inbox().get(inboxKey(PROVIDER, 'msg_failmark')))?.status).toBe('processed');
  });
});

describe('processor: what verify accepts, the processor parses', () => {
  it('processes a JSON body that starts with a UTF-8 byte-order mark, as verify accepted it', async () => {
    const withBom = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(body(7))]);
    await deliver('msg_bom', withBom);
    const { runs, handlers } = counting();
    const { source, logger } = sourceFor(handlers);
    await drainQueue(ctx, resources, source);
    expect(runs).toEqual(['msg_bom']);
    // The SQS double may hand the message out twice, as SQS may; the second copy is skipped.
    const outcomes = logger.lines.map((line) => line.attributes.outcome);
    expect(outcomes.filter((outcome) => outcome !== 'duplicate_skipped')).toEqual(['processed']);
  });
});

describe('processor: a handler that hangs', () => {
  it('is cut off before the invocation times out, its signal aborted, and retried on the schedule, then dead-lettered', async () => {
    await deliver('msg_hang');
    const signals: AbortSignal[] = [];
    // A downstream call that never answers.
    const { handlers } = counting((context) => {
      signals.push(context.signal);
      return new Promise<void>(() => undefined);
    });
    const processor = processHandlerFor(ctx, resources, handlers, { config, leaseMarginMs: 0 });
    const source = eventSourceFor(ctx, resources, processor.handler, { functionTimeoutMs: 3_000 });
    await drainQueue(ctx, resources, source, 30_000);
    // Each receive answered within the invocation, on the schedule's waits, not the queue's visibility.
    expect(
      processor.logger.lines.map((line) => [line.attributes.outcome, line.attributes.errorCode]),
    ).toEqual([
      ['retry', 'handler_timeout'],
      ['retry', 'handler_timeout'],
      ['dead_lettered', 'handler_timeout'],
      ...processor.logger.lines.slice(3).map(() => ['draining', 'handler_timeout']),
    ]);
    expect(signals).toHaveLength(3);
    expect(signals.every((signal) => signal.aborted)).toBe(true);
    expect(await inbox().get(inboxKey(PROVIDER, 'msg_hang'))).toMatchObject({
      status: 'dead-lettered',
      lastErrorCode: 'handler_timeout',
      attempts: 3,
    });
    // Each attempt on the record's log, with the receive the processor was on.
    const log = (await inbox().get(inboxKey(PROVIDER, 'msg_hang')))?.attemptLog ?? [];
    expect(log.map((entry) => entry.split('|').slice(1).join('|'))).toEqual([
      'handler_timeout|1|failed',
      'handler_timeout|2|failed',
      'handler_timeout|3|dead-lettered',
    ]);
  }, 40_000);
});

describe('processor: SQS limits on a retry wait', () => {
  it("shortens a 12 h step by what the message can have waited before the invocation, so SQS's 12 h limit is never passed", async () => {
    const twelveHours = parseConfig({
      providers: { 'standard-webhooks': { scheme: 'standard-webhooks' } },
      queue: { retrySchedule: ['12h'] },
    });
    await deliver('msg_12h');
    const { handlers } = counting(() => {
      throw new Error('downstream timeout');
    });
    const processor = processHandlerFor(ctx, resources, handlers, {
      config: twelveHours,
      random: () => 0.999_999,
    });
    await eventSourceFor(ctx, resources, processor.handler).runOnce();
    const delay = Number(processor.logger.last()?.attributes.delaySeconds);
    // 30 s function timeout: the queue's visibility timeout, 180 s, and Lambda's 10 s Init limit (a cold
    // start runs it after the invoke) are taken off the 12 h.
    expect(delay).toBeLessThanOrEqual(43_200 - 180 - 10);
    expect(delay).toBeGreaterThan(43_200 - 180 - 10 - 5);
  });
});
