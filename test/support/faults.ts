// Fault injection for emulator-backed tests: the only place the AWS clients are tampered with. Two tools:
// a middleware that fails chosen commands (deterministic, per client), and a TCP switch in front of an
// emulator that takes it down and brings it back with its state intact (an outage as the SDK sees one).
import { randomUUID } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { connect, createServer, type Server, type Socket } from 'node:net';

/** Any SDK v3 client: what injectFault needs of it. */
interface MiddlewareClient {
  middlewareStack: {
    // biome-ignore lint/suspicious/noExplicitAny: each client types its stack by its own input/output unions.
    add(middleware: any, options: { step: 'initialize'; name: string; priority: 'high' }): void;
    remove(name: string): boolean;
  };
}

export interface FaultOptions {
  /** Command class names, e.g. 'SendMessageCommand'. */
  commands: string | readonly string[];
  /** The error each failing call throws. @default a 503 ServiceUnavailable */
  error?: () => Error;
  /** Fail only the next `times` matching calls. @default every matching call while the fault is on */
  times?: number;
}

export interface Fault {
  /** Matching calls that were failed so far. */
  readonly failures: number;
  /** Matching calls seen so far, failed or not. */
  readonly calls: number;
  on(): void;
  off(): void;
  /** Takes the middleware off the client. */
  remove(): void;
}

/** Shaped like the SDK's own service exceptions, so adapters see what a real 503 looks like. */
export function serviceUnavailable(message = 'injected fault: service unavailable'): Error {
  return Object.assign(new Error(message), {
    name: 'ServiceUnavailable',
    $fault: 'server',
    $metadata: { httpStatusCode: 503 },
  });
}

/**
 * Fails the chosen commands before they are signed or sent. It sits in the initialize step, ahead of the
 * SDK's retry middleware, so one call is one failure whatever the client's maxAttempts.
 */
export function injectFault(client: MiddlewareClient, options: FaultOptions): Fault {
  const commands = new Set(typeof options.commands === 'string' ? [options.commands] : options.commands);
  const makeError = options.error ?? (() => serviceUnavailable());
  let remaining = options.times ?? Number.POSITIVE_INFINITY;
  let enabled = true;
  let failures = 0;
  let calls = 0;
  const name = `injected-fault-${randomUUID()}`;
  client.middlewareStack.add(
    (next: (args: unknown) => Promise<unknown>, context: { commandName?: string }) =>
      async (args: unknown) => {
        if (context.commandName === undefined || !commands.has(context.commandName)) return next(args);
        calls += 1;
        if (!enabled || remaining <= 0) return next(args);
        remaining -= 1;
        failures += 1;
        throw makeError();
      },
    { step: 'initialize', name, priority: 'high' },
  );
  return {
    get failures() {
      return failures;
    },
    get calls() {
      return calls;
    },
    on: () => {
      enabled = true;
    },
    off: () => {
      enabled = false;
    },
    remove: () => {
      client.middlewareStack.remove(name);
    },
  };
}

export interface OutageSwitch {
  /** Point a client here instead of at the emulator. */
  readonly endpoint: string;
  /** Drops open connections and resets new ones, as a crashed or unreachable service would. */
  down(): void;
  up(): void;
  close(): Promise<void>;
}

/**
 * A TCP relay in front of an emulator. Stopping the emulator itself would lose its in-memory state (and
 * dynalite recreates its store on restart), so the outage is made in the network instead.
 */
export async function startOutageSwitch(target: string): Promise<OutageSwitch> {
  const { hostname, port } = new URL(target);
  const open = new Set<Socket>();
  let isDown = false;
  const track = (socket: Socket) => {
    open.add(socket);
    socket.on('close', () => open.delete(socket));
    socket.on('error', () => socket.destroy());
  };
  const server: Server = createServer((client) => {
    track(client);
    if (isDown) {
      client.resetAndDestroy();
      return;
    }
    const upstream = connect(Number(port), hostname);
    track(upstream);
    client.pipe(upstream).pipe(client);
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    endpoint: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    down: () => {
      isDown = true;
      for (const socket of open) socket.destroy();
    },
    up: () => {
      isDown = false;
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of open) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
