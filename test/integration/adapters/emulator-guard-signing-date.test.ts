import { request as httpRequest } from 'node:http';
import { SignatureV4 } from '@smithy/signature-v4';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Emulators, startEmulators } from '../../../local/emulators';
import { Sha256 } from '../../support/node-sha256';

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
