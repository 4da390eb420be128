// S3PayloadStore against fauxqs's S3 through the real SDK client.
import { createHash, randomBytes } from 'node:crypto';
import { describe, expect, it, onTestFinished } from 'vitest';
import { S3PayloadStore } from '../../../lambdas/adapters/s3-payloads';
import { payloadKey } from '../../../lambdas/core/envelope';
import { DependencyError, InvalidPayloadRefError } from '../../../lambdas/core/errors';
import { useEmulators } from '../../support/emulators';
import { injectFault } from '../../support/faults';

const env = useEmulators();

function store(): S3PayloadStore {
  return new S3PayloadStore(env.clients.s3, env.resources.bucketName);
}

/** 1 MiB of random bytes that are certainly not UTF-8: any text decoding on the way would change them. */
function binaryBody(): Buffer {
  const body = randomBytes(1_048_576);
  body.set([0xff, 0xfe, 0xc3, 0x28, 0xed, 0xa0, 0x80, 0x00], 0);
  return body;
}

describe('S3PayloadStore', () => {
  it('returns the exact bytes it stored: 1 MiB of random data with invalid UTF-8', async () => {
    const body = binaryBody();
    const sha = createHash('sha256').update(body).digest('hex');
    const ref = await store().put(payloadKey('github', sha), body);
    expect(ref).toBe(`s3://${env.resources.bucketName}/payloads/github/${sha}`);
    const read = await store().get(ref);
    expect(read.length).toBe(body.length);
    expect(read.equals(body)).toBe(true);
  });

  it('stores the same bytes under the same key twice without complaint (content-addressed)', async () => {
    const body = Buffer.from('{"same":"bytes"}');
    const key = payloadKey('stripe', createHash('sha256').update(body).digest('hex'));
    const first = await store().put(key, body);
    expect(await store().put(key, body)).toBe(first);
    expect((await store().get(first)).equals(body)).toBe(true);
  });

  it('refuses references to another bucket or another scheme without fetching them', async () => {
    const fault = injectFault(env.clients.s3, { commands: 'GetObjectCommand' });
    onTestFinished(fault.remove);
    for (const ref of [
      's3://someone-elses-bucket/payloads/github/x',
      `s3://${env.resources.bucketName}-evil/payloads/x`,
      `https://${env.resources.bucketName}.s3.amazonaws.com/payloads/x`,
      `s3://${env.resources.bucketName}/`,
    ]) {
      await expect(store().get(ref)).rejects.toBeInstanceOf(InvalidPayloadRefError);
    }
    expect(fault.calls).toBe(0);
  });

  it('reports a missing object as DependencyError(s3, GetObject)', async () => {
    const error = await store()
      .get(`s3://${env.resources.bucketName}/payloads/github/absent`)
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(DependencyError);
    expect(error).toMatchObject({ dependency: 's3', operation: 'GetObject' });
  });

  it('reports a failed PutObject as DependencyError(s3, PutObject)', async () => {
    const fault = injectFault(env.clients.s3, { commands: 'PutObjectCommand', times: 1 });
    onTestFinished(fault.remove);
    await expect(store().put('payloads/github/x', Buffer.from('x'))).rejects.toMatchObject({
      name: 'DependencyError',
      dependency: 's3',
      operation: 'PutObject',
    });
  });
});
