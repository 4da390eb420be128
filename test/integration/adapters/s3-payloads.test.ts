// The payload bucket against fauxqs's S3: S3PayloadWriter's signed PUT (the verify Lambda's) and
// S3PayloadReader through the real S3 client (the processor's and the CLI's), each reading what the other
// wrote.
import { createHash, randomBytes } from 'node:crypto';
import { GetObjectCommand, PutObjectCommand } from '@aws-sdk/client-s3';
import { describe, expect, it } from 'vitest';
import { emulatorPayloadWriter, type S3PayloadWriter } from '../../../lambdas/adapters/s3-payload-writer';
import { S3PayloadReader } from '../../../lambdas/adapters/s3-payloads';
import { payloadKey } from '../../../lambdas/core/envelope';
import { DependencyError, InvalidPayloadRefError, PayloadMissingError } from '../../../lambdas/core/errors';
import { useEmulators } from '../../support/emulators';
import { faultForTest } from '../../support/faults';

const env = useEmulators();

function writer(): S3PayloadWriter {
  return emulatorPayloadWriter(env.clients.s3, env.resources.bucketName, env.emulators.endpoints.s3);
}

function reader(): S3PayloadReader {
  return new S3PayloadReader(env.clients.s3, env.resources.bucketName);
}

/** 1 MiB of random bytes that are certainly not UTF-8: any text decoding on the way would change them. */
function binaryBody(): Buffer {
  const body = randomBytes(1_048_576);
  body.set([0xff, 0xfe, 0xc3, 0x28, 0xed, 0xa0, 0x80, 0x00], 0);
  return body;
}

describe('S3PayloadWriter and S3PayloadReader', () => {
  it('read back the exact bytes written: 1 MiB of random data with invalid UTF-8', async () => {
    const body = binaryBody();
    const sha = createHash('sha256').update(body).digest('hex');
    const ref = await writer().put(payloadKey('github', sha), body, sha);
    expect(ref).toBe(`s3://${env.resources.bucketName}/payloads/github/${sha}`);
    const read = await reader().get(ref);
    expect(read.body.length).toBe(body.length);
    expect(read.body.equals(body)).toBe(true);
  });

  it('the writer stores under the key the S3 client reads, with the content type it names', async () => {
    const body = Buffer.from([0x7b, 0xff, 0x7d]);
    const sha = createHash('sha256').update(body).digest('hex');
    const key = payloadKey('shopify', sha);
    await writer().put(key, body, sha);
    const object = await env.clients.s3.send(
      new GetObjectCommand({ Bucket: env.resources.bucketName, Key: key }),
    );
    expect(Buffer.from((await object.Body?.transformToByteArray()) ?? []).equals(body)).toBe(true);
    expect(object.ContentType).toBe('application/octet-stream');
  });

  it('the reader reads an object the S3 client wrote', async () => {
    const body = Buffer.from('written by PutObjectCommand');
    const key = payloadKey('slack', createHash('sha256').update(body).digest('hex'));
    await env.clients.s3.send(
      new PutObjectCommand({ Bucket: env.resources.bucketName, Key: key, Body: body }),
    );
    expect((await reader().get(`s3://${env.resources.bucketName}/${key}`)).body.equals(body)).toBe(true);
  });

  it('stores the same bytes under the same key twice without complaint (content-addressed)', async () => {
    const body = Buffer.from('{"same":"bytes"}');
    const sha = createHash('sha256').update(body).digest('hex');
    const key = payloadKey('stripe', sha);
    const first = await writer().put(key, body, sha);
    expect(await writer().put(key, body, sha)).toBe(first);
    expect((await reader().get(first)).body.equals(body)).toBe(true);
  });

  it('refuses references to another bucket or another scheme without fetching them', async () => {
    const fault = faultForTest(env.clients.s3, { commands: 'GetObjectCommand' });
    for (const ref of [
      's3://someone-elses-bucket/payloads/github/x',
      `s3://${env.resources.bucketName}-evil/payloads/x`,
      `https://${env.resources.bucketName}.s3.amazonaws.com/payloads/x`,
      `s3://${env.resources.bucketName}/`,
    ]) {
      await expect(reader().get(ref)).rejects.toBeInstanceOf(InvalidPayloadRefError);
    }
    expect(fault.calls).toBe(0);
  });

  it('reports a missing object of our bucket as PayloadMissingError, which no retry can mend', async () => {
    const ref = `s3://${env.resources.bucketName}/payloads/github/absent`;
    const error = await reader()
      .get(ref)
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PayloadMissingError);
    expect(error).toMatchObject({ ref });
  });

  it('reports S3 failing on a read as DependencyError(s3, GetObject), which is retried', async () => {
    const body = Buffer.from('{"n":1}');
    const sha = createHash('sha256').update(body).digest('hex');
    const ref = await writer().put(payloadKey('github', sha), body, sha);
    const _fault = faultForTest(env.clients.s3, { commands: 'GetObjectCommand', times: 1 });
    const error = await reader()
      .get(ref)
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(DependencyError);
    expect(error).toMatchObject({ dependency: 's3', operation: 'GetObject' });
  });

  it('says when the object was last written, and rewrite writes it again with the same bytes', async () => {
    const body = Buffer.from('{"old":"object"}');
    const sha = createHash('sha256').update(body).digest('hex');
    const ref = await writer().put(payloadKey('paddle', sha), body, sha);
    const first = await reader().get(ref);
    expect(first.lastModifiedMs).toBeTypeOf('number');
    // S3's LastModified has whole-second resolution.
    await new Promise((resolve) => setTimeout(resolve, 1100));
    await reader().rewrite(ref, body, sha);
    const second = await reader().get(ref);
    expect(second.body.equals(body)).toBe(true);
    expect(second.lastModifiedMs).toBeGreaterThan(first.lastModifiedMs as number);
  });

  it('reports a PutObject to a bucket that does not exist as DependencyError(s3, PutObject)', async () => {
    const missing = emulatorPayloadWriter(env.clients.s3, 'no-such-bucket-here', env.emulators.endpoints.s3);
    const error = await missing
      .put('payloads/github/x', Buffer.from('x'), createHash('sha256').update('x').digest('hex'))
      .catch((e: unknown) => e);
    expect(error).toMatchObject({ name: 'DependencyError', dependency: 's3', operation: 'PutObject' });
    expect((error as Error).cause).toMatchObject({
      name: 'NoSuchBucket',
      $metadata: { httpStatusCode: 404 },
    });
  });
});
