// Puts the invocation's request id and cold-start flag on every log line of the invocation, as
// Powertools' injectLambdaContext does, for the one logger the handlers use.
import type { MiddlewareObj } from '@middy/core';
import type { Context } from 'aws-lambda';
import type { LogSink } from '../core/telemetry';
import { currentInvocation } from './invocation';

export function logContext<E, R>(logger: LogSink): MiddlewareObj<E, R, Error, Context> {
  return {
    before: (request) => {
      // The Lambda request id (Powertools calls it function_request_id). The cold-start flag is written
      // only when true: one key fewer on every warm line.
      logger.setContext?.({
        requestId: request.context.awsRequestId,
        ...(currentInvocation().coldStart ? { coldStart: true } : {}),
      });
    },
  };
}
