import type { APIGatewayProxyEvent, APIGatewayProxyEventV2 } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { requestFromEvent } from '../../../../lambdas/verify/front-door-event';

const bytes = Buffer.from([0x7b, 0xff, 0xfe, 0xe2, 0x80, 0xa8, 0x7d]);

const restEvent = {
  httpMethod: 'POST',
  path: '/webhooks/github',
  resource: '/webhooks/{provider}',
  pathParameters: { provider: 'github' },
  headers: { 'X-Hub-Signature-256': 'sha256=b' },
  multiValueHeaders: { 'X-Hub-Signature-256': ['sha256=a', 'sha256=b'] },
  body: bytes.toString('base64'),
  isBase64Encoded: true,
  requestContext: {
    requestId: 'r-1',
    domainName: 'abc.execute-api.eu-west-1.amazonaws.com',
    path: '/prod/webhooks/github',
    identity: { sourceIp: '192.0.2.1' },
  },
} as unknown as APIGatewayProxyEvent;

const v2Event = {
  version: '2.0',
  rawPath: '/webhooks/stripe',
  headers: { 'stripe-signature': 't=1,v1=a' },
  body: bytes.toString('base64'),
  isBase64Encoded: true,
  requestContext: {
    requestId: 'r-2',
    domainName: 'xyz.lambda-url.eu-west-1.on.aws',
    http: { method: 'POST', sourceIp: '192.0.2.2' },
  },
} as unknown as APIGatewayProxyEventV2;

describe('requestFromEvent', () => {
  it('decodes a REST (v1) base64 body to the exact bytes, invalid UTF-8 included', () => {
    expect(requestFromEvent(restEvent).body.equals(bytes)).toBe(true);
  });

  it('keeps both copies of a repeated header from multiValueHeaders', () => {
    expect(requestFromEvent(restEvent).headers['x-hub-signature-256']).toEqual(['sha256=a', 'sha256=b']);
  });

  it('takes the provider from the path parameter and the URL from the stage path', () => {
    const request = requestFromEvent(restEvent);
    expect(request.providerId).toBe('github');
    expect(request.url).toBe('https://abc.execute-api.eu-west-1.amazonaws.com/prod/webhooks/github');
    expect(request.sourceIp).toBe('192.0.2.1');
  });

  it('reads an HTTP API / function URL (v2) event, taking the provider from the raw path', () => {
    const request = requestFromEvent(v2Event);
    expect(request).toMatchObject({ method: 'POST', providerId: 'stripe', requestId: 'r-2' });
    expect(request.body.equals(bytes)).toBe(true);
    expect(request.headers['stripe-signature']).toBe('t=1,v1=a');
  });

  it('leaves the provider undefined for a path outside /webhooks/{provider}', () => {
    expect(requestFromEvent({ ...v2Event, rawPath: '/admin' }).providerId).toBeUndefined();
  });

  it('leaves the provider undefined for a malformed percent-escape in the path, rather than throwing', () => {
    expect(requestFromEvent({ ...v2Event, rawPath: '/webhooks/%E0%A4%A' }).providerId).toBeUndefined();
  });

  it('reads an empty body as zero bytes', () => {
    expect(requestFromEvent({ ...restEvent, body: null }).body.length).toBe(0);
  });
});
