// Turns what the front door hands the Lambda into an IncomingRequest: API Gateway REST and HTTP API (payload
// v1; the REST API has binaryMediaTypes */* so the body arrives base64) and Lambda function URLs (payload
// v2: no path parameters, so the provider comes from rawPath, and text bodies arrive as strings).
import type { APIGatewayProxyEvent, APIGatewayProxyEventV2 } from 'aws-lambda';
import type { IncomingRequest } from '../core/accept-delivery';
import { normalizeHeaders } from '../core/headers';

export type FrontDoorEvent = APIGatewayProxyEvent | APIGatewayProxyEventV2;

// Anchored: a function URL hands the Lambda every path, and `/anything/webhooks/github` is not the route.
const WEBHOOK_PATH = /^\/webhooks\/([^/]+)\/?$/;

function isV2(event: FrontDoorEvent): event is APIGatewayProxyEventV2 {
  return (event as APIGatewayProxyEventV2).version === '2.0';
}

function decodeBody(body: string | null | undefined, isBase64Encoded: boolean): Buffer {
  if (!body) return Buffer.alloc(0);
  // Without base64 the gateway has already decoded the bytes as UTF-8 text; this is only correct for
  // valid UTF-8 bodies, which is why the REST API sets binaryMediaTypes */*.
  return Buffer.from(body, isBase64Encoded ? 'base64' : 'utf8');
}

function providerFrom(pathParameter: string | undefined, path: string | undefined): string | undefined {
  if (pathParameter) return pathParameter;
  const match = path ? WEBHOOK_PATH.exec(path) : null;
  if (!match) return undefined;
  try {
    return decodeURIComponent(match[1] as string);
  } catch {
    // A malformed escape (`%E0%A4%A`) names no provider: 404, as for any unknown one.
    return undefined;
  }
}

export function requestFromEvent(
  event: FrontDoorEvent,
): IncomingRequest & { requestId?: string; sourceIp?: string } {
  if (isV2(event)) {
    const context = event.requestContext;
    return {
      method: context.http.method,
      providerId: providerFrom(event.pathParameters?.provider, event.rawPath),
      body: decodeBody(event.body, event.isBase64Encoded),
      // v2 joins repeated headers with commas; a joined signature header then fails strict parsing.
      headers: normalizeHeaders(event.headers),
      url: `https://${context.domainName}${event.rawPath}`,
      requestId: context.requestId,
      sourceIp: context.http.sourceIp,
    };
  }
  const context = event.requestContext;
  return {
    method: event.httpMethod,
    providerId: providerFrom(event.pathParameters?.provider, event.path),
    body: decodeBody(event.body, event.isBase64Encoded),
    headers: normalizeHeaders(event.headers, event.multiValueHeaders),
    url: context?.domainName ? `https://${context.domainName}${context.path ?? event.path}` : undefined,
    requestId: context?.requestId,
    sourceIp: context?.identity?.sourceIp,
  };
}
