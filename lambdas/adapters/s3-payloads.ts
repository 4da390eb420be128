// Reads large bodies (over the inline limit) back from S3 for the processor and the CLI, through the full
// S3 client, and rewrites the ones old enough that the bucket's lifecycle could delete them while a
// message still points at them (see lambdas/core/payload-lifetime.ts). The verify Lambda writes them with
// S3PayloadWriter (s3-payload-writer.ts), which keeps the S3 client out of its bundle.
import { GetObjectCommand, PutObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import { payloadKeyOfRef, payloadRef } from '../core/envelope';
import { DependencyError, PayloadMissingError } from '../core/errors';
import type { PayloadReader, PayloadWriter, StoredPayload } from '../core/ports';
import { callDependency, isAwsError } from './dependency-call';

export class S3PayloadReader implements PayloadReader, PayloadWriter {
  constructor(
    private readonly client: S3Client,
    private readonly bucket: string,
  ) {}

  async get(ref: string): Promise<StoredPayload> {
    const key = payloadKeyOfRef(this.bucket, ref);
    const object = await callDependency(
      's3',
      'GetObject',
      async () => {
        const { Body: body, LastModified: lastModified } = await this.client.send(
          new GetObjectCommand({ Bucket: this.bucket, Key: key }),
        );
        return { bytes: await body?.transformToByteArray(), lastModified };
      },
      // The reference is ours (checked above) and S3 says the object is gone: nothing can bring it back.
      (error) =>
        isAwsError(error, 'NoSuchKey') ? new PayloadMissingError(ref, { cause: error }) : undefined,
    );
    if (object.bytes === undefined) throw new DependencyError('s3', 'GetObject');
    const { bytes } = object;
    return {
      body: Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength),
      lastModifiedMs: object.lastModified?.getTime(),
    };
  }

  async rewrite(ref: string, body: Buffer, sha256Hex: string): Promise<void> {
    await this.write(payloadKeyOfRef(this.bucket, ref), body, sha256Hex);
  }

  /**
   * The forwarder's writes (an EventBridge entry too large to carry its body): content-addressed like the
   * verify Lambda's, which keeps the S3 client out of its bundle (s3-payload-writer.ts).
   */
  async put(key: string, body: Buffer, sha256Hex: string): Promise<string> {
    await this.write(key, body, sha256Hex);
    return payloadRef(this.bucket, key);
  }

  private async write(key: string, body: Buffer, sha256Hex: string): Promise<void> {
    await callDependency('s3', 'PutObject', () =>
      this.client.send(
        new PutObjectCommand({
          Bucket: this.bucket,
          Key: key,
          Body: body,
          // S3 checks the bytes on arrival, as the verify Lambda's writer has it do.
          ChecksumSHA256: Buffer.from(sha256Hex, 'hex').toString('base64'),
        }),
      ),
    );
  }
}
