// What every fake provider API shares: a real HTTP server on 127.0.0.1 (port 0), a record of the requests
// it answered (without the Authorization header, so a test can print them), and failures a test asks for
// (`failNext('DELETE', 500)`) answered in the provider's own error shape before the route runs.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface RecordedRequest {
  method: string;
  /** Path without the query string. */
  path: string;
  query: URLSearchParams;
  body: string;
  /** Request headers, lower-case, without `authorization`. */
  headers: Record<string, string | string[] | undefined>;
}

export interface ApiRequest extends RecordedRequest {
  /** The bearer credential sent, if any: for the fake's checks only, never recorded. */
  credential: string | undefined;
}

export interface ApiAnswer {
  status: number;
  /** JSON-serialised; omitted for 204. */
  body?: unknown;
}

export interface FakeHttpApi {
  /** `http://127.0.0.1:<port>` */
  readonly url: string;
  readonly requests: RecordedRequest[];
  /**
   * The next request with this method (and path prefix, if given) is answered `status` instead, in the
   * provider's error shape, or with `page` as text/html (a proxy's page in front of an outage).
   */
  failNext(method: string, status: number, pathPrefix?: string, page?: string): void;
  /**
   * The next request with this method is carried out and its answer lost: the connection is closed
   * instead (a network drop after the provider acted). With an `Idempotency-Key`, a repeat of the request
   * gets the answer the first one had, as Stripe documents (planned failures are not kept).
   */
  loseNextAnswer(method: string): void;
  close(): Promise<void>;
}

interface PlannedFailure {
  method: string;
  status: number;
  pathPrefix: string | undefined;
  page: string | undefined;
}

function readBody(request: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    let text = '';
    request.setEncoding('utf8');
    request.on('data', (chunk: string) => (text += chunk));
    request.on('end', () => resolve(text));
    request.on('error', reject);
  });
}

function bearer(header: string | undefined): string | undefined {
  const match = /^bearer\s+(.+)$/i.exec(header ?? '');
  return match?.[1]?.trim();
}

function answer(response: ServerResponse, { status, body }: ApiAnswer): void {
  if (body === undefined) {
    response.writeHead(status).end();
    return;
  }
  response.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
}

export async function startFakeHttpApi(
  route: (request: ApiRequest) => ApiAnswer,
  failureBody: (status: number) => unknown,
): Promise<FakeHttpApi> {
  const requests: RecordedRequest[] = [];
  const failures: PlannedFailure[] = [];
  const losing: string[] = [];
  /** Answers to requests that carried an Idempotency-Key, replayed to a repeat of the key. */
  const replays = new Map<string, ApiAnswer>();
  const server = createServer((request, response) => {
    readBody(request)
      .then((body) => {
        const url = new URL(request.url ?? '/', 'http://127.0.0.1');
        const { authorization, ...headers } = request.headers;
        const recorded: RecordedRequest = {
          method: request.method ?? 'GET',
          path: url.pathname,
          query: url.searchParams,
          body,
          headers,
        };
        requests.push(recorded);
        const planned = failures.findIndex(
          (each) =>
            each.method === recorded.method &&
            (each.pathPrefix === undefined || recorded.path.startsWith(each.pathPrefix)),
        );
        if (planned >= 0) {
          const [failure] = failures.splice(planned, 1);
          if (failure!.page !== undefined) {
            response.writeHead(failure!.status, { 'content-type': 'text/html' }).end(failure!.page);
            return;
          }
          answer(response, { status: failure!.status, body: failureBody(failure!.status) });
          return;
        }
        const key = typeof headers['idempotency-key'] === 'string' ? headers['idempotency-key'] : undefined;
        const replayed = key === undefined ? undefined : replays.get(key);
        const result = replayed ?? route({ ...recorded, credential: bearer(authorization) });
        if (key !== undefined && replayed === undefined) replays.set(key, result);
        const lost = losing.indexOf(recorded.method);
        if (lost >= 0) {
          losing.splice(lost, 1);
          response.socket?.destroy();
          return;
        }
        answer(response, result);
      })
      .catch(() => response.writeHead(500).end());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    failNext: (method, status, pathPrefix, page) => failures.push({ method, status, pathPrefix, page }),
    loseNextAnswer: (method) => losing.push(method),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
