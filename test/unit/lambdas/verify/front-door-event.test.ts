import type { APIGatewayProxyEvent, APIGatewayProxyEventV2 } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { requestFromEvent } from '../../../../lambdas/verify/front-door-event';
import { FUNCTION_URL_HOST, functionUrlEvent } from '../../../support/function-url-event';

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

describe('requestFromEvent with a Lambda function URL event (payload 2.0)', () => {
  const json = Buffer.from('{"zen":"Non-blocking is better than blocking.","name":"Zoë\u2028"}');

  it('reads a text body (isBase64Encoded false) back to the exact UTF-8 bytes the provider signed', () => {
    const event = functionUrlEvent({
      rawPath: '/webhooks/github',
      headers: { 'Content-Type': 'application/json' },
      body: json,
    });
    expect(event.isBase64Encoded).toBe(false);
    expect(requestFromEvent(event).body.equals(json)).toBe(true);
  });

  it('decodes a base64 body (a binary content type) to the exact bytes, invalid UTF-8 included', () => {
    const event = functionUrlEvent({
      rawPath: '/webhooks/github',
      headers: { 'Content-Type': 'application/octet-stream' },
      body: bytes,
    });
    expect(event.isBase64Encoded).toBe(true);
    expect(requestFromEvent(event).body.equals(bytes)).toBe(true);
  });

  it('takes the method from requestContext.http, the provider from rawPath, and the URL from the domain', () => {
    const event = functionUrlEvent({
      method: 'PUT',
      rawPath: '/webhooks/standard-webhooks',
      rawQueryString: 'attempt=2',
    });
    expect(requestFromEvent(event)).toMatchObject({
      method: 'PUT',
      providerId: 'standard-webhooks',
      url: `https://${FUNCTION_URL_HOST}/webhooks/standard-webhooks`,
      requestId: event.requestContext.requestId,
      sourceIp: '192.0.2.44',
    });
  });

  it('reads headers by their lowercased names', () => {
    const event = functionUrlEvent({
      rawPath: '/webhooks/github',
      headers: { 'X-Hub-Signature-256': 'sha256=abc', 'Content-Type': 'application/json' },
    });
    const { headers } = requestFromEvent(event);
    expect(headers['x-hub-signature-256']).toBe('sha256=abc');
    expect(headers['content-type']).toBe('application/json');
  });

  it('decodes a percent-escaped provider and accepts a trailing slash', () => {
    expect(requestFromEvent(functionUrlEvent({ rawPath: '/webhooks/generic%2Dhmac' })).providerId).toBe(
      'generic-hmac',
    );
    expect(requestFromEvent(functionUrlEvent({ rawPath: '/webhooks/github/' })).providerId).toBe('github');
  });

  it.each([
    '/',
    '/webhooks',
    '/webhooks/',
    '/webhooks/github/extra',
    '/prefix/webhooks/github',
    '/WEBHOOKS/github',
  ])('names no provider for %s, which the handler answers 404', (rawPath) => {
    expect(requestFromEvent(functionUrlEvent({ rawPath })).providerId).toBeUndefined();
  });
});
