// maxBodyBytes' ceiling is where an answer is still ours: a body up to it, with the largest headers a front
// door lets through, still fits Lambda's invoke payload as that front door's event, so the verify Lambda
// runs and answers. Above Lambda's limit the provider gets the front door's own error and we log nothing.
import { describe, expect, it } from 'vitest';
import { parseConfig } from '../../../config';
import { restProxyEvent } from '../../../local/rest-proxy-event';
import { functionUrlEvent } from '../../support/function-url-event';

/** docs/configuration.md: "at most 4521981". */
const DOCUMENTED_CEILING = 4_521_981;
/** Lambda refuses an invoke payload that is not smaller than 6 291 456 bytes. */
const LAMBDA_REFUSES_FROM = 6_291_456;
/** API Gateway's cap on the request line and headers together. */
const API_GATEWAY_HEADER_BYTES = 10_240;

const withMax = (maxBodyBytes: number) =>
  parseConfig({ providers: { github: { scheme: 'github', maxBodyBytes } } });

/** Header values made of quotes and backslashes, each escaped to two bytes in the event's JSON. */
function worstHeaders(totalBytes: number): Record<string, string> {
  const headers: Record<string, string> = { 'Content-Type': 'application/octet-stream' };
  let used = 0;
  for (let i = 0; used < totalBytes; i++) {
    const name = `x-h${i}`;
    const pairs = Math.min(500, Math.floor((totalBytes - used - name.length - 4) / 2));
    if (pairs <= 0) break;
    const value = '"\\'.repeat(pairs);
    headers[name] = value;
    used += name.length + value.length + 4; // "name: value\r\n"
  }
  return headers;
}

const eventBytes = (event: unknown) => Buffer.byteLength(JSON.stringify(event));
const body = (size: number) => Buffer.alloc(size, 0xab);

describe("maxBodyBytes' ceiling", () => {
  it('accepts the documented ceiling and refuses one byte more', () => {
    expect(withMax(DOCUMENTED_CEILING).providers.github?.maxBodyBytes).toBe(DOCUMENTED_CEILING);
    expect(() => withMax(DOCUMENTED_CEILING + 1)).toThrow(
      `webhookInbox.providers.github.maxBodyBytes: must be <= ${DOCUMENTED_CEILING}`,
    );
  });

  it('refuses 6 MB, which no front door can deliver to Lambda', () => {
    expect(() => withMax(6_000_000)).toThrow('maxBodyBytes: must be <=');
  });

  it('fits a REST or HTTP API event (payload 1.0, base64 body) with a full 10 KB of escaped headers', () => {
    const event = restProxyEvent({
      method: 'POST',
      path: '/webhooks/github',
      headers: worstHeaders(API_GATEWAY_HEADER_BYTES),
      body: body(DOCUMENTED_CEILING),
    });
    expect(event.isBase64Encoded).toBe(true);
    expect(eventBytes(event)).toBeLessThan(LAMBDA_REFUSES_FROM);
  });

  it('fits a function URL event (payload 2.0, base64 body) with 100 KB of escaped headers', () => {
    const event = functionUrlEvent({
      rawPath: '/webhooks/github',
      headers: worstHeaders(100 * 1024),
      body: body(DOCUMENTED_CEILING),
    });
    expect(event.isBase64Encoded).toBe(true);
    expect(eventBytes(event)).toBeLessThan(LAMBDA_REFUSES_FROM);
  });

  it('is where base64 stops fitting: a body a tenth larger no longer fits even without headers', () => {
    const event = restProxyEvent({
      method: 'POST',
      path: '/webhooks/github',
      headers: { 'Content-Type': 'application/octet-stream' },
      body: body(Math.ceil(DOCUMENTED_CEILING * 1.1)),
    });
    expect(eventBytes(event)).toBeGreaterThanOrEqual(LAMBDA_REFUSES_FROM);
  });
});
