// The verify Lambda's one S3 call, PutObject, made without the S3 client: a SigV4-signed PUT built with the
// SDK's own signer, HTTP handler, credentials and hash, all of which the verify bundle already holds for its
// DynamoDB, SQS and Secrets Manager clients. Why: `npm run bench` (cold start) measured S3Client at about
// 120 KiB of the verify bundle, a third of everything the other three clients cost together, for one call
// on the rare large-body path. The processor, local mode and the CLI read objects through S3PayloadReader
// and the full client. test/unit/lambdas/adapters/s3-payload-writer.test.ts checks that this signs exactly what
// S3Client signs for the same PutObject.
import type { S3Client } from '@aws-sdk/client-s3';
import { NodeHttpHandler } from '@smithy/node-http-handler';
import { SignatureV4 } from '@smithy/signature-v4';
import type {
  AwsCredentialIdentityProvider,
  ChecksumConstructor,
  HashConstructor,
  HttpRequest,
  HttpResponse,
} from '@smithy/types';
import { fullJitter } from '../core/backoff';
import { payloadRef } from '../core/envelope';
import type { PayloadWriter } from '../core/ports';
import { callDependency } from './dependency-call';

/** What the writer needs of an SDK client's resolved config; any of the clients' configs has all of it. */
export interface SigningConfig {
  credentials: AwsCredentialIdentityProvider;
  region: () => Promise<string>;
  sha256: ChecksumConstructor | HashConstructor;
  maxAttempts: () => Promise<number>;
}

interface RequestHandler {
  handle(request: HttpRequest): Promise<{ response: HttpResponse }>;
}

export interface S3PayloadWriterOptions {
  bucket: string;
  /**
   * The bucket's base URL, ending in `/`: its regional virtual-hosted name on AWS
   * (`https://<bucket>.s3.<region>.amazonaws.com/`, which the stack passes in), or
   * `<endpoint>/<bucket>/` (path style) for an emulator.
   */
  bucketUrl: string;
  signing: SigningConfig;
  /** @default a NodeHttpHandler with the timeouts below */
  requestHandler?: RequestHandler;
  /** Waits between attempts; tests pass one that does not wait. @default setTimeout */
  sleep?: (ms: number) => Promise<void>;
}

/**
 * Well inside the verify Lambda's timeout, so a stalled S3 answers 503 (and releases the claim) instead of
 * timing the function out with the claim held until its lease lapses.
 */
const CONNECTION_TIMEOUT_MS = 2_000;
const REQUEST_TIMEOUT_MS = 4_000;

/** The SDK's standard retry mode: full jitter on 100 ms, doubling, capped at 20 s. */
const RETRY_BASE_MS = 100;
const RETRY_CAP_MS = 20_000;

/** S3 answers these with a retryable meaning even though some are 4xx. */
const RETRYABLE_CODES = new Set(['RequestTimeout', 'RequestTimeTooSkewed', 'SlowDown', 'InternalError']);

/** An S3 error answer, shaped like the SDK's service exceptions so logs and tests read it the same way. */
class S3ResponseError extends Error {
  readonly $metadata: { httpStatusCode: number };
  constructor(code: string, status: number) {
    super(`S3 PutObject answered ${status} ${code}`);
    this.name = code;
    this.$metadata = { httpStatusCode: status };
  }
}

/** RFC 3986 unreserved characters stay; everything else, `/` aside, is percent-encoded, as S3 signs it. */
function encodeKey(key: string): string {
  return key
    .split('/')
    .map((segment) =>
      encodeURIComponent(segment).replace(
        /[!'()*]/g,
        (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`,
      ),
    )
    .join('/');
}

async function readBody(response: HttpResponse): Promise<string> {
  const body = response.body as AsyncIterable<Uint8Array> | undefined;
  if (body === undefined || typeof body[Symbol.asyncIterator] !== 'function') return '';
  const chunks: Buffer[] = [];
  for await (const chunk of body) chunks.push(Buffer.from(chunk));
  return Buffer.concat(chunks).toString('utf8');
}

function isRetryable(error: unknown): boolean {
  if (!(error instanceof S3ResponseError)) return true; // no answer at all: a network error or a timeout
  return (
    error.$metadata.httpStatusCode >= 500 ||
    error.$metadata.httpStatusCode === 429 ||
    RETRYABLE_CODES.has(error.name)
  );
}

export class S3PayloadWriter implements PayloadWriter {
  private readonly url: URL;
  private readonly signer: SignatureV4;
  private readonly handler: RequestHandler;
  private readonly sleep: (ms: number) => Promise<void>;

  constructor(private readonly options: S3PayloadWriterOptions) {
    if (!URL.canParse(options.bucketUrl) || !options.bucketUrl.endsWith('/')) {
      throw new Error(
        'S3PayloadWriter: bucketUrl must be an absolute URL ending in "/" (PAYLOAD_BUCKET_URL)',
      );
    }
    this.url = new URL(options.bucketUrl);
    this.signer = new SignatureV4({
      credentials: options.signing.credentials,
      region: options.signing.region,
      service: 's3',
      sha256: options.signing.sha256,
      // S3 signs the path as sent (no second encoding) and requires the payload hash header.
      uriEscapePath: false,
      applyChecksum: true,
    });
    this.handler =
      options.requestHandler ??
      new NodeHttpHandler({ connectionTimeout: CONNECTION_TIMEOUT_MS, requestTimeout: REQUEST_TIMEOUT_MS });
    this.sleep = options.sleep ?? ((ms) => new Promise((resolve) => setTimeout(resolve, ms)));
  }

  async put(key: string, body: Buffer, sha256Hex: string): Promise<string> {
    // The caller's digest: hashing a body of up to 6 MB again would be the hot path's biggest CPU cost.
    const sha256 = Buffer.from(sha256Hex, 'hex');
    const request: HttpRequest = {
      method: 'PUT',
      protocol: this.url.protocol,
      hostname: this.url.hostname,
      ...(this.url.port === '' ? {} : { port: Number(this.url.port) }),
      path: `${this.url.pathname}${encodeKey(key)}`,
      // What the S3 client sends too; S3 ignores it, and it keeps the two requests signed identically.
      query: { 'x-id': 'PutObject' },
      headers: {
        host: this.url.host,
        'content-type': 'application/octet-stream',
        'content-length': String(body.length),
        'x-amz-content-sha256': sha256.toString('hex'),
        // S3 checks it on arrival: a body corrupted in transit is refused, not stored and later served.
        'x-amz-checksum-sha256': sha256.toString('base64'),
      },
      body,
    };
    await callDependency('s3', 'PutObject', () => this.send(request));
    return payloadRef(this.options.bucket, key);
  }

  /** Content-addressed keys make PutObject idempotent, so every failure S3 calls transient is retried. */
  private async send(request: HttpRequest): Promise<void> {
    const attempts = Math.max(1, await this.options.signing.maxAttempts());
    for (let attempt = 1; ; attempt += 1) {
      try {
        // Signed per attempt: the signature carries the time, and S3 refuses one over 15 minutes old.
        const { response } = await this.handler.handle(await this.signer.sign(request));
        const text = await readBody(response); // always drained, so the socket goes back to the pool
        if (response.statusCode >= 200 && response.statusCode < 300) return;
        throw new S3ResponseError(
          /<Code>([^<]{1,64})<\/Code>/.exec(text)?.[1] ?? 'UnknownError',
          response.statusCode,
        );
      } catch (error) {
        if (attempt >= attempts || !isRetryable(error)) throw error;
        await this.sleep(fullJitter(attempt, RETRY_BASE_MS, RETRY_CAP_MS));
      }
    }
  }
}

/**
 * The writer for an emulator (local mode, tests, the bench), built from the full S3 client those have: its
 * credentials, region, retries and transport, and path-style addressing under the emulator's endpoint,
 * since virtual-hosted addressing would put the bucket in the emulator's host name.
 */
export function emulatorPayloadWriter(s3: S3Client, bucket: string, endpoint: string): S3PayloadWriter {
  return new S3PayloadWriter({
    bucket,
    bucketUrl: `${endpoint.replace(/\/+$/, '')}/${encodeURIComponent(bucket)}/`,
    signing: s3.config,
    requestHandler: s3.config.requestHandler as RequestHandler,
  });
}
