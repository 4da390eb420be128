// Local mode takes its port before the emulators and the handlers are ready, so a busy port fails at once.
// A request that arrives in between must still be answered: the gate is the server's request listener
// from the moment it listens, holds such a request until the pipeline is ready, and answers it 503 with
// Retry-After if startup takes longer than the hold or fails. A provider retries a 503; a connection
// left hanging costs it its own timeout and may count against the endpoint.
import type { IncomingMessage, ServerResponse } from 'node:http';

export type RequestListener = (request: IncomingMessage, response: ServerResponse) => void;

export interface StartupGateOptions {
  /** How long a request may wait for startup before it is answered 503. */
  holdMs: number;
  /** The Retry-After a 503 carries, in seconds. */
  retryAfterSeconds: number;
}

export class StartupGate {
  private listener?: RequestListener;
  private failed = false;
  /** Held requests, each released (to the listener or to a 503) once, by whichever comes first. */
  private readonly held = new Set<() => void>();

  constructor(private readonly options: StartupGateOptions) {}

  /** The server's request listener: pass it to createServer, before listen. */
  readonly listen: RequestListener = (request, response) => {
    if (this.listener) return this.listener(request, response);
    if (this.failed) return this.unavailable(request, response);
    const release = () => {
      clearTimeout(timer);
      this.held.delete(release);
      if (this.listener) this.listener(request, response);
      else this.unavailable(request, response);
    };
    const timer = setTimeout(release, this.options.holdMs);
    this.held.add(release);
  };

  /** Startup is done: held and later requests go to `listener`. */
  open(listener: RequestListener): void {
    this.listener = listener;
    this.releaseAll();
  }

  /** Startup failed: held and later requests are answered 503 until the server closes. */
  fail(): void {
    this.failed = true;
    this.releaseAll();
  }

  private releaseAll(): void {
    for (const release of [...this.held]) release();
  }

  private unavailable(request: IncomingMessage, response: ServerResponse): void {
    // The body is not wanted; drain it so the connection can carry the answer and the client's retry.
    request.resume();
    response.writeHead(503, {
      'content-type': 'application/json',
      'retry-after': String(this.options.retryAfterSeconds),
      // After a failed start the server is closing: the client's retry must not wait on this socket.
      ...(this.failed ? { connection: 'close' } : {}),
    });
    response.end(JSON.stringify({ error: this.failed ? 'unavailable' : 'starting' }));
  }
}
