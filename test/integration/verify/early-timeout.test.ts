// The verify Lambda's middy chain at the edge of its timeout: a dependency that hangs is given up before
// Lambda cuts the invocation off, the claim is given back, and the provider is told to retry. Against
// dynalite and fauxqs through the real SDK clients, with the hang injected below the SDK's retries.
import { beforeEach, describe, expect, it } from 'vitest';
import { parseConfig } from '../../../config';
import { DynamoInbox } from '../../../lambdas/adapters/dynamo-inbox';
import { standardWebhooks } from '../../../lambdas/core/schemes/standard-webhooks';
import { verifyLambda } from '../../../lambdas/verify/middy-chain';
import { useEmulators } from '../../support/emulators';
import { attemptFaultForTest } from '../../support/faults';
import { endingIn, freshVerifyPipeline, signedEvent, type VerifySetup } from '../../support/pipeline';

const config = parseConfig({ providers: { 'standard-webhooks': { scheme: 'standard-webhooks' } } });
const ctx = useEmulators({ config });
const SECRET = standardWebhooks.generateSecret();
const PK = 'standard-webhooks#msg_1';
/**
 * The chain's defaults: give up 1.5 s before the end; this leaves the handler 1.5 s to verify and claim
 * before the send hangs (300 ms was too little on a loaded 2-core machine: the claim itself timed out).
 */
const REMAINING_MS = 3_000;

let resources: VerifySetup['resources'];
let clock: VerifySetup['clock'];
let pipeline: VerifySetup['pipeline'];
beforeEach(async () => {
  ({ resources, clock, pipeline } = await freshVerifyPipeline(ctx, { 'standard-webhooks': [SECRET] }));
});

const event = () =>
  signedEvent('standard-webhooks', config, {
    body: '{"type":"invoice.paid","data":{}}',
    secret: SECRET,
    timestamp: clock.seconds(),
    id: 'msg_1',
  });

const inbox = () => new DynamoInbox(ctx.clients.dynamodb, resources.tableName);

describe('verify: the early timeout gives the delivery back', () => {
  it('releases its claim and answers 503 with Retry-After when SendMessage hangs', async () => {
    const hang = attemptFaultForTest(ctx.clients.sqs, {
      commands: 'SendMessageCommand',
      fault: 'hang-before',
    });
    const response = await pipeline.handler(event(), endingIn(REMAINING_MS));
    expect(response.statusCode).toBe(503);
    expect(response.headers['retry-after']).toBe('5');
    expect(JSON.parse(response.body)).toEqual({ error: 'timeout' });
    expect(hang.failures).toBeGreaterThan(0);
    // Released (its lease lapsed at once), so the provider's retry takes it rather than waiting 30 s.
    expect((await inbox().get(PK))?.leaseUntil).toBe(0);
    expect(pipeline.logger.last()).toMatchObject({
      level: 'error',
      attributes: { outcome: 'timed_out', reason: 'timeout', stage: 'enqueue', requestId: 'req-1' },
    });
    hang.remove();
    expect((await pipeline.handler(event(), endingIn(8_000))).statusCode).toBe(202);
    expect(await ctx.receiveAll(resources.queueUrl)).toHaveLength(1);
  });

  it('releases a claim whose put was applied but never answered', async () => {
    attemptFaultForTest(ctx.clients.dynamodb, { commands: 'PutItemCommand', fault: 'hang-after', times: 1 });
    const response = await pipeline.handler(event(), endingIn(REMAINING_MS));
    expect(response.statusCode).toBe(503);
    expect(pipeline.logger.last()?.attributes).toMatchObject({ reason: 'timeout', stage: 'claim' });
    expect((await inbox().get(PK))?.leaseUntil).toBe(0);
    expect(await ctx.receiveAll(resources.queueUrl)).toHaveLength(0);
  });

  it('answers for a handler that ignores the signal, before the invocation would end', async () => {
    // A pipeline that never answers: the chain's own answer comes at the grace's end.
    const stuck = verifyLambda(
      {
        ...pipeline.deps,
        secrets: { get: () => new Promise<never>(() => undefined) },
      },
      { timeoutEarlyMs: 400, graceMs: 100 },
    );
    const response = await stuck(event(), endingIn(600));
    expect(response.statusCode).toBe(503);
    expect(response.headers['retry-after']).toBe('5');
    expect(JSON.parse(response.body)).toEqual({ error: 'timeout' });
  });

  it('has no early timeout without a Lambda context (local mode), and answers as usual', async () => {
    expect((await pipeline.handler(event())).statusCode).toBe(202);
  });
});
