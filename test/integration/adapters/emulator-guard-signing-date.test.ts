// The guard's SigV4 check also holds a signature to its date, as AWS does: a request signed more than
// 15 minutes before (or after) it arrives is refused, so one a process saw once (a log, a proxy, a dump)
// cannot be sent again later.
import { createHash, createHmac } from 'node:crypto';
import { request as httpRequest } from 'node:http';
import { SignatureV4 } from '@smithy/signature-v4';
import type { SourceData } from '@smithy/types';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Emulators, startEmulators } from '../../../local/emulators';

function bytes(data: SourceData): string | Uint8Array {
  if (typeof data === 'string') return data;
  return ArrayBuffer.isView(data)
    ? new Uint8Array(data.buffer, data.byteOffset, data.byteLength)
    : new Uint8Array(data);
}

class Sha256 {
  private readonly hash;
  constructor(secret?: SourceData) {
    this.hash = secret === undefined ? createHash('sha256') : createHmac('sha256', bytes(secret));
  }
  update(data: SourceData) {
    this.hash.update(bytes(data));
  }
  async digest() {
    return new Uint8Array(this.hash.digest());
  }
}

function send(url: string, headers: Record<string, string>, body: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, { method: 'POST', headers, agent: false }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', reject);
    req.end(body);
  });
}

let emulators: Emulators;

beforeAll(async () => {
  emulators = await startEmulators();
});

afterAll(async () => {
  await emulators?.stop();
});

describe('the emulator guard and the signing date', () => {
  const body = '{}';
  const signedAt = async (signingDate: Date) => {
    const url = new URL(emulators.endpoints.dynamodb);
    const signer = new SignatureV4({
      credentials: emulators.credentials,
      region: 'us-east-1',
      service: 'dynamodb',
      sha256: Sha256,
    });
    const signed = await signer.sign(
      {
        method: 'POST',
        protocol: 'http:',
        hostname: url.hostname,
        port: Number(url.port),
        path: '/',
        query: {},
        headers: {
          host: url.host,
          'content-type': 'application/x-amz-json-1.0',
          'x-amz-target': 'DynamoDB_20120810.ListTables',
        },
        body,
      },
      { signingDate },
    );
    return send(emulators.endpoints.dynamodb, signed.headers as Record<string, string>, body);
  };

  it('passes a request signed now (the control)', async () => {
    expect(await signedAt(new Date())).toBe(200);
  });

  it('refuses a correctly signed request whose signature is an hour old, or an hour ahead', async () => {
    const hour = 60 * 60 * 1000;
    expect(await signedAt(new Date(Date.now() - hour))).toBe(403);
    expect(await signedAt(new Date(Date.now() + hour))).toBe(403);
  });
});
