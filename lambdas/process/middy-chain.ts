// The processor Lambda's middy chain around process-handler.ts: the per-invocation signal and its early
// timeout, the log context, and the last-resort answer. The Lambda entry, local mode and the tests all
// run this chain.
import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { EARLY_TIMEOUT_MS } from '../../config/resources';
import { HAND_BACK_GRACE_MS } from '../core/invocation-budget';
import { lambdaChain } from '../middleware/chain';
import { allRecordsFailed } from '../middleware/sqs-batch';
import { createProcessHandler, type ProcessHandler, type ProcessHandlerDeps } from './process-handler';

export interface ProcessLambdaOptions {
  /**
   * How long before Lambda's timeout the batch is answered: records not yet started are handed back
   * (visible at once) and reported as failures. It falls after the handlers' own cut-off and the marks'
   * last retry (process-record.ts), so by then only records that never started are left. @default 1000
   */
  timeoutEarlyMs?: number;
  /** Of that, how long the hand-back may take before the chain answers for it. @default 700 */
  graceMs?: number;
}

export function processLambda(deps: ProcessHandlerDeps, options: ProcessLambdaOptions = {}): ProcessHandler {
  return lambdaChain<SQSEvent, SQSBatchResponse>({
    handler: createProcessHandler(deps),
    logger: deps.logger,
    timeoutEarlyMs: options.timeoutEarlyMs ?? EARLY_TIMEOUT_MS.processor,
    // The hand-back is bounded to HAND_BACK_MS; the grace leaves it room to answer first.
    graceMs: options.graceMs ?? HAND_BACK_GRACE_MS,
    timedOut: allRecordsFailed,
    // A bug outside the batch logic: fail every record rather than the invocation, so SQS keeps them on
    // the schedule's visibility rather than the function's retry.
    lastResort: (event, error) => {
      deps.logger.error('batch failed', { outcome: 'error', errorName: error?.name ?? 'unknown' });
      return allRecordsFailed(event);
    },
  });
}
