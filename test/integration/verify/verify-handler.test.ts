// The verify handler end to end against dynalite and fauxqs, through the real SDK clients: every row of
// the "Answers" table of docs/how-it-works.md, with the queue and the inbox checked after each.
import { createHash, randomBytes } from 'node:crypto';
import { GetObjectCommand } from '@aws-sdk/client-s3';
import { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { parseConfig } from '../../../config';
import { DynamoInbox } from '../../../lambdas/adapters/dynamo-inbox';
import { SecretsManagerSource } from '../../../lambdas/adapters/secrets';
import { standardWebhooks } from '../../../lambdas/core/schemes/standard-webhooks';
import { defineEvent } from '../../../lambdas/events';
import { sqsRecordFrom } from '../../../local/sqs-event-source';
import { useEmulators } from '../../support/emulators';
import { injectFault } from '../../support/faults';
import {
  effectCounter,
  freshVerifyPipeline,
  processHandlerFor,
  StaticSecrets,
  signedEvent,
  type VerifySetup,
  verifyHandlerFor,
} from '../../support/pipeline';

const config = parseConfig({
  providers: {
    'standard-webhooks': { scheme: 'standard-webhooks', maxBodyBytes: 2 * 1024 * 1024 },
    github: { scheme: 'github' },
    stripe: { scheme: 'stripe' },
    empty: { scheme: 'github' },
  },
  inlineLimitBytes: 196_608,
});
const ctx = useEmulators({ config });

const SW_SECRET = standardWebhooks.generateSecret();
const GH_SECRET = 'gh-secret-for-tests';
const ST_SECRET = 'whsec_stripe_for_tests';
const secrets = () =>
  new StaticSecrets({
    'standard-webhooks': [SW_SECRET],
    github: [GH_SECRET],
    stripe: [ST_SECRET],
    empty: [],
  });

let resources: VerifySetup['resources'];
let clock: VerifySetup['clock'];
let pipeline: VerifySetup['pipeline'];
beforeEach(async () => {
  ({ resources, clock, pipeline } = await freshVerifyPipeline(ctx, secrets()));
});

const body = (n = 1) => `{"type":"invoice.paid","timestamp":"2026-11-30T12:00:00Z","data":{"n":${n}}}`;
const swEvent = (
  overrides: { body?: string | Buffer; id?: string; timestamp?: number; secret?: string } = {},
  tweak = {},
) =>
  signedEvent(
    'standard-webhooks',
    config,
    {
      body: overrides.body ?? body(),
      secret: overrides.secret ?? SW_SECRET,
      timestamp: overrides.timestamp ?? clock.seconds(),
      id: overrides.id ?? 'msg_1',
    },
    tweak,
  );
const queued = async () => (await ctx.countMessages(resources.queueUrl)).visible;
const inbox = () => new DynamoInbox(ctx.clients.dynamodb, resources.tableName);
const json = (response: { body: string }) => JSON.parse(response.body);

/** Runs every queued message through the processor, one at a time; the number of effects that ran. */
async function processQueued(): Promise<number> {
  const { runs, handlers } = effectCounter('standard-webhooks');
  const processor = processHandlerFor(ctx, resources, handlers);
  for (const message of await ctx.receiveAll(resources.queueUrl)) {
    const response = await processor.handler({ Records: [sqsRecordFrom(message, resources.queueArn)] });
    expect(response.batchItemFailures).toEqual([]);
  }
  return runs.length;
}

describe('verify handler: the documented answers table', () => {
  it('accepts a signed delivery with 202, one message, and a claimed inbox record (no mark after the send)', async () => {
    const response = await pipeline.handler(swEvent());
    expect(response.statusCode).toBe(202);
    expect(json(response)).toEqual({ id: 'standard-webhooks:msg_1' });
    const messages = await ctx.receiveAll(resources.queueUrl);
    expect(messages).toHaveLength(1);
    const envelope = JSON.parse(messages[0]!.body);
    expect(envelope).toMatchObject({
      specversion: '1.0',
      id: 'standard-webhooks:msg_1',
      type: 'invoice.paid',
      dedupkey: 'msg_1',
    });
    expect(Buffer.from(envelope.data_base64, 'base64').toString()).toBe(body());
    expect(messages[0]!.attributes).toMatchObject({
      provider: 'standard-webhooks',
      eventType: 'invoice.paid',
      dedupKey: 'msg_1',
    });
    const record = await inbox().get('standard-webhooks#msg_1');
    expect(record).toMatchObject({ status: 'claimed', eventType: 'invoice.paid' });
  });

  it.each([
    ['a method other than POST', 405, 'method_not_allowed', () => swEvent({}, { method: 'GET' })],
    [
      'an unknown provider',
      404,
      'unknown_provider',
      () => ({ ...swEvent(), pathParameters: { provider: 'gitlab' } }),
    ],
    [
      'a body over the provider max',
      413,
      'body_too_large',
      () => swEvent({ body: Buffer.alloc(2 * 1024 * 1024 + 1, 0x20) }),
    ],
    [
      'a content type not allowed',
      415,
      'unsupported_media_type',
      () => swEvent({}, { headers: { 'Content-Type': 'text/plain' } }),
    ],
    [
      'a missing content type',
      415,
      'unsupported_media_type',
      () => swEvent({}, { headers: { 'Content-Type': undefined } }),
    ],
    ['a bad signature', 401, 'bad_signature', () => swEvent({ secret: standardWebhooks.generateSecret() })],
    ['a stale timestamp', 401, 'stale_timestamp', () => swEvent({ timestamp: clock.seconds() - 301 })],
    ['authentic non-JSON where JSON is required', 400, 'not_json', () => swEvent({ body: 'not json' })],
  ])('rejects %s with %i and reason %s, and enqueues nothing', async (_name, status, reason, event) => {
    const response = await pipeline.handler(event());
    expect(response.statusCode).toBe(status);
    expect(await queued()).toBe(0);
    expect(await inbox().get('standard-webhooks#msg_1')).toBeUndefined();
    // The answer and the log line carry the same named reason: compared with the table, not with each
    // other, so a missing reason on both sides fails.
    expect(json(response).error).toBe(reason);
    expect(pipeline.logger.last()?.attributes.reason).toBe(reason);
  });

  it('answers 500 and logs no_secret for a provider without a secret (fail closed)', async () => {
    const event = signedEvent('empty', config, {
      body: '{}',
      secret: 'anything',
      timestamp: clock.seconds(),
    });
    const response = await pipeline.handler(event);
    expect(response.statusCode).toBe(500);
    expect(pipeline.logger.last()).toMatchObject({ level: 'error', attributes: { reason: 'no_secret' } });
    expect(await queued()).toBe(0);
  });

  it('answers an exact duplicate 200 {"duplicate":true} without a second message once the first is processed', async () => {
    expect((await pipeline.handler(swEvent())).statusCode).toBe(202);
    await processQueued();
    const again = await pipeline.handler(swEvent());
    expect(again.statusCode).toBe(200);
    expect(json(again)).toMatchObject({ duplicate: true });
    expect(await queued()).toBe(0);
  });

  it('answers a duplicate of a delivery not yet processed 200 and sends a copy, whose effect runs once', async () => {
    // No mark follows the send, so nothing says the first has been sent: the copy makes it durable
    // whatever became of the first invocation.
    expect((await pipeline.handler(swEvent())).statusCode).toBe(202);
    const again = await pipeline.handler(swEvent());
    expect(again.statusCode).toBe(200);
    expect(json(again)).toMatchObject({ duplicate: true });
    expect(await queued()).toBe(2);
    expect(await processQueued()).toBe(1);
  });

  it('answers a GitHub redelivery (same bytes, new delivery id) as a duplicate', async () => {
    const gh = (delivery: string) =>
      signedEvent('github', config, {
        body: '{"zen":"Design for failure."}',
        secret: GH_SECRET,
        timestamp: 0,
        id: delivery,
        eventType: 'ping',
      });
    expect((await pipeline.handler(gh('d-1'))).statusCode).toBe(202);
    await processQueued();
    expect((await pipeline.handler(gh('d-2'))).statusCode).toBe(200);
    expect(await queued()).toBe(0);
  });

  it('answers a Stripe retry of the same event as a duplicate', async () => {
    const event = '{"id":"evt_1","type":"charge.succeeded","data":{"object":{"id":"ch_1"}}}';
    const st = (ts: number) =>
      signedEvent('stripe', config, { body: event, secret: ST_SECRET, timestamp: ts });
    expect((await pipeline.handler(st(clock.seconds()))).statusCode).toBe(202);
    await processQueued();
    clock.advance(60);
    expect((await pipeline.handler(st(clock.seconds()))).statusCode).toBe(200);
    expect(await queued()).toBe(0);
  });

  it('answers the same signed id with a different body 409 and leaves the first record untouched', async () => {
    await pipeline.handler(swEvent());
    const before = await inbox().get('standard-webhooks#msg_1');
    const response = await pipeline.handler(swEvent({ body: body(2) }));
    expect(response.statusCode).toBe(409);
    expect(pipeline.logger.last()).toMatchObject({ level: 'warn', message: 'delivery conflict' });
    expect(await inbox().get('standard-webhooks#msg_1')).toEqual(before);
    expect(await queued()).toBe(1);
  });

  it('answers a delivery whose claim another invocation holds 200 duplicate, with a copy enqueued', async () => {
    // A claim whose lease is live: made by a concurrent invocation that may not have sent yet.
    await inbox().claim({
      provider: 'standard-webhooks',
      dedupKey: 'msg_1',
      eventType: 'invoice.paid',
      payloadSha256: createHash('sha256').update(body()).digest('hex'),
      nowMs: clock.now(),
      leaseSeconds: 30,
      ttlSeconds: 3600,
      claimToken: 'other-worker',
    });
    const response = await pipeline.handler(swEvent());
    expect(response.statusCode).toBe(200);
    expect(json(response)).toMatchObject({ duplicate: true });
    expect(await queued()).toBe(1);
    // The other invocation's claim stays as it was.
    expect((await inbox().get('standard-webhooks#msg_1'))?.claimToken).toBe('other-worker');
  });

  it('makes an expired record (TTL not yet applied) claimable again', async () => {
    await pipeline.handler(swEvent());
    await ctx.receiveAll(resources.queueUrl);
    clock.advance(config.providers['standard-webhooks']!.dedupTtlSeconds + 1);
    const response = await pipeline.handler(swEvent());
    expect(response.statusCode).toBe(202);
  });
});

describe('verify handler: concurrency', () => {
  it('answers 50 concurrent identical deliveries with one 202 and 200 duplicates, and runs the effect once', async () => {
    const responses = await Promise.all(Array.from({ length: 50 }, () => pipeline.handler(swEvent())));
    const statuses = responses.map((r) => r.statusCode);
    expect(statuses.filter((s) => s === 202)).toHaveLength(1);
    expect(statuses.every((s) => s === 202 || s === 200 || s === 503)).toBe(true);
    // Up to one copy per duplicate answered while the claim was unprocessed; one effect whatever the count.
    expect(await processQueued()).toBe(1);
  });
});

describe('verify handler: dependency failures lose nothing', () => {
  it('answers 503 and enqueues nothing when DynamoDB is down', async () => {
    const fault = injectFault(ctx.clients.dynamodb, { commands: 'PutItemCommand' });
    try {
      const response = await pipeline.handler(swEvent());
      expect(response.statusCode).toBe(503);
      expect(pipeline.logger.last()).toMatchObject({
        level: 'error',
        attributes: { reason: 'dynamodb_unavailable' },
      });
    } finally {
      fault.remove();
    }
    expect(await queued()).toBe(0);
  });

  it('releases the claim when SendMessage fails, so the retry gets 202 and exactly one message', async () => {
    const fault = injectFault(ctx.clients.sqs, { commands: 'SendMessageCommand', times: 1 });
    try {
      expect((await pipeline.handler(swEvent())).statusCode).toBe(503);
      // Lapsed at once (not deleted: it could hold an earlier delivery's place), so the retry takes it.
      expect((await inbox().get('standard-webhooks#msg_1'))?.leaseUntil).toBe(0);
      expect((await pipeline.handler(swEvent())).statusCode).toBe(202);
    } finally {
      fault.remove();
    }
    expect(await ctx.receiveAll(resources.queueUrl)).toHaveLength(1);
  });

  it('retakes a lapsed claim whose message was sent but not processed: the retry enqueues again and the processor runs the effect once', async () => {
    const first = await pipeline.handler(swEvent());
    expect(first.statusCode).toBe(202);
    expect((await inbox().get('standard-webhooks#msg_1'))?.status).toBe('claimed');
    clock.advance(config.claimLeaseSeconds + 1);
    expect((await pipeline.handler(swEvent())).statusCode).toBe(202);

    const messages = await ctx.receiveAll(resources.queueUrl);
    expect(messages).toHaveLength(2);
    let effects = 0;
    const processor = processHandlerFor(ctx, resources, [
      defineEvent({
        provider: 'standard-webhooks',
        type: '*',
        schema: z.object({ type: z.string() }),
        handle: () => void effects++,
      }),
    ]);
    for (const message of messages) {
      const response = await processor.handler({ Records: [sqsRecordFrom(message, resources.queueArn)] });
      expect(response.batchItemFailures).toEqual([]);
    }
    expect(effects).toBe(1);
    expect((await inbox().get('standard-webhooks#msg_1'))?.status).toBe('processed');
  });

  it('keeps verifying from a warm secret cache while Secrets Manager is down, and answers 503 when cold', async () => {
    const client = new SecretsManagerClient({
      region: 'us-east-1',
      credentials: { accessKeyId: 'x', secretAccessKey: 'x' },
    });
    // Secrets Manager has no emulator: answer GetSecretValue in a middleware, then fail it.
    client.middlewareStack.add(
      (_next, context) => async (args) => {
        const input = args.input as { VersionStage?: string };
        if (context.commandName !== 'GetSecretValueCommand') throw new Error('unexpected');
        if (input.VersionStage === 'AWSPREVIOUS')
          throw Object.assign(new Error('no previous'), { name: 'ResourceNotFoundException' });
        return { output: { SecretString: SW_SECRET, $metadata: {} }, response: {} } as never;
      },
      // In the build step, after test/support/faults.ts's initialize-step fault, so the fault can pre-empt it.
      { step: 'build', name: 'fake-secrets' },
    );
    const arns = { 'standard-webhooks': 'arn:aws:secretsmanager:us-east-1:000000000000:secret:sw' };
    const warm = new SecretsManagerSource(client, arns, { clock, cacheSeconds: 60 });
    const warmPipeline = verifyHandlerFor(ctx, resources, { secrets: warm, clock });
    expect((await warmPipeline.handler(swEvent({ id: 'msg_warm_1' }))).statusCode).toBe(202);

    const outage = injectFault(client, { commands: 'GetSecretValueCommand' });
    clock.advance(120); // past the cache TTL: it must still serve the cached secrets
    expect((await warmPipeline.handler(swEvent({ id: 'msg_warm_2' }))).statusCode).toBe(202);

    const cold = verifyHandlerFor(ctx, resources, {
      secrets: new SecretsManagerSource(client, arns, { clock }),
      clock,
    });
    const response = await cold.handler(swEvent({ id: 'msg_cold_1' }));
    expect(response.statusCode).toBe(503);
    expect(cold.logger.last()?.attributes.reason).toBe('secrets_unavailable');
    outage.remove();
  });
});

describe('verify handler: bytes', () => {
  it('sends a 1 MiB body through S3, points the envelope at it, and reads back identical bytes', async () => {
    const frame = (blob: string) => `{"type":"big","timestamp":"t","data":{"blob":"${blob}"}}`;
    const padded = Buffer.from(
      frame(
        randomBytes(800_000)
          .toString('base64')
          .slice(0, 1024 * 1024 - frame('').length),
      ),
    );
    expect(padded.length).toBe(1024 * 1024);
    const event = swEvent({ body: padded, id: 'msg_big' });
    const response = await pipeline.handler(event);
    expect(response.statusCode).toBe(202);
    const [message] = await ctx.receiveAll(resources.queueUrl);
    const envelope = JSON.parse(message!.body);
    expect(envelope.data_base64).toBeUndefined();
    expect(envelope.dataref).toMatch(
      new RegExp(`^s3://${resources.bucketName}/payloads/standard-webhooks/[0-9a-f]{64}$`),
    );
    const key = envelope.dataref.slice(`s3://${resources.bucketName}/`.length);
    const object = await ctx.clients.s3.send(
      new GetObjectCommand({ Bucket: resources.bucketName, Key: key }),
    );
    const stored = Buffer.from(await object.Body!.transformToByteArray());
    expect(stored.equals(padded)).toBe(true);
    expect(envelope.payloadsha256).toBe(createHash('sha256').update(padded).digest('hex'));
  });

  it('carries a body with invalid UTF-8 through the whole path byte for byte', async () => {
    const raw = Buffer.concat([
      Buffer.from('{"type":"x","timestamp":"t","data":{"s":"'),
      Buffer.from([0xff, 0xc3, 0x28, 0xe2, 0x80, 0xa8]),
      Buffer.from('"}}'),
    ]);
    const lenient = parseConfig({
      providers: { 'standard-webhooks': { scheme: 'standard-webhooks', requireJson: false } },
    });
    const raw_pipeline = verifyHandlerFor(ctx, resources, { secrets: secrets(), clock, config: lenient });
    expect((await raw_pipeline.handler(swEvent({ body: raw, id: 'msg_bytes' }))).statusCode).toBe(202);
    const [message] = await ctx.receiveAll(resources.queueUrl);
    const envelope = JSON.parse(message!.body);
    const carried = Buffer.from(envelope.data_base64, 'base64');
    expect(carried.equals(raw)).toBe(true);
    expect(envelope.payloadsha256).toBe(createHash('sha256').update(raw).digest('hex'));
    expect((await inbox().get('standard-webhooks#msg_bytes'))?.payloadSha256).toBe(envelope.payloadsha256);
  });
});
