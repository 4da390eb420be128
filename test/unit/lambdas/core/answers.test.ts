import { describe, expect, it } from 'vitest';
import type { DeliveryResult } from '../../../../lambdas/core/accept-delivery';
import { answerFor } from '../../../../lambdas/core/answers';
import { REJECT_STATUS, type RejectReason } from '../../../../lambdas/core/reasons';

const base = { bytes: 10, provider: 'github' };

describe('answerFor: the DESIGN answers table', () => {
  it.each([
    [
      { ...base, outcome: 'accepted', id: 'github:k', messageId: 'm', enqueueMs: 1, markFailed: false },
      202,
      { id: 'github:k' },
    ],
    [{ ...base, outcome: 'duplicate', id: 'github:k' }, 200, { id: 'github:k', duplicate: true }],
    [{ ...base, outcome: 'conflict', conflict: 'payload' }, 409, { error: 'conflict' }],
    [{ ...base, outcome: 'conflict', conflict: 'event_type' }, 409, { error: 'conflict' }],
    [{ ...base, outcome: 'in_flight', retryAfterSeconds: 7 }, 503, undefined],
    [{ ...base, outcome: 'dependency_error', dependency: 'sqs', operation: 'SendMessage' }, 503, undefined],
  ] as [DeliveryResult, number, unknown][])('answers %o with %i', (result, status, body) => {
    const answer = answerFor(result);
    expect(answer.statusCode).toBe(status);
    if (body) expect(JSON.parse(answer.body)).toEqual(body);
  });

  it("answers a handshake with its JSON body, and Slack's ssl_check with a bare 200", () => {
    const challenge = answerFor({
      ...base,
      outcome: 'handshake',
      answer: { kind: 'url_verification', body: { challenge: 'c' } },
    });
    expect([challenge.statusCode, challenge.headers['content-type'], challenge.body]).toEqual([
      200,
      'application/json',
      '{"challenge":"c"}',
    ]);
    expect(answerFor({ ...base, outcome: 'handshake', answer: { kind: 'ssl_check' } })).toEqual({
      statusCode: 200,
      headers: {},
      body: '',
    });
  });

  it('sends Retry-After with a lease in flight', () => {
    expect(answerFor({ ...base, outcome: 'in_flight', retryAfterSeconds: 7 }).headers['retry-after']).toBe(
      '7',
    );
  });

  it.each(Object.entries(REJECT_STATUS))(
    'answers the rejection %s with %i and names only the reason',
    (reason, status) => {
      const answer = answerFor({ ...base, outcome: 'rejected', reason: reason as RejectReason });
      expect(answer.statusCode).toBe(status);
      expect(JSON.parse(answer.body)).toEqual({ error: reason });
    },
  );

  it('maps the DESIGN statuses', () => {
    expect(REJECT_STATUS).toMatchObject({
      method_not_allowed: 405,
      unknown_provider: 404,
      body_too_large: 413,
      unsupported_media_type: 415,
      bad_signature: 401,
      stale_timestamp: 401,
      not_json: 400,
      missing_event_id: 400,
      no_secret: 500,
    });
  });
});
