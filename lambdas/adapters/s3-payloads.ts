// Large bodies (over the inline limit) as S3 objects, under content-addressed keys: storing the same bytes
// twice writes the same object, so a retried delivery cannot leave orphans behind.
import { createHash } from 'node:crypto';
import { GetObjectCommand, PutObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import { DependencyError, InvalidPayloadRefError } from '../core/errors';
import type { PayloadStore } from '../core/ports';
import { callDependency } from './dependency-call';

const SCHEME = 's3://';

export class S3PayloadStore implements PayloadStore {
  constructor(
    private readonly client: S3Client,
    private readonly bucket: string,
  ) {}

  async put(key: string, body: Buffer): Promise<string> {
    await callDependency('s3', 'PutObject', () =>
      this.client.send(
        new PutObjectCommand({
          Bucket: this.bucket,
          Key: key,
          Body: body,
          ContentType: 'application/octet-stream',
          // S3 verifies it on arrival: a body corrupted in transit is refused, not stored and later served.
          ChecksumSHA256: createHash('sha256').update(body).digest('base64'),
        }),
      ),
    );
    return `${SCHEME}${this.bucket}/${key}`;
  }

  async get(ref: string): Promise<Buffer> {
    const key = this.keyOf(ref);
    const bytes = await callDependency('s3', 'GetObject', async () => {
      const { Body: body } = await this.client.send(new GetObjectCommand({ Bucket: this.bucket, Key: key }));
      return body?.transformToByteArray();
    });
    if (bytes === undefined) throw new DependencyError('s3', 'GetObject');
    return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  }

  /** Only our own bucket: a message naming another one is forged or misrouted, never fetched. */
  private keyOf(ref: string): string {
    const prefix = `${SCHEME}${this.bucket}/`;
    if (!ref.startsWith(prefix) || ref.length === prefix.length) throw new InvalidPayloadRefError(ref);
    return ref.slice(prefix.length);
  }
}
