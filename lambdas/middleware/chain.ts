// The middy chain both Lambdas run: each invocation with its own abort signal (invocation.ts), middy's
// early timeout aborting it, the log context, and a last-resort answer to a thrown error.
import middy from '@middy/core';
import type { Context } from 'aws-lambda';
import type { LogSink } from '../core/telemetry';
import { abortThenAnswer, asInvocation, coldStartFlag, currentInvocation } from './invocation';
import { logContext } from './log-context';

export interface ChainOptions<E, R> {
  /** The pure handler; `signal` aborts at the early timeout. */
  handler: (event: E, context: Context, signal: AbortSignal) => Promise<R>;
  logger: LogSink;
  /** How long before Lambda's timeout the invocation's signal aborts. */
  timeoutEarlyMs: number;
  /** Of that, how long the handler has to answer before `timedOut` answers for it. */
  graceMs: number;
  /** The answer when the handler has not answered within the grace (a call that ignores the signal). */
  timedOut: (event: E | undefined) => R;
  /** The answer to an error the handler threw: a bug, logged by its name only. */
  lastResort: (event: E, error: Error | undefined) => R;
}

export function lambdaChain<E, R>(
  options: ChainOptions<E, R>,
): (event: E, context?: Partial<Context>) => Promise<R> {
  const isColdStart = coldStartFlag();
  const chain = middy<E, R, Error, Context>({
    timeoutEarlyInMillis: options.timeoutEarlyMs,
    timeoutEarlyResponse: abortThenAnswer(options.graceMs, options.timedOut),
  })
    .use(logContext(options.logger))
    .use({
      onError: (request) => {
        request.response = options.lastResort(request.event, request.error ?? undefined);
      },
    })
    .handler((event, context) => options.handler(event, context, currentInvocation().signal));
  // Without a context (local mode's gateway, tests), middy has no remaining time and no early timeout.
  return (event, context) =>
    asInvocation(event, isColdStart(), () => chain(event, (context ?? {}) as Context));
}
