// A real HTTP destination on 127.0.0.1 for the forwarder's tests: it records what arrives (every
// connection, and every request with its exact bytes) and answers from a script, one answer per request.
import { once } from 'node:events';
import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ReceivedRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  body: Buffer;
  /** When the body had arrived, by this server's clock. */
  atMs: number;
}

/** Writes (or, to model a destination that never answers, does not write) the response. */
export type Answer = (response: ServerResponse) => void;

export const status =
  (code: number, headers: Record<string, string> = {}, body = ''): Answer =>
  (response) => {
    response.writeHead(code, headers).end(body);
  };

export const neverAnswer: Answer = () => {};

export interface DestinationServer {
  port: number;
  url(path?: string): string;
  /** Requests whose body arrived completely, in order. */
  received: ReceivedRequest[];
  /** TCP connections accepted, whether or not a request came over them. */
  connections(): number;
  /** Queues answers for the next requests; once they run out, every request gets 204. */
  answer(...answers: Answer[]): void;
  /** How every request is answered once the queued answers run out. */
  answerAll(answer: Answer): void;
  close(): Promise<void>;
}

export async function startDestinationServer(): Promise<DestinationServer> {
  const received: ReceivedRequest[] = [];
  const script: Answer[] = [];
  let fallback: Answer = status(204);
  let connections = 0;
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      received.push({
        method: request.method ?? '',
        path: request.url ?? '',
        headers: request.headers,
        body: Buffer.concat(chunks),
        atMs: Date.now(),
      });
      (script.shift() ?? fallback)(response);
    });
  });
  server.on('connection', () => {
    connections += 1;
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  return {
    port,
    url: (path = '/hooks') => `http://127.0.0.1:${port}${path}`,
    received,
    connections: () => connections,
    answer: (...answers) => {
      script.push(...answers);
    },
    answerAll: (answer) => {
      fallback = answer;
    },
    close: async () => {
      server.closeAllConnections();
      server.close();
      await once(server, 'close');
    },
  };
}

/** A port nothing listens on: bound and released, so a connection to it is refused. */
export async function closedPort(): Promise<number> {
  const server = createServer().listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  server.close();
  await once(server, 'close');
  return port;
}
