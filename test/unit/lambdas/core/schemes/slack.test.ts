import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { normalizeHeaders } from '../../../../../lambdas/core/headers';
import { sha256Hex } from '../../../../../lambdas/core/schemes/primitives';
import { slack } from '../../../../../lambdas/core/schemes/slack';
import { CONTEXT, describeSchemeContract, NOW } from '../../../../support/scheme-contract';

describeSchemeContract({
  scheme: slack,
  signatureHeader: 'X-Slack-Signature',
  withSignature: (_value, signature) => `v0=${signature}`,
  encoding: 'hex',
  timestampHeader: 'X-Slack-Request-Timestamp',
  unknownVersionsOnly: (value) => `v1=${value.slice(3)}`,
});

// The worked example in Slack's "Verifying requests from Slack", verbatim.
const VECTOR = {
  secret: '8f742231b10e8888abcd99yyyzzz85a5',
  timestamp: 1531420618,
  body: 'token=xyzz0WbapA4vBCDEFasx0q6G&team_id=T1DC2JH3J&team_domain=testteamnow&channel_id=G8PSS9T3V&channel_name=foobar&user_id=U2CERLKJA&user_name=roadrunner&command=%2Fwebhook-collect&text=&response_url=https%3A%2F%2Fhooks.slack.com%2Fcommands%2FT1DC2JH3J%2F397700885554%2F96rGlfmibIGlgcZRskXaIFfN&trigger_id=398738663015.47445629121.803a0bc887a14d10d2c447fce8b6703c',
  signature: 'v0=a2114d57b48eac39b9ad189dd8316235a7b4a8d21a10bd27519666489c69b503',
};

const SECRET = 'e3b0c44298fc1c149afbf4c8996fb924';
const verifyVector = (nowSeconds: number, signature = VECTOR.signature) =>
  slack.verify(
    {
      body: Buffer.from(VECTOR.body),
      headers: normalizeHeaders({
        'X-Slack-Signature': signature,
        'X-Slack-Request-Timestamp': String(VECTOR.timestamp),
      }),
    },
    [VECTOR.secret],
    { nowSeconds, toleranceSeconds: 300 },
  );
const eventTypeOf = (body: string) => {
  const headers = slack.sign({ body: Buffer.from(body), secret: SECRET, timestamp: NOW, id: '' });
  const outcome = slack.verify(
    { body: Buffer.from(body), headers: normalizeHeaders(headers) },
    [SECRET],
    CONTEXT,
  );
  if (!outcome.ok) throw new Error(outcome.reason);
  return outcome.delivery.eventType;
};
const form = (fields: Record<string, string>) => new URLSearchParams(fields).toString();

describe('slack', () => {
  it("verifies Slack's documented example", () => {
    const outcome = verifyVector(VECTOR.timestamp + 60);
    if (!outcome.ok) throw new Error(outcome.reason);
    expect(outcome.delivery.dedupKey).toBe(sha256Hex(Buffer.from(VECTOR.body)));
    expect(outcome.delivery.timestamp).toBe(VECTOR.timestamp);
    expect(outcome.delivery.eventType).toBe('/webhook-collect');
  });

  it("signs Slack's documented example byte for byte", () => {
    const headers = slack.sign({
      body: Buffer.from(VECTOR.body),
      secret: VECTOR.secret,
      timestamp: VECTOR.timestamp,
      id: '',
    });
    expect(headers['X-Slack-Signature']).toBe(VECTOR.signature);
    expect(headers['X-Slack-Request-Timestamp']).toBe(String(VECTOR.timestamp));
    expect(headers['Content-Type']).toBe('application/x-www-form-urlencoded');
  });

  it("refuses Slack's example once it is older than the window", () => {
    expect(verifyVector(VECTOR.timestamp + 301)).toEqual({ ok: false, reason: 'stale_timestamp' });
  });

  it("refuses Slack's example with the signature in upper-case v0", () => {
    expect(verifyVector(VECTOR.timestamp, VECTOR.signature.replace('v0=', 'V0='))).toEqual({
      ok: false,
      reason: 'no_supported_signature',
    });
  });

  it('verifies against an independent HMAC of v0:{ts}:{body}', () => {
    const body = '{"type":"event_callback","event_id":"Ev1","event":{"type":"app_mention","text":"Zoë"}}';
    const signature = `v0=${createHmac('sha256', SECRET).update(`v0:${NOW}:${body}`).digest('hex')}`;
    const outcome = slack.verify(
      {
        body: Buffer.from(body),
        headers: normalizeHeaders({
          'x-slack-signature': signature,
          'x-slack-request-timestamp': String(NOW),
        }),
      },
      [SECRET],
      CONTEXT,
    );
    expect(outcome.ok).toBe(true);
  });

  it.each([
    [
      'an Events API callback: the inner event type',
      '{"type":"event_callback","event":{"type":"app_mention"}}',
      'app_mention',
    ],
    [
      'url_verification: the envelope type',
      '{"token":"t","challenge":"c","type":"url_verification"}',
      'url_verification',
    ],
    ['a JSON body without any type', '{"ok":true}', undefined],
    ['a slash command: the command', form({ command: '/deploy', text: 'prod' }), '/deploy'],
    [
      'interactivity: the type inside the payload field',
      form({ payload: JSON.stringify({ type: 'block_actions', actions: [] }) }),
      'block_actions',
    ],
    [
      'a form with an empty command and a payload',
      form({ command: '', payload: '{"type":"view_submission"}' }),
      'view_submission',
    ],
    ['a form whose payload is not JSON', form({ payload: '{not json' }), undefined],
    ['a form whose payload has no type', form({ payload: '{"actions":[]}' }), undefined],
    ['a form with neither', form({ token: 'x' }), undefined],
  ])('takes the event type from %s', (_name, body, expected) => {
    expect(eventTypeOf(body)).toBe(expected);
  });

  it('checks the raw form bytes: the same fields encoded differently do not verify', () => {
    const headers = normalizeHeaders(
      slack.sign({
        body: Buffer.from(VECTOR.body),
        secret: VECTOR.secret,
        timestamp: VECTOR.timestamp,
        id: '',
      }),
    );
    const reencoded = VECTOR.body.replaceAll('%2F', '/');
    expect(new URLSearchParams(reencoded).get('command')).toBe('/webhook-collect');
    expect(
      slack.verify({ body: Buffer.from(reencoded), headers }, [VECTOR.secret], {
        nowSeconds: VECTOR.timestamp,
        toleranceSeconds: 300,
      }),
    ).toEqual({ ok: false, reason: 'bad_signature' });
  });
});
