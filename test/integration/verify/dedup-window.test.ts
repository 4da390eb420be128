// The dedup window is the provider's, as before the archive: records now live as long as the archive
// (expiresAt), but the claim condition reads `dedupUntil`, so a redelivery after the window is a new
// delivery even though the record is still there; records written before dedupUntil keep their window
// in expiresAt.
import { PutItemCommand, UpdateItemCommand } from '@aws-sdk/client-dynamodb';
import { beforeEach, describe, expect, it } from 'vitest';
import { parseConfig } from '../../../config';
import { DynamoInbox } from '../../../lambdas/adapters/dynamo-inbox';
import { toAttributes, toInboxItem } from '../../../lambdas/adapters/inbox-item';
import { sha256Hex } from '../../../lambdas/core/schemes/primitives';
import { standardWebhooks } from '../../../lambdas/core/schemes/standard-webhooks';
import { useEmulators } from '../../support/emulators';
import { deliverSigned, TestClock } from '../../support/pipeline';

const PROVIDER = 'standard-webhooks';
const config = parseConfig({ providers: { [PROVIDER]: { scheme: 'standard-webhooks' } } });
const ctx = useEmulators({ config });
const SECRET = standardWebhooks.generateSecret();
const BODY = '{"type":"order.paid","data":{}}';
const DAY = 86_400;

let resources: typeof ctx.resources;
let clock: TestClock;
beforeEach(async () => {
  resources = await ctx.provision();
  clock = new TestClock();
});

const deliver = async (id: string) =>
  (await deliverSigned(ctx, resources, { config, provider: PROVIDER, secret: SECRET, body: BODY, id, clock }))
    .statusCode;
const record = (id: string) =>
  new DynamoInbox(ctx.clients.dynamodb, resources.tableName).get(`${PROVIDER}#${id}`);

describe('the dedup window', () => {
  it('answers a redelivery within it as a duplicate, and accepts one after it as new while the record lives on', async () => {
    expect(await deliver('msg_window')).toBe(202);
    const first = await record('msg_window');
    expect((first?.dedupUntil ?? 0) - clock.seconds()).toBe(7 * DAY);
    expect((first?.expiresAt ?? 0) - clock.seconds()).toBe(30 * DAY);
    // As the processor leaves it (a claim that lapsed would be retaken by the same bytes at any time).
    await ctx.clients.dynamodb.send(
      new UpdateItemCommand({
        TableName: resources.tableName,
        Key: toAttributes({ pk: `${PROVIDER}#msg_window` }),
        UpdateExpression: 'SET #status = :processed',
        ExpressionAttributeNames: { '#status': 'status' },
        ExpressionAttributeValues: toAttributes({ ':processed': 'processed' }),
      }),
    );

    clock.advance(7 * DAY - 60);
    expect(await deliver('msg_window')).toBe(200);
    clock.advance(120);
    // Past the window, not past the record's life: the record is there, and the claim takes it anyway.
    expect((await record('msg_window'))?.expiresAt).toBeGreaterThan(clock.seconds());
    expect(await deliver('msg_window')).toBe(202);
    expect((await record('msg_window'))?.receivedAt).toBe(new Date(clock.now()).toISOString());
  });

  it('does not let a redelivery after the window take a record that is being worked on (a replay, a redrive)', async () => {
    expect(await deliver('msg_replayed')).toBe(202);
    const setStatus = (status: string, leaseUntil?: number) =>
      ctx.clients.dynamodb.send(
        new UpdateItemCommand({
          TableName: resources.tableName,
          Key: toAttributes({ pk: `${PROVIDER}#msg_replayed` }),
          UpdateExpression: `SET #status = :status${leaseUntil === undefined ? '' : ', leaseUntil = :lease'}`,
          ExpressionAttributeNames: { '#status': 'status' },
          ExpressionAttributeValues: toAttributes({ ':status': status, ':lease': leaseUntil }),
        }),
      );
    clock.advance(8 * DAY);
    // Replayed by an operator, past the provider's window: queued again, then under a live lease.
    await setStatus('enqueued');
    expect(await deliver('msg_replayed')).toBe(200);
    await setStatus('processing', clock.now() + 60_000);
    expect(await deliver('msg_replayed')).toBe(200);
    await setStatus('failed');
    expect(await deliver('msg_replayed')).toBe(200);
    // Once nothing works on it, the redelivery is a new delivery again.
    await setStatus('processing', clock.now() - 1);
    expect(await deliver('msg_replayed')).toBe(202);
  });

  it('reads the window from expiresAt on a record written before dedupUntil', async () => {
    const put = (id: string, expiresAt: number) =>
      ctx.clients.dynamodb.send(
        new PutItemCommand({
          TableName: resources.tableName,
          Item: toInboxItem({
            pk: `${PROVIDER}#${id}`,
            provider: PROVIDER,
            dedupKey: id,
            payloadSha256: sha256Hex(Buffer.from(BODY)),
            eventType: 'order.paid',
            status: 'processed',
            receivedAt: new Date(clock.now() - DAY * 1000).toISOString(),
            attempts: 0,
            expiresAt,
          }),
        }),
      );
    await put('msg_old_live', clock.seconds() + DAY);
    await put('msg_old_over', clock.seconds() - 1);
    expect(await deliver('msg_old_live')).toBe(200);
    expect(await deliver('msg_old_over')).toBe(202);
  });
});
