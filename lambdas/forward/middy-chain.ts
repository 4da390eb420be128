// The forwarder Lambda's middy chain around forward-handler.ts, as the processor's: the per-invocation
// signal and its early timeout, the log context, and the last-resort answer.
import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { EARLY_TIMEOUT_MS } from '../../config/resources';
import { lambdaChain } from '../middleware/chain';
import { allRecordsFailed } from '../middleware/sqs-batch';
import { createForwardHandler, type ForwardHandler, type ForwardHandlerDeps } from './forward-handler';

export function forwardLambda(deps: ForwardHandlerDeps): ForwardHandler {
  return lambdaChain<SQSEvent, SQSBatchResponse>({
    handler: createForwardHandler(deps),
    logger: deps.logger,
    timeoutEarlyMs: EARLY_TIMEOUT_MS.forwarder,
    graceMs: 700,
    timedOut: allRecordsFailed,
    lastResort: (event, error) => {
      deps.logger.error('batch failed', { outcome: 'error', errorName: error?.name ?? 'unknown' });
      return allRecordsFailed(event);
    },
  });
}
