// The forwarder Lambda as a middy chain around the pure factory, as the processor's (process/lambda.ts):
// the per-invocation signal and its early timeout, the log context, and the last-resort answer.
import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { EARLY_TIMEOUT_MS } from '../../config/resources';
import { lambdaChain } from '../middleware/chain';
import { createForwardHandler, type ForwardHandler, type ForwardHandlerDeps } from './create-handler';

/**
 * Every record a failure: SQS keeps them, and a delivery that did reach its destination is skipped as
 * delivered on the next receive (its history says so), so nothing is sent twice for that.
 */
function allFailed(event: SQSEvent | undefined): SQSBatchResponse {
  return { batchItemFailures: (event?.Records ?? []).map((r) => ({ itemIdentifier: r.messageId })) };
}

export function forwardLambda(deps: ForwardHandlerDeps): ForwardHandler {
  return lambdaChain<SQSEvent, SQSBatchResponse>({
    handler: createForwardHandler(deps),
    logger: deps.logger,
    timeoutEarlyMs: EARLY_TIMEOUT_MS.forwarder,
    graceMs: 700,
    timedOut: allFailed,
    lastResort: (event, error) => {
      deps.logger.error('batch failed', { outcome: 'error', errorName: error?.name ?? 'unknown' });
      return allFailed(event);
    },
  });
}
