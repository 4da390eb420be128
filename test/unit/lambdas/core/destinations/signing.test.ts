import { randomBytes } from 'node:crypto';
import { validateHeaderName, validateHeaderValue } from 'node:http';
import { Webhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import {
  displaySecret,
  FORWARD_HEADERS,
  type ForwardHeaderInput,
  forwardHeaders,
  newDestinationSecret,
  signatureHeader,
  UnusableSecretError,
  webhookId,
} from '../../../../../lambdas/core/destinations/signing';

const body = Buffer.from('{"type":"customer.created","data":{"id":"cus_1"}}');

function input(overrides: Partial<ForwardHeaderInput> = {}): ForwardHeaderInput {
  return {
    id: webhookId('stripe:evt_1'),
    timestampSeconds: Math.floor(Date.now() / 1000),
    body,
    secrets: [newDestinationSecret()],
    contentType: 'application/json',
    provider: 'stripe',
    eventType: 'customer.created',
    attempt: 1,
    ...overrides,
  };
}

describe('forwardHeaders', () => {
  it('signs so the standardwebhooks library verifies the delivery', () => {
    const secret = newDestinationSecret();
    const headers = forwardHeaders(input({ secrets: [secret] }));
    expect(new Webhook(secret).verify(body, headers)).toEqual(JSON.parse(body.toString()));
  });

  it('signs with each secret, newest first, and each alone verifies', () => {
    const [current, previous] = [newDestinationSecret(), newDestinationSecret()];
    const headers = forwardHeaders(input({ secrets: [current, previous] }));
    const signatures = (headers[FORWARD_HEADERS.signature] as string).split(' ');
    expect(signatures).toHaveLength(2);
    expect(
      new Webhook(current).sign(
        headers['webhook-id'] as string,
        new Date(Number(headers['webhook-timestamp']) * 1000),
        body,
      ),
    ).toBe(signatures[0]);
    for (const secret of [current, previous])
      expect(() => new Webhook(secret).verify(body, headers)).not.toThrow();
    expect(() => new Webhook(newDestinationSecret()).verify(body, headers)).toThrow();
  });

  it('signs with a secret stored without whsec_ (Secrets Manager generates those) as its whsec_ form verifies', () => {
    const stored = randomBytes(32).toString('base64');
    const headers = forwardHeaders(input({ secrets: [stored] }));
    expect(() => new Webhook(displaySecret(stored)).verify(body, headers)).not.toThrow();
    expect(displaySecret(`whsec_${stored}`)).toBe(`whsec_${stored}`);
  });

  it('signs the timestamp it sends: a different one does not verify', () => {
    const secret = newDestinationSecret();
    const headers = forwardHeaders(input({ secrets: [secret] }));
    const moved = { ...headers, 'webhook-timestamp': String(Number(headers['webhook-timestamp']) - 1) };
    expect(() => new Webhook(secret).verify(body, moved)).toThrow();
  });

  it("carries the inbox's facts, every value one Node will send", () => {
    const headers = forwardHeaders(
      input({ eventType: 'r\u00e9sum\u00e9.updated\r\nx-injected: 1', deliveryId: 'del 1\n', attempt: 3 }),
    );
    expect(headers).toMatchObject({
      'content-type': 'application/json',
      'webhook-inbox-provider': 'stripe',
      'webhook-inbox-event-type': encodeURIComponent('r\u00e9sum\u00e9.updated\r\nx-injected: 1'),
      'webhook-inbox-delivery-id': encodeURIComponent('del 1\n'),
      'webhook-inbox-attempt': '3',
    });
    for (const [name, value] of Object.entries(headers)) {
      expect(() => validateHeaderName(name)).not.toThrow();
      expect(() => validateHeaderValue(name, value)).not.toThrow();
    }
    expect(forwardHeaders(input())).not.toHaveProperty(FORWARD_HEADERS.deliveryId);
  });
});

describe('signatureHeader', () => {
  it('refuses to sign with no secret, or with one that is not base64', () => {
    expect(() => signatureHeader([], 'msg_1', 1, body)).toThrow(UnusableSecretError);
    for (const bad of ['whsec_', 'whsec_!!!!', 'whsec_abc-_def', 'whsec_abcde']) {
      expect(() => signatureHeader([bad], 'msg_1', 1, body)).toThrow(UnusableSecretError);
    }
    expect(() => signatureHeader([newDestinationSecret(), 'whsec_!!!!'], 'msg_1', 1, body)).toThrow(
      UnusableSecretError,
    );
  });
});

describe('webhookId', () => {
  it('is the same for the same delivery, and differs between deliveries', () => {
    expect(webhookId('github:72d3162e')).toBe(webhookId('github:72d3162e'));
    expect(webhookId('github:72d3162e')).not.toBe(webhookId('github:72d3162f'));
    expect(webhookId('github:a')).not.toBe(webhookId('stripe:a'));
  });

  it('is header-safe whatever the dedup key holds', () => {
    for (const key of ['generic:a b\r\nc', 'partner:\u00fcml\u2713', `partner:${'x'.repeat(5000)}`, 'p:']) {
      const id = webhookId(key);
      expect(id).toMatch(/^msg_[0-9a-f]{32}$/);
      expect(() => validateHeaderValue('webhook-id', id)).not.toThrow();
    }
  });
});

describe('newDestinationSecret', () => {
  it('makes distinct whsec_ secrets of 24 random bytes that the library takes', () => {
    const secret = newDestinationSecret();
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{32}$/);
    expect(Buffer.from(secret.slice(6), 'base64')).toHaveLength(24);
    expect(newDestinationSecret()).not.toBe(secret);
    expect(() => new Webhook(secret)).not.toThrow();
  });
});
