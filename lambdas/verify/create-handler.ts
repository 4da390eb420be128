// The verify handler factory. Everything it talks to is passed in, so the Lambda entry, local mode and
// the tests build the same handler over different clients.
import type { Context } from 'aws-lambda';
import { type AcceptDeliveryDeps, acceptDelivery, type DeliveryResult } from '../core/accept-delivery';
import { answerFor, internalErrorAnswer } from '../core/answers';
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
  context?: Pick<Context, 'awsRequestId'>,
) => Promise<VerifyResponse>;

export function createVerifyHandler(deps: VerifyHandlerDeps): VerifyHandler {
  return async (event, context) => {
    const started = performance.now();
    let result: DeliveryResult;
    let meta: { requestId?: string; sourceIp?: string } = { requestId: context?.awsRequestId };
    try {
      const request = requestFromEvent(event);
      meta = { requestId: request.requestId ?? meta.requestId, sourceIp: request.sourceIp };
      result = await acceptDelivery(deps, request);
    } catch (error) {
      // A bug, not a dependency failure. Log its name only: a message could quote request data.
      deps.logger.error('verify failed', {
        outcome: 'error',
        errorName: (error as Error)?.name ?? 'unknown',
        ...meta,
      });
      deps.metrics.publishStoredMetrics();
      return { ...internalErrorAnswer(), isBase64Encoded: false };
    }
    const answer = answerFor(result);
    recordDelivery(deps.logger, deps.metrics, result, answer.statusCode, {
      durationMs: performance.now() - started,
      ...meta,
    });
    deps.metrics.publishStoredMetrics();
    return { ...answer, isBase64Encoded: false };
  };
}
