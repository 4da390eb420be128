// The verify logic: one front-door request in, one answer out (createVerifyHandler).
// Everything it talks to is passed in, so the Lambda entry, local mode and the tests build the same handler
// over different clients.
import type { Context } from 'aws-lambda';
import { type AcceptDeliveryDeps, acceptDelivery } from '../core/accept-delivery';
import { answerFor } from '../core/answers';
import type { LogSink, MetricSink } from '../core/telemetry';
import { type FrontDoorEvent, requestFromEvent } from './front-door-event';
import { recordDelivery } from './record-delivery';

export interface VerifyHandlerDeps extends AcceptDeliveryDeps {
  logger: LogSink;
  metrics: MetricSink;
}

export interface VerifyResponse {
  statusCode: number;
  headers: Record<string, string>;
  body: string;
  isBase64Encoded: false;
}

export type VerifyHandler = (
  event: FrontDoorEvent,
  context?: Partial<Pick<Context, 'awsRequestId' | 'getRemainingTimeInMillis'>>,
  /** Aborted when the invocation is about to time out (the middy layer's early timeout). */
  signal?: AbortSignal,
) => Promise<VerifyResponse>;

/**
 * The pipeline around one request: parse, accept, answer, log. A bug throws: the middy layer
 * (middy-chain.ts) turns it into the last-resort answer.
 */
export function createVerifyHandler(deps: VerifyHandlerDeps): VerifyHandler {
  return async (event, context, signal) => {
    const started = performance.now();
    const request = requestFromEvent(event);
    const meta = { requestId: request.requestId ?? context?.awsRequestId, sourceIp: request.sourceIp };
    const result = await acceptDelivery(deps, request, signal);
    const answer = answerFor(result);
    recordDelivery(deps.logger, deps.metrics, result, answer.statusCode, {
      durationMs: performance.now() - started,
      ...meta,
    });
    deps.metrics.publishStoredMetrics();
    return { ...answer, isBase64Encoded: false };
  };
}
