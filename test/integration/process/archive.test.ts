// The archive as the processor writes it (core/archive.ts), against the emulators: small bodies inline in
// the record with the lease, larger ones as their own object, bodies verify already stored reused, none
// at all with retention 0; and a failed archive write is a retry, not a loss.

import { GetItemCommand } from '@aws-sdk/client-dynamodb';
import { GetObjectCommand, ListObjectsV2Command } from '@aws-sdk/client-s3';
import { beforeEach, describe, expect, it } from 'vitest';
import { type Config, parseConfig } from '../../../config';
import { DynamoInbox } from '../../../lambdas/adapters/dynamo-inbox';
import { toAttributes } from '../../../lambdas/adapters/inbox-item';
import { sha256Hex } from '../../../lambdas/core/schemes/primitives';
import { standardWebhooks } from '../../../lambdas/core/schemes/standard-webhooks';
import { useEmulators } from '../../support/emulators';
import { faultForTest } from '../../support/faults';
import {
  deliverSigned,
  drainQueue,
  effectCounter,
  eventSourceFor,
  processHandlerFor,
} from '../../support/pipeline';

const PROVIDER = 'standard-webhooks';
const configWith = (archive: Record<string, number>): Config =>
  parseConfig({
    providers: { [PROVIDER]: { scheme: 'standard-webhooks', maxBodyBytes: 400_000 } },
    queue: { retrySchedule: [1, 1] },
    inlineLimitBytes: 65_536,
    archive,
  });
const config = configWith({ retentionDays: 30, inlineMaxBytes: 4096 });
const ctx = useEmulators({ config, strictSqs: true });
const SECRET = standardWebhooks.generateSecret();

let resources: typeof ctx.resources;
beforeEach(async () => {
  resources = await ctx.provision();
});

/** A JSON body of about `bytes` bytes. */
function bodyOf(bytes: number): string {
  const head = '{"type":"order.paid","data":{"pad":"';
  return `${head}${'x'.repeat(Math.max(0, bytes - head.length - 3))}"}}`;
}

async function deliverAndProcess(id: string, body: string, withConfig = config) {
  const answer = await deliverSigned(ctx, resources, {
    config: withConfig,
    provider: PROVIDER,
    secret: SECRET,
    body,
    id,
  });
  expect(answer.statusCode).toBe(202);
  const { runs, handlers } = effectCounter(PROVIDER);
  const processor = processHandlerFor(ctx, resources, handlers, { config: withConfig });
  await drainQueue(ctx, resources, eventSourceFor(ctx, resources, processor.handler));
  return runs;
}

const record = (id: string) =>
  new DynamoInbox(ctx.clients.dynamodb, resources.tableName).get(`${PROVIDER}#${id}`);

async function objectKeys(prefix: string): Promise<string[]> {
  const listed = await ctx.clients.s3.send(
    new ListObjectsV2Command({ Bucket: resources.bucketName, Prefix: prefix }),
  );
  return (listed.Contents ?? []).map((object) => object.Key as string);
}

async function objectBytes(key: string): Promise<Buffer> {
  const { Body: body } = await ctx.clients.s3.send(
    new GetObjectCommand({ Bucket: resources.bucketName, Key: key }),
  );
  return Buffer.from(await (body as { transformToByteArray(): Promise<Uint8Array> }).transformToByteArray());
}

describe('the archive', () => {
  it('keeps a body up to inlineMaxBytes in the record, as DynamoDB binary, and writes no object', async () => {
    const body = bodyOf(4096);
    expect(Buffer.byteLength(body)).toBe(4096);
    expect(await deliverAndProcess('msg_small', body)).toEqual(['msg_small']);
    const archived = await record('msg_small');
    expect(Buffer.from(archived?.archiveBody ?? '', 'base64').toString()).toBe(body);
    expect(archived).toMatchObject({
      archivedAt: expect.any(String),
      archiveContentType: 'application/json',
    });
    expect(archived?.archiveRef).toBeUndefined();
    const { Item: item } = await ctx.clients.dynamodb.send(
      new GetItemCommand({
        TableName: resources.tableName,
        Key: toAttributes({ pk: `${PROVIDER}#msg_small` }),
      }),
    );
    expect(item?.archiveBody?.B?.length).toBe(4096);
    expect(await objectKeys('archive/')).toEqual([]);
  });

  it('writes a body over inlineMaxBytes to archive/<provider>/<sha256> and names it on the record', async () => {
    const body = bodyOf(4097);
    expect(await deliverAndProcess('msg_large', body)).toEqual(['msg_large']);
    const key = `archive/${PROVIDER}/${sha256Hex(Buffer.from(body))}`;
    expect(await objectKeys('archive/')).toEqual([key]);
    expect((await objectBytes(key)).toString()).toBe(body);
    const archived = await record('msg_large');
    expect(archived).toMatchObject({
      archiveRef: `s3://${resources.bucketName}/${key}`,
      archivedAt: expect.any(String),
    });
    expect(archived?.archiveBody).toBeUndefined();
  });

  it('reuses the object verify wrote for a body over inlineLimitBytes', async () => {
    const body = bodyOf(70_000);
    expect(await deliverAndProcess('msg_stored', body)).toEqual(['msg_stored']);
    const payloadKey = `payloads/${PROVIDER}/${sha256Hex(Buffer.from(body))}`;
    expect((await record('msg_stored'))?.archiveRef).toBe(`s3://${resources.bucketName}/${payloadKey}`);
    expect(await objectKeys('archive/')).toEqual([]);
  });

  it('stores nothing with retentionDays 0, and the record lives only its dedup window', async () => {
    const off = configWith({ retentionDays: 0 });
    expect(await deliverAndProcess('msg_off_small', bodyOf(100), off)).toEqual(['msg_off_small']);
    expect(await deliverAndProcess('msg_off_large', bodyOf(8000), off)).toEqual(['msg_off_large']);
    for (const id of ['msg_off_small', 'msg_off_large']) {
      const kept = await record(id);
      expect(kept?.archivedAt).toBeUndefined();
      expect(kept?.archiveBody).toBeUndefined();
      expect(kept?.archiveRef).toBeUndefined();
      expect(kept?.expiresAt).toBe(kept?.dedupUntil);
    }
    expect(await objectKeys('archive/')).toEqual([]);
  });

  it('makes the record live as long as the archive, past its dedup window', async () => {
    await deliverAndProcess('msg_lifetime', bodyOf(100));
    const kept = await record('msg_lifetime');
    const received = Math.floor(Date.parse(kept?.receivedAt ?? '') / 1000);
    expect((kept?.expiresAt ?? 0) - received).toBe(30 * 86_400);
    // The provider's 7-day default window, as before the archive.
    expect((kept?.dedupUntil ?? 0) - received).toBe(7 * 86_400);
  });

  it('retries a delivery whose archive object cannot be written, and archives it on the next receive', async () => {
    const fault = faultForTest(ctx.clients.s3, { commands: 'PutObjectCommand', times: 1 });
    const body = bodyOf(5000);
    expect(await deliverAndProcess('msg_retry', body)).toEqual(['msg_retry']);
    expect(fault.failures).toBe(1);
    const archived = await record('msg_retry');
    expect(archived).toMatchObject({ status: 'processed', attempts: 1, lastErrorCode: expect.any(String) });
    expect(archived?.archiveRef).toContain('archive/');
  });
});
