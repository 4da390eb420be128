// What every fake provider API shares: a real HTTP server on 127.0.0.1, a log of the requests it was sent
// (whether a credential came and was accepted, never the credential itself), and failures a test queues.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface RecordedRequest {
  method: string;
  path: string;
  query: Record<string, string>;
  /** The parsed JSON body, or undefined; any `secret` property shows as `<redacted>`. */
  body: unknown;
  /** `accepted` / `refused` / `none`: what the server made of the credential, never its value. */
  credential: 'accepted' | 'refused' | 'none';
}

export interface Answer {
  status: number;
  body?: unknown;
}

export interface Handled {
  /** `none` when no credential was sent; the handler decides accepted or refused. */
  credential: RecordedRequest['credential'];
  answer: Answer;
}

export interface ApiRequest {
  method: string;
  path: string;
  query: URLSearchParams;
  body: unknown;
  /** The Authorization header as sent; the handler compares it and forgets it. */
  authorization: string | undefined;
}

export type Handler = (request: ApiRequest) => Handled;

/** A copy with every property named `secret` replaced, so the log can be printed or snapshotted. */
function redacted(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(redacted);
  if (typeof value !== 'object' || value === null) return value;
  return Object.fromEntries(
    Object.entries(value).map(([key, each]) => [key, key === 'secret' ? '<redacted>' : redacted(each)]),
  );
}

export class ProviderApiServer {
  readonly requests: RecordedRequest[] = [];
  private readonly failures: {
    method: string;
    status: number;
    /** The request took effect first, and only its answer is replaced: a commit whose answer was lost. */
    afterEffect: boolean;
    /** Only a request this accepts fails: one GraphQL operation among the POSTs to a single endpoint. */
    when?: (body: unknown) => boolean;
  }[] = [];
  private server: Server | undefined;
  url = '';

  constructor(
    private readonly handler: Handler,
    /** The provider's documented error body for a failure the test queued. */
    private readonly failureBody: (status: number) => unknown,
  ) {}

  async start(): Promise<this> {
    this.server = createServer((request, response) => void this.serve(request, response));
    await new Promise<void>((resolve) => this.server?.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this;
  }

  async stop(): Promise<void> {
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }

  /**
   * The next request with this method (and, given `when`, whose parsed body it accepts) is answered `status`
   * with the provider's error body.
   */
  failNext(method: string, status: number, when?: (body: unknown) => boolean): void {
    this.failures.push({ method: method.toUpperCase(), status, afterEffect: false, when });
  }

  /** The next request with this method takes effect, but is answered `status`: the answer is lost. */
  loseNextAnswer(method: string, status = 500): void {
    this.failures.push({ method: method.toUpperCase(), status, afterEffect: true });
  }

  private async serve(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const text = Buffer.concat(chunks).toString('utf8');
    let body: unknown;
    try {
      body = text === '' ? undefined : JSON.parse(text);
    } catch {
      body = undefined;
    }
    const url = new URL(request.url ?? '/', 'http://127.0.0.1');
    const method = request.method ?? 'GET';
    const record: RecordedRequest = {
      method,
      path: url.pathname,
      query: Object.fromEntries(url.searchParams),
      body: redacted(body),
      credential: request.headers.authorization ? 'accepted' : 'none',
    };
    this.requests.push(record);

    const index = this.failures.findIndex(
      (each) => each.method === method && (each.when === undefined || each.when(body)),
    );
    const [failure] = index >= 0 ? this.failures.splice(index, 1) : [];
    const failed = (status: number): Answer => ({ status, body: this.failureBody(status) });
    let answer: Answer;
    if (failure && !failure.afterEffect) {
      answer = failed(failure.status);
    } else {
      const handled = this.handler({
        method,
        path: url.pathname,
        query: url.searchParams,
        body,
        authorization: request.headers.authorization,
      });
      record.credential = handled.credential;
      answer = failure ? failed(failure.status) : handled.answer;
    }
    response.writeHead(answer.status, { 'content-type': 'application/json' });
    response.end(answer.body === undefined ? '' : JSON.stringify(answer.body));
  }
}
