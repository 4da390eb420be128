// The verify Lambda's middy chain around verify-handler.ts: the per-invocation signal and its early timeout,
// the log context, and the last-resort answer. The Lambda entry, local mode and the tests all run this chain.
import { EARLY_TIMEOUT_MS } from '../../config/resources';
import { internalErrorAnswer } from '../core/answers';
import { lambdaChain } from '../middleware/chain';
import type { FrontDoorEvent } from './front-door-event';
import {
  createVerifyHandler,
  type VerifyHandler,
  type VerifyHandlerDeps,
  type VerifyResponse,
} from './verify-handler';

export interface VerifyLambdaOptions {
  /**
   * How long before Lambda's timeout the request is given up: the claim is released and the answer is 503
   * with Retry-After, instead of a timeout with the claim held until its lease lapses. @default 1500
   */
  timeoutEarlyMs?: number;
  /** Of that, how long the handler has to release and answer before the chain answers for it. @default 1000 */
  graceMs?: number;
}

/** What the chain answers if the handler has not answered within the grace (a call ignoring the signal). */
const TIMED_OUT: VerifyResponse = {
  statusCode: 503,
  headers: { 'content-type': 'application/json', 'retry-after': '5' },
  body: JSON.stringify({ error: 'timeout' }),
  isBase64Encoded: false,
};

export function verifyLambda(deps: VerifyHandlerDeps, options: VerifyLambdaOptions = {}): VerifyHandler {
  const verify = createVerifyHandler(deps);
  return lambdaChain<FrontDoorEvent, VerifyResponse>({
    handler: verify,
    logger: deps.logger,
    timeoutEarlyMs: options.timeoutEarlyMs ?? EARLY_TIMEOUT_MS.verify,
    graceMs: options.graceMs ?? 1_000,
    timedOut: () => {
      deps.logger.error('delivery timed out', { outcome: 'timed_out', status: 503, reason: 'timeout' });
      return TIMED_OUT;
    },
    // A bug, not a dependency failure. Log its name only: a message could quote request data.
    lastResort: (_event, error) => {
      deps.logger.error('verify failed', {
        outcome: 'error',
        status: 500,
        reason: 'internal',
        errorName: error?.name ?? 'unknown',
      });
      deps.metrics.publishStoredMetrics();
      return { ...internalErrorAnswer(), isBase64Encoded: false };
    },
  });
}
