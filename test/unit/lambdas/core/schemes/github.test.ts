import { sign as octokitSign, verify as octokitVerify } from '@octokit/webhooks-methods';
import { describe, expect, it } from 'vitest';
import { normalizeHeaders } from '../../../../../lambdas/core/headers';
import { github } from '../../../../../lambdas/core/schemes/github';
import { sha256Hex } from '../../../../../lambdas/core/schemes/primitives';
import { CONTEXT, describeSchemeContract } from '../../../../support/scheme-contract';

describeSchemeContract({
  scheme: github,
  signatureHeader: 'X-Hub-Signature-256',
  withSignature: (_value, signature) => `sha256=${signature}`,
  encoding: 'hex',
});

const request = (body: string | Buffer, headers: Record<string, string>) => ({
  body: Buffer.isBuffer(body) ? body : Buffer.from(body),
  headers: normalizeHeaders(headers),
});

describe('github', () => {
  it("verifies GitHub's published test vector", () => {
    const outcome = github.verify(
      request('Hello, World!', {
        'X-Hub-Signature-256': 'sha256=757107ea0eb2509fc211221cce984b8a37570b6d7586c22c46f4379c8b043e17',
      }),
      ["It's a Secret to Everybody"],
      CONTEXT,
    );
    expect(outcome.ok).toBe(true);
  });

  it('uses the body hash as dedup key and keeps X-GitHub-Delivery as metadata only', () => {
    const body = '{"zen":"Keep it logically awesome."}';
    const headers = github.sign({
      body: Buffer.from(body),
      secret: 's3cret',
      timestamp: 0,
      id: 'd-1',
      eventType: 'ping',
    });
    const outcome = github.verify(request(body, headers), ['s3cret'], CONTEXT);
    if (!outcome.ok) throw new Error(outcome.reason);
    expect(outcome.delivery.dedupKey).toBe(sha256Hex(Buffer.from(body)));
    expect(outcome.delivery.deliveryId).toBe('d-1');
    expect(outcome.delivery.eventType).toBe('ping');
  });

  it('rejects the legacy sha1 header alone', () => {
    const outcome = github.verify(request('{}', { 'X-Hub-Signature': 'sha1=0000' }), ['s'], CONTEXT);
    expect(outcome).toEqual({ ok: false, reason: 'missing_header' });
  });

  it('rejects a signature without the sha256= prefix', () => {
    const signature = github.sign({ body: Buffer.from('{}'), secret: 's', timestamp: 0, id: 'x' })[
      'X-Hub-Signature-256'
    ];
    const outcome = github.verify(
      request('{}', { 'X-Hub-Signature-256': signature!.slice(7) }),
      ['s'],
      CONTEXT,
    );
    expect(outcome).toEqual({ ok: false, reason: 'malformed_signature' });
  });

  it('verifies what @octokit/webhooks-methods signs, and octokit verifies what we sign', async () => {
    const body = '{"action":"opened","number":7,"title":"Zoë 🚀"}';
    const theirs = await octokitSign('octo-secret', body);
    expect(github.verify(request(body, { 'x-hub-signature-256': theirs }), ['octo-secret'], CONTEXT).ok).toBe(
      true,
    );
    const ours = github.sign({ body: Buffer.from(body), secret: 'octo-secret', timestamp: 0, id: 'x' });
    expect(await octokitVerify('octo-secret', body, ours['X-Hub-Signature-256']!)).toBe(true);
  });
});
