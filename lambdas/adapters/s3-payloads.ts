// Reads large bodies (over the inline limit) back from S3 for the processor and the CLI, through the full
// S3 client. The verify Lambda writes them with S3PayloadWriter (s3-payload-writer.ts), which keeps the
// S3 client out of its bundle.
import { GetObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import { payloadKeyOfRef } from '../core/envelope';
import { DependencyError } from '../core/errors';
import type { PayloadReader } from '../core/ports';
import { callDependency } from './dependency-call';

export class S3PayloadReader implements PayloadReader {
  constructor(
    private readonly client: S3Client,
    private readonly bucket: string,
  ) {}

  async get(ref: string): Promise<Buffer> {
    const key = payloadKeyOfRef(this.bucket, ref);
    const bytes = await callDependency('s3', 'GetObject', async () => {
      const { Body: body } = await this.client.send(new GetObjectCommand({ Bucket: this.bucket, Key: key }));
      return body?.transformToByteArray();
    });
    if (bytes === undefined) throw new DependencyError('s3', 'GetObject');
    return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  }
}
