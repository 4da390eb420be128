// The event a Lambda function URL with auth type NONE hands its function (payload format 2.0), shaped as
// AWS documents it: lowercased header names, repeated headers joined with commas, cookies apart, rawPath
// and rawQueryString, no path parameters, an anonymous account, and a body that is a string for text
// content types and base64 for everything else.
import type { APIGatewayProxyEventV2 } from 'aws-lambda';

export const FUNCTION_URL_HOST = 'abcdefghijklmnopqrstuvwxyz012345.lambda-url.eu-west-1.on.aws';

const TEXT_TYPES = /^(text\/|application\/(json|javascript|xml|x-www-form-urlencoded)\b)|\+(json|xml)\b/i;

export interface FunctionUrlRequest {
  method?: string;
  rawPath: string;
  rawQueryString?: string;
  headers?: Record<string, string | string[]>;
  body?: Buffer | string;
}

export function functionUrlEvent(request: FunctionUrlRequest): APIGatewayProxyEventV2 {
  const headers: Record<string, string> = {
    host: FUNCTION_URL_HOST,
    'user-agent': 'GitHub-Hookshot/5f1b8ac',
    'x-amzn-trace-id': 'Root=1-6751a2b3-0123456789abcdef01234567',
    'x-forwarded-for': '192.0.2.44',
    'x-forwarded-port': '443',
    'x-forwarded-proto': 'https',
  };
  for (const [name, value] of Object.entries(request.headers ?? {})) {
    headers[name.toLowerCase()] = Array.isArray(value) ? value.join(',') : value;
  }
  const body = request.body === undefined ? undefined : Buffer.from(request.body);
  const text = TEXT_TYPES.test(headers['content-type'] ?? '');
  if (body) headers['content-length'] = String(body.length);
  const method = request.method ?? 'POST';
  return {
    version: '2.0',
    routeKey: '$default',
    rawPath: request.rawPath,
    rawQueryString: request.rawQueryString ?? '',
    headers,
    requestContext: {
      accountId: 'anonymous',
      apiId: FUNCTION_URL_HOST.split('.')[0] as string,
      domainName: FUNCTION_URL_HOST,
      domainPrefix: FUNCTION_URL_HOST.split('.')[0] as string,
      http: {
        method,
        path: request.rawPath,
        protocol: 'HTTP/1.1',
        sourceIp: '192.0.2.44',
        userAgent: headers['user-agent'] as string,
      },
      requestId: 'f3c1b2a0-7d4e-4b8f-9a6c-2e5d1f0a9b8c',
      routeKey: '$default',
      stage: '$default',
      time: '01/Dec/2026:10:28:00 +0000',
      timeEpoch: 1_795_948_080_000,
    },
    ...(body && body.length > 0
      ? { body: text ? body.toString('utf8') : body.toString('base64'), isBase64Encoded: !text }
      : { isBase64Encoded: false }),
  };
}
