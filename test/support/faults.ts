// Fault injection for emulator-backed tests: the only place the AWS clients are tampered with. Middlewares
// that fail chosen commands (deterministic, per client) in the ways AWS does and the emulators cannot:
// before the call, after it was applied with the answer lost, throttled, or never answering (an
// invocation abandoned midway); and a TCP switch in front of an emulator that takes it down and brings it
// back with its state intact (an outage as the SDK sees one).
import { randomUUID } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { connect, createServer, type Server, type Socket } from 'node:net';
import { onTestFinished } from 'vitest';

/** Any SDK v3 client: what injectFault needs of it. */
export interface MiddlewareClient {
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
  /** Only calls whose input this accepts count as matching (e.g. one delivery's key). @default all */
  match?: (input: Record<string, unknown>) => boolean;
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

type Next = (args: unknown) => Promise<unknown>;

/** The shared part of every fault: which calls match, how many fail, and the on/off/remove handle. */
function addCommandFault(
  client: MiddlewareClient,
  options: Pick<FaultOptions, 'commands' | 'times' | 'match'>,
  step: 'initialize' | 'deserialize',
  fail: (next: Next, args: unknown) => Promise<unknown>,
): Fault {
  const commands = new Set(typeof options.commands === 'string' ? [options.commands] : options.commands);
  let remaining = options.times ?? Number.POSITIVE_INFINITY;
  let enabled = true;
  let failures = 0;
  let calls = 0;
  const name = `injected-fault-${randomUUID()}`;
  client.middlewareStack.add(
    (next: Next, context: { commandName?: string }) => async (args: unknown) => {
      if (context.commandName === undefined || !commands.has(context.commandName)) return next(args);
      if (options.match && !options.match((args as { input: Record<string, unknown> }).input))
        return next(args);
      calls += 1;
      if (!enabled || remaining <= 0) return next(args);
      remaining -= 1;
      failures += 1;
      return fail(next, args);
    },
    // The options' type is per step in the SDK's overloads; both steps take the same shape.
    { step: step as 'initialize', name, priority: 'high' },
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

/**
 * Fails the chosen commands before they are signed or sent. It sits in the initialize step, ahead of the
 * SDK's retry middleware, so one call is one failure whatever the client's maxAttempts.
 */
export function injectFault(client: MiddlewareClient, options: FaultOptions): Fault {
  const makeError = options.error ?? (() => serviceUnavailable());
  return addCommandFault(client, options, 'initialize', async () => {
    throw makeError();
  });
}

/** How an injected fault meets a call that reached the service. */
export type AttemptFault =
  /** The service applied the call, and its answer was lost on the way back (a reset, a timeout). */
  | 'lost-answer'
  /** The service refused the call for its rate: the SDK backs off and tries again. */
  | 'throttled'
  /** The call never answers, as when the invocation making it is timed out or crashes midway. */
  | 'hang-before'
  /** Applied, then the invocation making it dies before it sees the answer. */
  | 'hang-after';

export interface AttemptFaultOptions extends Omit<FaultOptions, 'error'> {
  fault: AttemptFault;
}

/** A reset connection, as Node reports one: the SDK calls it transient and retries. */
export function connectionReset(): Error {
  return Object.assign(new Error('injected fault: socket hang up'), { code: 'ECONNRESET', name: 'Error' });
}

/** Shaped like the throttling errors DynamoDB, SQS and S3 answer with; the SDK retries them with backoff. */
export function throttled(): Error {
  return Object.assign(new Error('injected fault: rate exceeded'), {
    name: 'ThrottlingException',
    $fault: 'client',
    $metadata: { httpStatusCode: 400 },
  });
}

/**
 * Faults at the level of one SDK attempt, below the SDK's retry middleware (the deserialize step runs once
 * per attempt): a lost answer and a throttle are retried by the SDK exactly as on AWS, so the code under
 * test sees what it would see there. `times` counts attempts, not calls.
 */
export function injectAttemptFault(client: MiddlewareClient, options: AttemptFaultOptions): Fault {
  const never = () => new Promise<never>(() => undefined);
  return addCommandFault(client, options, 'deserialize', async (next, args) => {
    switch (options.fault) {
      case 'throttled':
        throw throttled();
      case 'hang-before':
        return never();
      case 'lost-answer':
        // Whatever the service answered (a condition failure included) never arrives.
        await next(args).catch(() => undefined);
        throw connectionReset();
      case 'hang-after':
        await next(args).catch(() => undefined);
        return never();
    }
  });
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

/** injectFault for the current test only: removed when the test finishes, pass or fail. */
export function faultForTest(client: MiddlewareClient, options: FaultOptions): Fault {
  const fault = injectFault(client, options);
  onTestFinished(fault.remove);
  return fault;
}

/** injectAttemptFault for the current test only: removed when the test finishes, pass or fail. */
export function attemptFaultForTest(client: MiddlewareClient, options: AttemptFaultOptions): Fault {
  const fault = injectAttemptFault(client, options);
  onTestFinished(fault.remove);
  return fault;
}
