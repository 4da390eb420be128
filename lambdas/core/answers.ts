// The one place a pipeline result becomes an HTTP answer (the Answers table, docs/how-it-works.md). Bodies never echo a
// secret, a signature or the payload: only the outcome, a reason code, and our own id.
import type { DeliveryResult } from './accept-delivery';
import { dependencyReason, statusForReason } from './reasons';

export interface HttpAnswer {
  statusCode: number;
  headers: Record<string, string>;
  body: string;
}

const JSON_HEADERS = { 'content-type': 'application/json' };

function answer(statusCode: number, body: unknown, headers: Record<string, string> = {}): HttpAnswer {
  return { statusCode, headers: { ...JSON_HEADERS, ...headers }, body: JSON.stringify(body) };
}

export function answerFor(result: DeliveryResult): HttpAnswer {
  switch (result.outcome) {
    case 'accepted':
      return answer(202, { id: result.id });
    case 'handshake':
      // Slack's ssl_check wants a bare 200.
      return result.answer.body
        ? answer(200, result.answer.body)
        : { statusCode: 200, headers: {}, body: '' };
    case 'duplicate':
      return answer(200, { id: result.id, duplicate: true });
    case 'conflict':
      // The code only, as every error body: which kind of conflict is in the log line (`conflict`).
      return answer(409, { error: 'conflict' });
    case 'in_flight':
      return answer(503, { error: 'in_flight' }, { 'retry-after': String(result.retryAfterSeconds) });
    case 'dependency_error':
      return answer(503, { error: dependencyReason(result.dependency) }, { 'retry-after': '5' });
    case 'timed_out':
      return answer(503, { error: 'timeout' }, { 'retry-after': '5' });
    case 'rejected': {
      const status = statusForReason(result.reason);
      const headers: Record<string, string> = status === 405 ? { allow: 'POST' } : {};
      return answer(status, { error: result.reason }, headers);
    }
  }
}

/** An unexpected error: fail closed with a retryable status and no detail. */
export function internalErrorAnswer(): HttpAnswer {
  return answer(500, { error: 'internal' });
}
