// The processor end to end: deliveries enter through the real verify handler, an emulated SQS event source
// hands batches to the real processor, and fauxqs applies the real redrive policy.
import { beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { parseConfig } from '../../../config';
import { DynamoInbox } from '../../../lambdas/adapters/dynamo-inbox';
import { standardWebhooks } from '../../../lambdas/core/schemes/standard-webhooks';
import { defineEvent, type EventDefinition, PermanentError } from '../../../lambdas/events';
import { SqsEventSource, sqsRecordFrom } from '../../../local/sqs-event-source';
import { useEmulators } from '../../support/emulators';
import {
  processHandlerFor,
  StaticSecrets,
  signedEvent,
  TestClock,
  verifyHandlerFor,
} from '../../support/pipeline';

const config = parseConfig({
  providers: {
    'standard-webhooks': { scheme: 'standard-webhooks' },
    strict: { scheme: 'standard-webhooks', unknownEvents: 'dlq' },
  },
  queue: { maxReceiveCount: 3, batchSize: 10, backoffBaseSeconds: 1, backoffCapSeconds: 60 },
});
const ctx = useEmulators({ config });
const SECRET = standardWebhooks.generateSecret();

let resources: typeof ctx.resources;
let clock: TestClock;
beforeEach(async () => {
  resources = await ctx.provision();
  clock = new TestClock(Date.now());
});

async function deliver(provider: string, id: string, payload: unknown): Promise<void> {
  const { handler } = verifyHandlerFor(ctx, resources, {
    secrets: new StaticSecrets({ [provider]: [SECRET] }),
    clock,
  });
  const body = typeof payload === 'string' ? payload : JSON.stringify(payload);
  const response = await handler(
    signedEvent(provider, config, { body, secret: SECRET, timestamp: clock.seconds(), id }),
  );
  expect(response.statusCode).toBe(202);
}

function eventSource(handlers: readonly EventDefinition[], random?: () => number) {
  const processor = processHandlerFor(ctx, resources, handlers, { config, random });
  const source = new SqsEventSource(ctx.queueOps, {
    queueUrl: resources.queueUrl,
    queueArn: resources.queueArn,
    batchSize: 10,
    maxBatchingWindowSeconds: 0,
    functionTimeoutMs: 30_000,
    handler: processor.handler,
  });
  return { source, logger: processor.logger };
}

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
    const messages = await ctx.queueOps.receive(resources.queueUrl, { maxMessages: 10 });
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
    expect(await source.runOnce()).toBe(4);
    const counts = await ctx.countMessages(resources.queueUrl);
    expect(counts.visible + counts.inFlight).toBe(1);
  });
});

describe('processor: retries and the dead-letter queue', () => {
  it('moves a poison message to the DLQ after exactly maxReceiveCount receives, with growing backoff', async () => {
    await deliver('standard-webhooks', 'msg_poison', sw('item.created'));
    let attempts = 0;
    const { source, logger } = eventSource(
      [
        anyEvent(() => {
          attempts++;
          throw new Error('still broken');
        }),
      ],
      () => 1,
    );
    const deadline = Date.now() + 20_000;
    while (Date.now() < deadline && (await ctx.countMessages(resources.dlqUrl)).visible === 0)
      await source.runOnce(1);
    expect(attempts).toBe(config.queue.maxReceiveCount);
    const delays = logger.lines
      .filter((l) => l.message === 'event will be retried')
      .map((l) => l.attributes.delaySeconds);
    expect(delays).toEqual([1, 2, 4]);
    const dlq = await ctx.receiveAll(resources.dlqUrl);
    expect(dlq).toHaveLength(1);
    expect(JSON.parse(dlq[0]!.body).dedupkey).toBe('msg_poison');
    const counts = await ctx.countMessages(resources.queueUrl);
    expect(counts.visible + counts.inFlight).toBe(0);
    expect(await inbox().get('standard-webhooks#msg_poison')).toMatchObject({
      status: 'failed',
      attempts: 3,
      lastErrorCode: 'Error',
    });
  });

  it('dead-letters a PermanentError after one attempt with its error code, and marks the inbox dead-lettered', async () => {
    await deliver('standard-webhooks', 'msg_perm', sw('order.cancelled'));
    let attempts = 0;
    const { source } = eventSource([
      anyEvent(() => {
        attempts++;
        throw new PermanentError('order_not_found');
      }),
    ]);
    await source.runOnce();
    expect(attempts).toBe(1);
    const [message] = await ctx.receiveAll(resources.dlqUrl);
    expect(message?.attributes).toMatchObject({
      errorCode: 'order_not_found',
      provider: 'standard-webhooks',
      dedupKey: 'msg_perm',
    });
    expect(await inbox().get('standard-webhooks#msg_perm')).toMatchObject({
      status: 'dead-lettered',
      lastErrorCode: 'order_not_found',
    });
    const counts = await ctx.countMessages(resources.queueUrl);
    expect(counts.visible + counts.inFlight).toBe(0);
  });

  it('dead-letters a payload that does not match the handler schema as schema_mismatch', async () => {
    await deliver('standard-webhooks', 'msg_schema', { type: 'x', timestamp: 't', data: 'not an object' });
    const { source } = eventSource([anyEvent(() => undefined)]);
    await source.runOnce();
    const [message] = await ctx.receiveAll(resources.dlqUrl);
    expect(message?.attributes.errorCode).toBe('schema_mismatch');
  });

  it('dead-letters a hand-written malformed envelope as malformed_envelope instead of retrying it', async () => {
    await ctx.queueOps.sendRaw(resources.queueUrl, '{"hello":"world"}', {});
    const { source } = eventSource([anyEvent(() => undefined)]);
    await source.runOnce();
    const [message] = await ctx.receiveAll(resources.dlqUrl);
    expect(message?.attributes.errorCode).toBe('malformed_envelope');
    expect(message?.body).toBe('{"hello":"world"}');
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
    await source.runOnce();
    const [message] = await ctx.receiveAll(resources.dlqUrl);
    expect(message?.attributes.errorCode).toBe('unknown_event');
  });
});

describe('processor: exactly-once effects', () => {
  it('runs the effect once when the same envelope is delivered twice', async () => {
    await deliver('standard-webhooks', 'msg_twice', sw('item.created'));
    const [original] = await ctx.receiveAll(resources.queueUrl);
    await ctx.queueOps.sendRaw(resources.queueUrl, original!.body, original!.attributes);
    await ctx.queueOps.changeVisibility(resources.queueUrl, original!.receiptHandle, 0);
    const keys: string[] = [];
    const { source, logger } = eventSource([anyEvent((_d, c) => void keys.push(c.idempotencyKey))]);
    while ((await source.runOnce()) > 0);
    expect(keys).toEqual(['standard-webhooks:msg_twice']);
    expect(logger.lines.map((l) => l.attributes.outcome).sort()).toEqual(['duplicate_skipped', 'processed']);
  });

  it('does not let a second worker run the effect while the first holds a live lease', async () => {
    await deliver('standard-webhooks', 'msg_lease', sw('item.created'));
    const [message] = await ctx.receiveAll(resources.queueUrl);
    let release: () => void = () => undefined;
    let effects = 0;
    const slow = processHandlerFor(
      ctx,
      resources,
      [
        anyEvent(() => {
          effects++;
          return new Promise<void>((r) => {
            release = r;
          });
        }),
      ],
      { config },
    );
    const first = slow.handler({ Records: [sqsRecordFrom(message!, resources.queueArn)] });
    await new Promise((r) => setTimeout(r, 300));
    const second = await slow.handler({ Records: [sqsRecordFrom(message!, resources.queueArn)] });
    expect(second.batchItemFailures).toHaveLength(1);
    expect(slow.logger.last()?.attributes.errorCode).toBe('lease_held');
    release();
    expect((await first).batchItemFailures).toEqual([]);
    expect(effects).toBe(1);
  });

  it('processes a payload that went through S3 with byte-identical data', async () => {
    const blob = 'é'.repeat(150_000);
    await deliver('standard-webhooks', 'msg_s3', sw('big.one', { blob }));
    let seen: Buffer | undefined;
    const { source } = eventSource([
      anyEvent((_d, c) => {
        seen = c.rawBody;
      }),
    ]);
    await source.runOnce();
    expect(seen?.equals(Buffer.from(JSON.stringify(sw('big.one', { blob }))))).toBe(true);
    expect((await inbox().get('standard-webhooks#msg_s3'))?.status).toBe('processed');
  });
});
