import { describe, expect, it } from 'vitest';
import type { DeliveryResult } from '../../../../lambdas/core/accept-delivery';
import { answerFor } from '../../../../lambdas/core/answers';
import { REJECT_STATUS, type RejectReason } from '../../../../lambdas/core/reasons';

const base = { bytes: 10, provider: 'github' };

describe('answerFor: the documented answers table', () => {
  // Every body is checked, and every status is written here as docs/how-it-works.md states it: a literal, never read
  // from REJECT_STATUS, the table under test.
  it.each([
    [
      { ...base, outcome: 'accepted', id: 'github:k', messageId: 'm', enqueueMs: 1, markFailed: false },
      202,
      { id: 'github:k' },
    ],
    [{ ...base, outcome: 'duplicate', id: 'github:k' }, 200, { id: 'github:k', duplicate: true }],
    [{ ...base, outcome: 'conflict', conflict: 'payload' }, 409, { error: 'conflict' }],
    [{ ...base, outcome: 'conflict', conflict: 'event_type' }, 409, { error: 'conflict' }],
    [{ ...base, outcome: 'in_flight', retryAfterSeconds: 7 }, 503, { error: 'in_flight' }],
    [{ ...base, outcome: 'timed_out', stage: 'claim' }, 503, { error: 'timeout' }],
    [
      { ...base, outcome: 'dependency_error', dependency: 'sqs', operation: 'SendMessage' },
      503,
      { error: 'sqs_unavailable' },
    ],
    [
      { ...base, outcome: 'dependency_error', dependency: 'dynamodb', operation: 'PutItem' },
      503,
      { error: 'dynamodb_unavailable' },
    ],
    [
      { ...base, outcome: 'dependency_error', dependency: 's3', operation: 'PutObject' },
      503,
      { error: 's3_unavailable' },
    ],
    [
      { ...base, outcome: 'dependency_error', dependency: 'secrets', operation: 'GetSecretValue' },
      503,
      { error: 'secrets_unavailable' },
    ],
  ] as [DeliveryResult, number, unknown][])(
    'answers %o with %i and exactly its body',
    (result, status, body) => {
      const answer = answerFor(result);
      expect(answer.statusCode).toBe(status);
      expect(JSON.parse(answer.body)).toEqual(body);
    },
  );

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

  it('sends Retry-After with a lease in flight, a timeout and a failing dependency', () => {
    expect(answerFor({ ...base, outcome: 'in_flight', retryAfterSeconds: 7 }).headers['retry-after']).toBe(
      '7',
    );
    expect(answerFor({ ...base, outcome: 'timed_out', stage: 'enqueue' }).headers['retry-after']).toBe('5');
    expect(
      answerFor({ ...base, outcome: 'dependency_error', dependency: 'sqs', operation: 'SendMessage' })
        .headers['retry-after'],
    ).toBe('5');
  });

  it.each<[RejectReason, number]>([
    ['method_not_allowed', 405],
    ['unknown_provider', 404],
    ['body_too_large', 413],
    ['unsupported_media_type', 415],
    ['missing_header', 401],
    ['repeated_header', 401],
    ['malformed_signature', 401],
    ['no_supported_signature', 401],
    ['bad_signature', 401],
    ['malformed_timestamp', 401],
    ['stale_timestamp', 401],
    ['future_timestamp', 401],
    ['malformed_id', 401],
    ['missing_event_id', 400],
    ['not_json', 400],
    ['bad_event_type', 400],
    ['no_secret', 500],
    ['no_notification_url', 500],
    ['bad_scheme_options', 500],
  ])('answers the rejection %s with %i and names only the reason', (reason, status) => {
    const answer = answerFor({ ...base, outcome: 'rejected', reason });
    expect(answer.statusCode).toBe(status);
    expect(JSON.parse(answer.body)).toEqual({ error: reason });
  });

  it('answers 405 with Allow: POST', () => {
    expect(answerFor({ ...base, outcome: 'rejected', reason: 'method_not_allowed' }).headers.allow).toBe(
      'POST',
    );
  });

  it('knows no rejection reason the list above leaves out', () => {
    expect(Object.keys(REJECT_STATUS)).toHaveLength(19);
  });
});
