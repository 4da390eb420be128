// The API Gateway REST proxy event (payload v1) that a REST API with binaryMediaTypes */* hands the verify
// Lambda: base64 body, last-value `headers` plus every value in `multiValueHeaders`, the path parameter,
// and a request context. Local mode builds one per HTTP request; tests build them directly.
import { randomUUID } from 'node:crypto';
import type { APIGatewayProxyEvent } from 'aws-lambda';

export interface RawHttpRequest {
  method: string;
  /** Path without the query string, e.g. `/webhooks/github`. */
  path: string;
  /** Header names as received; repeated headers as arrays. */
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
  sourceIp?: string;
  /**
   * The front door's own domain (requestContext.domainName), from which the verify handler builds the URL
   * Square signs. API Gateway sets it from its configuration; so must whoever builds this event, never
   * from the request's Host header. @default '127.0.0.1'
   */
  host?: string;
  query?: Record<string, string>;
}

const ROUTE = /^\/webhooks\/([^/]+)$/;

/**
 * The path segment as the provider id, or undefined for a malformed escape (`%`, `%ZZ`): such a path names
 * no provider, so the verify handler answers it 404 like any unknown one instead of the gateway failing.
 */
function providerSegment(segment: string): string | undefined {
  try {
    return decodeURIComponent(segment);
  } catch {
    return undefined;
  }
}

export function restProxyEvent(request: RawHttpRequest): APIGatewayProxyEvent {
  const headers: Record<string, string> = {};
  const multiValueHeaders: Record<string, string[]> = {};
  for (const [name, value] of Object.entries(request.headers)) {
    if (value === undefined) continue;
    const values = Array.isArray(value) ? value : [value];
    multiValueHeaders[name] = values;
    headers[name] = values[values.length - 1] as string;
  }
  const match = ROUTE.exec(request.path);
  const provider = match ? providerSegment(match[1] as string) : undefined;
  const requestId = randomUUID();
  return {
    resource: '/webhooks/{provider}',
    path: request.path,
    httpMethod: request.method,
    headers,
    multiValueHeaders,
    queryStringParameters: request.query ?? null,
    multiValueQueryStringParameters: null,
    pathParameters: provider === undefined ? null : { provider },
    stageVariables: null,
    body: request.body.length === 0 ? null : request.body.toString('base64'),
    isBase64Encoded: request.body.length > 0,
    requestContext: {
      accountId: '000000000000',
      apiId: 'local',
      stage: 'local',
      protocol: 'HTTP/1.1',
      httpMethod: request.method,
      path: request.path,
      resourcePath: '/webhooks/{provider}',
      resourceId: 'local',
      requestId,
      requestTimeEpoch: Date.now(),
      domainName: request.host ?? '127.0.0.1',
      authorizer: null,
      identity: {
        sourceIp: request.sourceIp ?? '127.0.0.1',
      } as APIGatewayProxyEvent['requestContext']['identity'],
    },
  };
}
