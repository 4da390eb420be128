// The verify handler under AWS's failure semantics, against dynalite and fauxqs through the real SDK
// clients: writes the service applied whose answers were lost (the SDK retries them), and claims that
// lapsed with their message already enqueued. One test per scenario of the delivery-guarantees issue.
import { beforeEach, describe, expect, it } from 'vitest';
import { parseConfig } from '../../../config';
import { DynamoInbox } from '../../../lambdas/adapters/dynamo-inbox';
import { standardWebhooks } from '../../../lambdas/core/schemes/standard-webhooks';
import { sqsRecordFrom } from '../../../local/sqs-event-source';
import { useEmulators } from '../../support/emulators';
import { attemptFaultForTest } from '../../support/faults';
import {
  deliverSigned,
  effectCounter,
  freshVerifyPipeline,
  processHandlerFor,
  signedEvent,
  type VerifySetup,
} from '../../support/pipeline';

const config = parseConfig({ providers: { 'standard-webhooks': { scheme: 'standard-webhooks' } } });
const ctx = useEmulators({ config });
const SECRET = standardWebhooks.generateSecret();
const PK = 'standard-webhooks#msg_1';

let resources: VerifySetup['resources'];
let clock: VerifySetup['clock'];
let pipeline: VerifySetup['pipeline'];
beforeEach(async () => {
  ({ resources, clock, pipeline } = await freshVerifyPipeline(ctx, { 'standard-webhooks': [SECRET] }));
});

const body = (n = 1) => `{"type":"invoice.paid","timestamp":"2026-11-30T12:00:00Z","data":{"n":${n}}}`;
const event = (payload = body()) =>
  signedEvent('standard-webhooks', config, {
    body: payload,
    secret: SECRET,
    timestamp: clock.seconds(),
    id: 'msg_1',
  });
const inbox = () => new DynamoInbox(ctx.clients.dynamodb, resources.tableName);

describe('verify: our own write, retried by the SDK, is ours', () => {
  it('answers 202 and enqueues once when the claim was applied and its answer lost (not 503 in_flight to itself)', async () => {
    const lost = attemptFaultForTest(ctx.clients.dynamodb, {
      commands: 'PutItemCommand',
      fault: 'lost-answer',
      times: 1,
    });
    const response = await pipeline.handler(event());
    expect(lost.failures).toBe(1);
    expect(response.statusCode).toBe(202);
    expect(await ctx.receiveAll(resources.queueUrl)).toHaveLength(1);
    expect((await inbox().get(PK))?.status).toBe('claimed');
  });

  it('answers a Stripe-like retry 202 once the lease lapses when every answer of the claim was lost (503 first, nothing lost)', async () => {
    const lost = attemptFaultForTest(ctx.clients.dynamodb, {
      commands: 'PutItemCommand',
      fault: 'lost-answer',
      times: 2,
    });
    expect((await pipeline.handler(event())).statusCode).toBe(503);
    lost.remove();
    clock.advance(config.claimLeaseSeconds + 1);
    expect((await pipeline.handler(event())).statusCode).toBe(202);
    expect(await ctx.receiveAll(resources.queueUrl)).toHaveLength(1);
  });

  it('runs the effect once when SendMessage was stored twice because its first answer was lost', async () => {
    const lost = attemptFaultForTest(ctx.clients.sqs, {
      commands: 'SendMessageCommand',
      fault: 'lost-answer',
      times: 1,
    });
    expect((await pipeline.handler(event())).statusCode).toBe(202);
    lost.remove();
    const messages = await ctx.receiveAll(resources.queueUrl);
    expect(messages).toHaveLength(2);
    const { runs, handlers } = effectCounter('standard-webhooks');
    const processor = processHandlerFor(ctx, resources, handlers);
    for (const message of messages)
      await processor.handler({ Records: [sqsRecordFrom(message, resources.queueArn)] });
    expect(runs).toHaveLength(1);
    expect((await inbox().get(PK))?.status).toBe('processed');
  });
});

describe('verify: a lapsed claim is retaken only by the same bytes', () => {
  it('answers 409 to other bytes under the same signed id after the first claim lapsed with its message enqueued', async () => {
    // Delivery A is enqueued, not yet processed, and its claim lapses.
    expect((await pipeline.handler(event(body(1)))).statusCode).toBe(202);
    const before = await inbox().get(PK);
    expect(before?.status).toBe('claimed');
    clock.advance(config.claimLeaseSeconds + 1);
    // Body B, same id: a conflict, and the record still describes A.
    const conflicting = await pipeline.handler(event(body(2)));
    expect(conflicting.statusCode).toBe(409);
    expect(await inbox().get(PK)).toEqual(before);
    expect(await ctx.receiveAll(resources.queueUrl)).toHaveLength(1);
    // A's own retry (the same bytes) is still welcome.
    expect((await pipeline.handler(event(body(1)))).statusCode).toBe(202);
  });
});

describe('verify: a short dedup TTL never reopens a delivery the queue still holds', () => {
  const shortTtl = parseConfig({
    providers: { 'standard-webhooks': { scheme: 'standard-webhooks', dedupTtlSeconds: 3600 } },
  });

  it('answers a retry after the dedup TTL, while the first delivery may still be retried, as a duplicate, and other bytes as 409', async () => {
    const send = (payload: string) =>
      deliverSigned(ctx, resources, {
        config: shortTtl,
        provider: 'standard-webhooks',
        secret: SECRET,
        body: payload,
        id: 'msg_short_ttl',
        clock,
      });
    expect((await send(body(1))).statusCode).toBe(202);
    // 61 minutes on: past the 1-hour dedup TTL, well inside the 4 days the queue keeps the message. The
    // same bytes are welcome (a second copy at most, absorbed by the processor); other bytes are not.
    clock.advance(61 * 60);
    expect([200, 202]).toContain((await send(body(1))).statusCode);
    expect((await send(body(2))).statusCode).toBe(409);
    const messages = await ctx.receiveAll(resources.queueUrl);
    const hashes = new Set(messages.map((m) => JSON.parse(m.body).payloadsha256));
    expect(hashes.size).toBe(1);
  });
});
