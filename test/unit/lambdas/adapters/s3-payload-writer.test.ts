// S3PayloadWriter signs its PutObject by hand (with the SDK's signer), so the proof that S3 will accept it
// is that it signs exactly what the official S3Client signs for the same PutObject: same URL, same signed
// headers, same Authorization. The S3Client's request is captured at its transport, with the headers only
// the SDK adds (its user agent and retry bookkeeping) taken off before it signs.
import { createHash } from 'node:crypto';
import { Readable } from 'node:stream';
import {
  PutObjectCommand,
  S3Client,
  type ServiceInputTypes,
  type ServiceOutputTypes,
} from '@aws-sdk/client-s3';
import type { FinalizeRequestMiddleware, HttpRequest, HttpResponse } from '@smithy/types';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { S3PayloadWriter } from '../../../../lambdas/adapters/s3-payload-writer';
import { payloadKey } from '../../../../lambdas/core/envelope';
import { sha256Hex } from '../../../../lambdas/core/schemes/primitives';

const REGION = 'eu-west-1';
const BUCKET = 'inbox-payloadbucket-1a2b3c4d5e6f';
const CREDENTIALS = {
  accessKeyId: 'AKIDEXAMPLE',
  secretAccessKey: 'wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY',
  // A Lambda's credentials always carry a session token, which is signed as X-Amz-Security-Token.
  sessionToken: 'IQoJb3JpZ2luX2VjEXAMPLE//session+token=',
};

/** Headers the SDK adds for its own bookkeeping, not part of what S3 needs. */
const SDK_ONLY_HEADERS = ['user-agent', 'x-amz-user-agent', 'amz-sdk-invocation-id', 'amz-sdk-request'];

function response(statusCode: number, body = ''): { response: HttpResponse } {
  return {
    response: { statusCode, headers: {}, body: Readable.from(body === '' ? [] : [Buffer.from(body)]) },
  };
}

function lowerCaseHeaders(request: HttpRequest): Record<string, string> {
  return Object.fromEntries(
    Object.entries(request.headers).map(([name, value]) => [name.toLowerCase(), value]),
  );
}

async function signedBySdk(key: string, body: Buffer): Promise<HttpRequest> {
  let captured: HttpRequest | undefined;
  const client = new S3Client({
    region: REGION,
    credentials: CREDENTIALS,
    requestHandler: {
      handle: async (request: HttpRequest) => {
        captured = request;
        return response(200);
      },
    },
  });
  const dropSdkOnlyHeaders: FinalizeRequestMiddleware<ServiceInputTypes, ServiceOutputTypes> =
    (next) => async (args) => {
      const headers = (args.request as HttpRequest).headers;
      for (const name of Object.keys(headers)) {
        if (SDK_ONLY_HEADERS.includes(name.toLowerCase())) delete headers[name];
      }
      return next(args);
    };
  client.middlewareStack.addRelativeTo(dropSdkOnlyHeaders, {
    relation: 'before',
    toMiddleware: 'httpSigningMiddleware',
    name: 'dropSdkOnlyHeaders',
  });
  await client.send(
    new PutObjectCommand({
      Bucket: BUCKET,
      Key: key,
      Body: body,
      ContentType: 'application/octet-stream',
      ChecksumSHA256: createHash('sha256').update(body).digest('base64'),
    }),
  );
  client.destroy();
  if (captured === undefined) throw new Error('the S3Client sent nothing');
  return captured;
}

function writer(handle: (request: HttpRequest) => Promise<{ response: HttpResponse }>, maxAttempts = 3) {
  const sleeps: number[] = [];
  const instance = new S3PayloadWriter({
    bucket: BUCKET,
    bucketUrl: `https://${BUCKET}.s3.${REGION}.amazonaws.com/`,
    signing: {
      credentials: async () => CREDENTIALS,
      region: async () => REGION,
      sha256: new S3Client({ region: REGION }).config.sha256,
      maxAttempts: async () => maxAttempts,
    },
    requestHandler: { handle },
    sleep: async (ms) => {
      sleeps.push(ms);
    },
  });
  return { instance, sleeps };
}

async function signedByWriter(key: string, body: Buffer): Promise<HttpRequest> {
  let captured: HttpRequest | undefined;
  const { instance } = writer(async (request) => {
    captured = request;
    return response(200);
  });
  expect(await instance.put(key, body, sha256Hex(body))).toBe(`s3://${BUCKET}/${key}`);
  if (captured === undefined) throw new Error('the writer sent nothing');
  return captured;
}

describe('S3PayloadWriter signs what S3Client signs', () => {
  beforeEach(() => {
    vi.useFakeTimers({ now: Date.UTC(2026, 10, 30, 8, 30, 15), toFake: ['Date'] });
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  const bodies: [string, Buffer][] = [
    ['JSON text', Buffer.from('{"action":"opened","number":7}')],
    ['bytes that are not UTF-8', Buffer.from([0xff, 0xfe, 0xc3, 0x28, 0x00, 0xed, 0xa0, 0x80])],
    ['an empty body', Buffer.alloc(0)],
    ['300 KiB (over the default inline limit)', Buffer.alloc(300 * 1024, 0x61)],
  ];

  for (const [what, body] of bodies) {
    it(`for ${what}: same URL, same signed headers, same Authorization`, async () => {
      const key = payloadKey('github', sha256Hex(body));
      const sdk = await signedBySdk(key, body);
      const ours = await signedByWriter(key, body);
      expect({ method: ours.method, hostname: ours.hostname, path: ours.path, query: ours.query }).toEqual({
        method: sdk.method,
        hostname: sdk.hostname,
        path: sdk.path,
        query: sdk.query,
      });
      expect(lowerCaseHeaders(ours)).toEqual(lowerCaseHeaders(sdk));
      expect(lowerCaseHeaders(ours).authorization).toMatch(
        /^AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE\/20261130\/eu-west-1\/s3\/aws4_request, SignedHeaders=.*x-amz-checksum-sha256.*x-amz-security-token.*, Signature=[0-9a-f]{64}$/,
      );
      expect(Buffer.from(ours.body as Uint8Array).equals(body)).toBe(true);
    });
  }

  it('for a key whose characters need escaping, as S3 keys from another provider id might', async () => {
    const key = "payloads/my partner+co (eu)/it's*~_.-/0abc";
    const sdk = await signedBySdk(key, Buffer.from('x'));
    const ours = await signedByWriter(key, Buffer.from('x'));
    expect(ours.path).toBe(sdk.path);
    expect(lowerCaseHeaders(ours).authorization).toBe(lowerCaseHeaders(sdk).authorization);
  });
});

describe('S3PayloadWriter retries what S3 calls transient, and nothing else', () => {
  const key = 'payloads/github/abc';
  const body = Buffer.from('{}');
  const slowDown =
    '<?xml version="1.0"?><Error><Code>SlowDown</Code><Message>Reduce your rate</Message></Error>';

  /** S3's answers in turn (the last one again once they run out): a status, a status and body, or a throw. */
  type Answer = number | [number, string] | Error;

  /** One put against a transport that gives `answers`; what it saw, and the error if the put failed. */
  async function putAgainst(answers: Answer[]) {
    let calls = 0;
    const { instance, sleeps } = writer(async () => {
      const answer = answers[Math.min(calls, answers.length - 1)] as Answer;
      calls += 1;
      if (answer instanceof Error) throw answer;
      return typeof answer === 'number' ? response(answer) : response(...answer);
    });
    const error = await instance.put(key, body, sha256Hex(body)).then(
      () => undefined,
      (e: unknown) => e as Error,
    );
    return { calls, sleeps, error };
  }

  it('retries a 503 SlowDown with full-jitter backoff, then succeeds', async () => {
    const { calls, sleeps, error } = await putAgainst([[503, slowDown], [503, slowDown], 200]);
    expect(error).toBeUndefined();
    expect(calls).toBe(3);
    expect(sleeps).toHaveLength(2);
    expect(sleeps[0]).toBeLessThanOrEqual(100);
    expect(sleeps[1]).toBeLessThanOrEqual(200);
  });

  it('retries a network error (no answer at all)', async () => {
    const reset = Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' });
    const { calls, error } = await putAgainst([reset, 200]);
    expect(error).toBeUndefined();
    expect(calls).toBe(2);
  });

  it('retries 400 RequestTimeout, which S3 sends for a stalled upload', async () => {
    const { calls, error } = await putAgainst([[400, '<Error><Code>RequestTimeout</Code></Error>'], 200]);
    expect(error).toBeUndefined();
    expect(calls).toBe(2);
  });

  it('gives up after maxAttempts with DependencyError(s3, PutObject), the S3 code as its cause', async () => {
    const { calls, error } = await putAgainst([[503, slowDown]]);
    expect(calls).toBe(3);
    expect(error).toMatchObject({ name: 'DependencyError', dependency: 's3', operation: 'PutObject' });
    expect(error?.cause).toMatchObject({ name: 'SlowDown', $metadata: { httpStatusCode: 503 } });
  });

  it('does not retry 403 AccessDenied: a policy problem, the same on every attempt', async () => {
    const { calls, error } = await putAgainst([
      [403, '<Error><Code>AccessDenied</Code><Message>Access Denied</Message></Error>'],
    ]);
    expect(calls).toBe(1);
    expect(error?.cause).toMatchObject({ name: 'AccessDenied', $metadata: { httpStatusCode: 403 } });
  });

  it('signs each attempt afresh, so a retry after a long wait carries a current date', async () => {
    vi.useFakeTimers({ now: Date.UTC(2026, 10, 30, 8, 0, 0), toFake: ['Date'] });
    try {
      const dates: string[] = [];
      const { instance } = writer(async (request) => {
        dates.push(lowerCaseHeaders(request)['x-amz-date'] as string);
        vi.setSystemTime(Date.UTC(2026, 10, 30, 8, 20, 0));
        return dates.length === 1
          ? response(500, '<Error><Code>InternalError</Code></Error>')
          : response(200);
      });
      await instance.put(key, body, sha256Hex(body));
      expect(dates).toEqual(['20261130T080000Z', '20261130T082000Z']);
    } finally {
      vi.useRealTimers();
    }
  });
});
