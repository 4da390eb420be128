// The API Gateway REST API in front of the verify Lambda, as local mode's HTTP server runs it: the answers
// API Gateway gives itself (unknown path, wrong method, body too large), and for the rest the proxy event
// handed to the real verify handler and its answer written back.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { MAX_BODY_BYTES_LIMIT } from '../config/schema';
import type { VerifyHandler } from '../lambdas/verify/verify-handler';
import { restProxyEvent } from './rest-proxy-event';
import type { RequestListener } from './startup-gate';

const PATH = /^\/webhooks\/[^/]+$/;

function reply(
  response: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
) {
  response.writeHead(status, { 'content-type': 'application/json', ...headers });
  response.end(JSON.stringify(body));
}

/** Reads the body, refusing more than API Gateway would pass to a Lambda. */
function readBody(request: IncomingMessage): Promise<Buffer | undefined> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    request.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY_BYTES_LIMIT) {
        resolve(undefined);
        request.resume();
        return;
      }
      chunks.push(chunk);
    });
    request.on('end', () => resolve(size > MAX_BODY_BYTES_LIMIT ? undefined : Buffer.concat(chunks)));
    request.on('error', reject);
  });
}

async function answer(
  verify: VerifyHandler,
  domainName: string,
  request: IncomingMessage,
  response: ServerResponse,
) {
  const path = (request.url ?? '/').split('?', 1)[0] as string;
  // Someone opening the gateway's address in a browser: say where the webhooks go. (On AWS the root is
  // API Gateway's own 404; locally this page is the first thing a new user is likely to try.)
  if (path === '/' && (request.method === 'GET' || request.method === 'HEAD')) {
    return reply(response, 200, {
      message:
        "webhook-inbox (local): POST each provider's webhooks to /webhooks/<provider>, for example " +
        '/webhooks/github. `npx webhook-inbox endpoints` lists them; `npx webhook-inbox console` opens the console.',
    });
  }
  // API Gateway answers these itself, without invoking the Lambda.
  if (!PATH.test(path)) return reply(response, 404, { message: 'Not Found' });
  if (request.method !== 'POST')
    return reply(response, 405, { message: 'Method Not Allowed' }, { allow: 'POST' });
  const body = await readBody(request);
  if (!body) return reply(response, 413, { message: 'Request Entity Too Large' });
  const headers: Record<string, string | string[]> = {};
  for (let i = 0; i < request.rawHeaders.length; i += 2) {
    const name = request.rawHeaders[i] as string;
    const value = request.rawHeaders[i + 1] as string;
    const existing = headers[name];
    headers[name] =
      existing === undefined ? value : [...(Array.isArray(existing) ? existing : [existing]), value];
  }
  const event = restProxyEvent({
    method: request.method,
    path,
    headers,
    body,
    sourceIp: request.socket.remoteAddress,
    host: domainName,
  });
  const result = await verify(event, { awsRequestId: event.requestContext.requestId });
  response.writeHead(result.statusCode, result.headers);
  response.end(result.body);
}

/**
 * The request listener. `track` gets each request from its arrival until its answer is flushed (or its
 * connection drops), so a shutdown waits for a body still arriving, not only for a running verify call,
 * and closing the connections afterwards cuts no answer short.
 *
 * `domainName` is the instance's own host, which the event carries as API Gateway's request context
 * carries the API's domain. Never the request's `Host` header: Square signs the URL, and a URL built from
 * the sender's Host would accept a signature made for any other URL with the same secret.
 */
export function gateway(
  verify: VerifyHandler,
  track: (handled: Promise<void>) => void,
  domainName: string,
): RequestListener {
  return (request, response) => {
    track(new Promise<void>((resolve) => response.once('close', () => resolve())));
    answer(verify, domainName, request, response).catch(() => {
      if (!response.headersSent) reply(response, 502, { message: 'Internal server error' });
    });
  };
}
