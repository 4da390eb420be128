// Every scheme that has its provider's own library in node_modules, judged against it case by case on the
// edge cases those libraries' test suites exercise (several signatures, unknown versions, whitespace,
// uppercase hex, old and new timestamps...). Where we answer otherwise on purpose the case says why; the
// docs/providers.md's "Differences from the providers' libraries" table lists the same cases.
import { createHmac } from 'node:crypto';
import { LinearWebhookClient } from '@linear/sdk/webhooks';
import { verify as octokitVerify } from '@octokit/webhooks-methods';
import { Paddle } from '@paddle/paddle-node-sdk';
import { WebhooksHelper } from 'square';
import { Webhook as StandardWebhook } from 'standardwebhooks';
import Stripe from 'stripe';
import { Webhook as SvixWebhook } from 'svix';
import { github } from '../../../../../lambdas/core/schemes/github';
import { linear } from '../../../../../lambdas/core/schemes/linear';
import { paddle } from '../../../../../lambdas/core/schemes/paddle';
import { square } from '../../../../../lambdas/core/schemes/square';
import { standardWebhooks } from '../../../../../lambdas/core/schemes/standard-webhooks';
import { stripe } from '../../../../../lambdas/core/schemes/stripe';
import { describePeerAgreement, NOW, type PeerCase } from '../../../../support/scheme-contract';

const hmac = (key: string | Buffer, text: string, encoding: 'hex' | 'base64') =>
  createHmac('sha256', key).update(text).digest(encoding);
const nowSeconds = () => Math.floor(Date.now() / 1000);
/** The same base64 MAC with the unused low bits of its last character set: other text, same bytes. */
const nonCanonical = (base64: string) => {
  const at = base64.indexOf('=') - 1;
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
  return `${base64.slice(0, at)}${alphabet[alphabet.indexOf(base64[at] as string) ^ 0b01]}${base64.slice(at + 1)}`;
};
const BYTES_NOT_TEXT = 'we compare the decoded MAC bytes, not their text';

// ---- Stripe: stripe-node's constructEvent, at a fixed receive time ----

const STRIPE_SECRET = 'whsec_test_secret';
const stripeEvent = JSON.stringify({ id: 'evt_test_webhook', object: 'event', type: 'charge.succeeded' });
const stripeMac = (t: number | string, body = stripeEvent, secret = STRIPE_SECRET) =>
  hmac(secret, `${t}.${body}`, 'hex');
const stripeCase = (name: string, header: string, extra: Partial<PeerCase> = {}): PeerCase => ({
  name,
  body: stripeEvent,
  headers: { 'Stripe-Signature': header },
  ...extra,
});
const stripeClient = new Stripe('sk_test_123');

describePeerAgreement({
  peer: 'stripe-node',
  scheme: stripe,
  secret: STRIPE_SECRET,
  context: () => ({ nowSeconds: NOW, toleranceSeconds: 300 }),
  peerAccepts: (c) =>
    Boolean(
      stripeClient.webhooks.constructEvent(
        c.body,
        c.headers['Stripe-Signature'] as string,
        STRIPE_SECRET,
        300,
        undefined,
        NOW * 1000,
      ),
    ),
  cases: [
    stripeCase('a valid signature', `t=${NOW},v1=${stripeMac(NOW)}`),
    stripeCase('a valid signature next to a bogus one', `t=${NOW},v1=${stripeMac(NOW)},v1=potato`),
    stripeCase('a v0 signature only', `t=${NOW},v0=${stripeMac(NOW)}`),
    stripeCase('a v0 signature before the valid v1', `t=${NOW},v0=${'0'.repeat(64)},v1=${stripeMac(NOW)}`),
    stripeCase('a space after the comma', `t=${NOW}, v1=${stripeMac(NOW)}`),
    stripeCase('another secret', `t=${NOW},v1=${stripeMac(NOW, stripeEvent, 'whsec_other')}`),
    stripeCase('a timestamp 301 s old', `t=${NOW - 301},v1=${stripeMac(NOW - 301)}`),
    stripeCase('a header that is not a signature header', 'bad_header'),
    stripeCase('a body changed after signing', `t=${NOW},v1=${stripeMac(NOW)}`, { body: `${stripeEvent} ` }),
    stripeCase('a body that is not JSON', `t=${NOW},v1=${stripeMac(NOW, 'not json')}`, { body: 'not json' }),
    stripeCase('a timestamp 301 s ahead', `t=${NOW + 301},v1=${stripeMac(NOW + 301)}`, {
      differs: 'the window applies both ways; Stripe checks only age',
    }),
    stripeCase('two timestamps, the last one signed', `t=${NOW - 10},t=${NOW},v1=${stripeMac(NOW)}`, {
      differs: 'two timestamps are refused; Stripe takes the last',
    }),
    stripeCase('uppercase hex', `t=${NOW},v1=${stripeMac(NOW).toUpperCase()}`, { differs: BYTES_NOT_TEXT }),
    (() => {
      const thin = JSON.stringify({ id: 'evt_test_thin', object: 'v2.core.event', type: 'v1.billing.meter' });
      return stripeCase('a thin (v2) event notification', `t=${NOW},v1=${stripeMac(NOW, thin)}`, {
        body: thin,
        differs: 'thin events are accepted; constructEvent refuses them to point at parseEventNotification',
      });
    })(),
  ],
});

// ---- Standard Webhooks: the reference library and Svix's, both on the real clock ----

const SW_SECRET = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
const SW_KEY = Buffer.from(SW_SECRET.slice('whsec_'.length), 'base64');
const SW_BODY = '{"type":"user.created","data":{"id":"u_1"}}';
const swCases = (): PeerCase[] => {
  const now = nowSeconds();
  const sig = (ts: number | string, id = 'msg_1') => `v1,${hmac(SW_KEY, `${id}.${ts}.${SW_BODY}`, 'base64')}`;
  const swCase = (
    name: string,
    signature: string,
    ts: number | string = now,
    extra: Partial<PeerCase> = {},
  ) => ({
    name,
    body: SW_BODY,
    headers: { 'webhook-id': 'msg_1', 'webhook-timestamp': String(ts), 'webhook-signature': signature },
    ...extra,
  });
  const bogus = 'v1,Ceo5qEr07ixe2NLpvHk3FH9bwy/WavXrAFQ/9tdO6mc=';
  return [
    swCase('a valid signature', sig(now)),
    swCase('several signatures, one valid', `${bogus} v2,${sig(now).slice(3)} ${sig(now)} ${bogus}`),
    swCase('unknown versions only', `v1a,${sig(now).slice(3)} v2,${sig(now).slice(3)}`),
    swCase('a truncated signature', sig(now).slice(0, 8)),
    swCase('an empty v1 entry', 'v1,'),
    swCase('a timestamp 301 s old', sig(now - 301), now - 301),
    swCase('a timestamp 301 s ahead', sig(now + 301), now + 301),
    swCase('a timestamp that is not a number', sig('hello'), 'hello'),
    swCase('a body changed after signing', sig(now), now, { body: `${SW_BODY} ` }),
    {
      name: 'no webhook-id',
      body: SW_BODY,
      headers: { 'webhook-timestamp': String(now), 'webhook-signature': sig(now) },
    },
    swCase('a timestamp with trailing characters', sig(now), `${now}abc`, {
      differs: 'timestamps are digits only; the libraries parseInt them',
    }),
    swCase('a v1 entry with a second comma', `${sig(now)},extra`, now, {
      differs: 'an entry is exactly v1,<base64>; the JavaScript library reads up to the next comma',
    }),
    swCase(
      'base64 with the unused bits of its last character set',
      `v1,${nonCanonical(sig(now).slice(3))}`,
      now,
      {
        differs: BYTES_NOT_TEXT,
      },
    ),
  ];
};
const swContext = () => ({ nowSeconds: nowSeconds(), toleranceSeconds: 300 });

describePeerAgreement({
  peer: 'standardwebhooks',
  scheme: standardWebhooks,
  secret: SW_SECRET,
  context: swContext,
  peerAccepts: (c) => {
    new StandardWebhook(SW_SECRET).verify(c.body, c.headers);
    return true;
  },
  cases: swCases(),
});

describePeerAgreement({
  peer: 'svix',
  scheme: standardWebhooks,
  secret: SW_SECRET,
  context: swContext,
  peerAccepts: (c) => {
    new SvixWebhook(SW_SECRET).verify(c.body, c.headers);
    return true;
  },
  cases: [
    ...swCases(),
    (() => {
      const now = nowSeconds();
      const signature = `v1,${hmac(SW_KEY, `msg_2.${now}.${SW_BODY}`, 'base64')}`;
      return {
        name: 'svix-* headers',
        body: SW_BODY,
        headers: { 'svix-id': 'msg_2', 'svix-timestamp': String(now), 'svix-signature': signature },
      };
    })(),
  ],
});

// ---- GitHub: @octokit/webhooks-methods ----

const GH_SECRET = 'mysecret';
const GH_BODY = `${JSON.stringify({ foo: 'bar' }, null, 2)}\n`;
const ghCase = (name: string, signature: string, extra: Partial<PeerCase> = {}): PeerCase => ({
  name,
  body: GH_BODY,
  headers: { 'X-Hub-Signature-256': signature },
  ...extra,
});
const ghMac = (secret = GH_SECRET) => hmac(secret, GH_BODY, 'hex');

describePeerAgreement({
  peer: '@octokit/webhooks-methods',
  scheme: github,
  secret: GH_SECRET,
  context: () => ({ nowSeconds: NOW, toleranceSeconds: 300 }),
  peerAccepts: (c) => octokitVerify(GH_SECRET, c.body, c.headers['X-Hub-Signature-256'] as string),
  cases: [
    ghCase(
      'its published test vector',
      'sha256=e3eccac34c43c7dc1cbb905488b1b81347fcc700a7b025697a9d07862256023f',
    ),
    ghCase('a wrong MAC', 'sha256=xxxccac34c43c7dc1cbb905488b1b81347fcc700a7b025697a9d07862256023f'),
    ghCase('a signature without its algorithm', ghMac()),
    ghCase('a sha1= signature', `sha1=${createHmac('sha1', GH_SECRET).update(GH_BODY).digest('hex')}`),
    ghCase('a truncated signature', `sha256=${ghMac().slice(0, -1)}`),
    ghCase('another secret', `sha256=${ghMac('foo')}`),
    ghCase('a body changed after signing', `sha256=${ghMac()}`, { body: GH_BODY.trim() }),
    ghCase('uppercase hex', `sha256=${ghMac().toUpperCase()}`, {
      differs: `${BYTES_NOT_TEXT} (octokit 7 decodes both cases too)`,
    }),
  ],
});

// ---- Paddle: paddle-node-sdk's isSignatureValid, on the real clock, with Paddle's 5 s window ----

const PADDLE_SECRET = 'pdl_ntfset_01hv8x0qeph0y3s1k8a2xdcg9e_aGVsbG8gd29ybGQgc2VjcmV0IGtleQ';
const PADDLE_BODY = JSON.stringify({
  event_type: 'transaction.billed',
  notification_id: 'ntf_01hv8wpts6fg0hhc1e5gf2rmxm',
  data: { id: 'txn_01hv8wnwpcw9ae9s3jh6a8kz0t' },
});
const paddleSdk = new Paddle('pdl_sdbx_apikey_for_tests_only');

describePeerAgreement({
  peer: 'paddle-node-sdk',
  scheme: paddle,
  secret: PADDLE_SECRET,
  context: () => ({ nowSeconds: nowSeconds(), toleranceSeconds: 5 }),
  peerAccepts: (c) =>
    paddleSdk.webhooks.isSignatureValid(c.body, PADDLE_SECRET, c.headers['Paddle-Signature'] as string),
  cases: (() => {
    const now = nowSeconds();
    const mac = (ts: number | string, secret = PADDLE_SECRET) => hmac(secret, `${ts}:${PADDLE_BODY}`, 'hex');
    const bogus = '0'.repeat(64);
    const paddleCase = (name: string, header: string, extra: Partial<PeerCase> = {}): PeerCase => ({
      name,
      body: PADDLE_BODY,
      headers: { 'Paddle-Signature': header },
      ...extra,
    });
    return [
      paddleCase('a valid signature', `ts=${now};h1=${mac(now)}`),
      paddleCase('a bogus h1 before the valid one', `ts=${now};h1=${bogus};h1=${mac(now)}`),
      paddleCase('an unknown h2 next to the valid h1', `ts=${now};h1=${mac(now)};h2=RANDOM_HASH`),
      paddleCase('a timestamp 30 s old', `ts=${now - 30};h1=${mac(now - 30)}`),
      paddleCase('another secret', `ts=${now};h1=${mac(now, 'pdl_ntfset_other')}`),
      paddleCase('a comma instead of a semicolon', `ts=${now},h1=${mac(now)}`),
      paddleCase('a body changed after signing', `ts=${now};h1=${mac(now)}`, { body: `${PADDLE_BODY} ` }),
      paddleCase('the valid h1 before a bogus one', `ts=${now};h1=${mac(now)};h1=${bogus}`, {
        differs: 'every h1 is tried, one per secret while a secret rotates; the SDK checks only the last',
      }),
      paddleCase('a timestamp 30 s ahead', `ts=${now + 30};h1=${mac(now + 30)}`, {
        differs: 'the window applies both ways; the SDK checks only age',
      }),
      paddleCase('a timestamp with trailing characters', `ts=${now}abc;h1=${mac(now)}`, {
        differs: 'timestamps are digits only; the SDK parseInts them',
      }),
      paddleCase('uppercase hex', `ts=${now};h1=${mac(now).toUpperCase()}`, { differs: BYTES_NOT_TEXT }),
    ];
  })(),
});

// ---- Linear: @linear/sdk's LinearWebhookClient, on the real clock, with Linear's 60 s window ----

const LINEAR_SECRET = 'lin_wh_peer_agreement_secret';
const linearBody = (webhookTimestamp: unknown) =>
  JSON.stringify({ action: 'update', type: 'Issue', data: { id: 'i_1' }, webhookTimestamp });
const linearCase = (name: string, body: string, extra: Partial<PeerCase> = {}): PeerCase => ({
  name,
  body,
  headers: { 'Linear-Signature': hmac(LINEAR_SECRET, body, 'hex') },
  ...extra,
});

describePeerAgreement({
  peer: '@linear/sdk',
  scheme: linear,
  secret: LINEAR_SECRET,
  context: () => ({ nowSeconds: nowSeconds(), toleranceSeconds: 60 }),
  peerAccepts: (c) =>
    new LinearWebhookClient(LINEAR_SECRET).verify(
      Buffer.from(c.body),
      c.headers['Linear-Signature'] as string,
    ),
  cases: (() => {
    const nowMs = Date.now();
    const valid = linearBody(nowMs);
    return [
      linearCase('a valid signature', valid),
      linearCase('a webhookTimestamp 61 s old', linearBody(nowMs - 61_000)),
      linearCase('a webhookTimestamp 61 s ahead', linearBody(nowMs + 61_000)),
      linearCase('no webhookTimestamp', linearBody(undefined)),
      linearCase('a webhookTimestamp as a string', linearBody(String(nowMs))),
      linearCase('a body changed after signing', valid, { body: `${valid} ` }),
      {
        name: 'another secret',
        body: valid,
        headers: { 'Linear-Signature': hmac('lin_wh_other', valid, 'hex') },
      },
      {
        name: 'uppercase hex',
        body: valid,
        headers: { 'Linear-Signature': hmac(LINEAR_SECRET, valid, 'hex').toUpperCase() },
        differs: BYTES_NOT_TEXT,
      },
      linearCase('a fractional webhookTimestamp', linearBody(nowMs + 0.5), {
        differs: 'webhookTimestamp must be whole milliseconds, as Linear sends it; the SDK takes any number',
      }),
    ];
  })(),
});

// ---- Square: the SDK's WebhooksHelper ----

const SQUARE_KEY = 'Ib_PeerAgreement_Key';
const SQUARE_URL = 'https://webhook.site/679a4f3a-dcfa-49ee-bac5-9d0edad886b9';
const SQUARE_BODY = JSON.stringify({
  merchant_id: 'MLEFBHHSJGVHD',
  type: 'webhooks.test_notification',
  event_id: 'ac3ac95b-f97d-458c-a6e6-18981597e05f',
  data: { type: 'webhooks', id: 'bc368e64-01aa-407e-b46e-3231809b1129' },
});
const squareMac = (url = SQUARE_URL, key = SQUARE_KEY) => hmac(key, `${url}${SQUARE_BODY}`, 'base64');
const squareCase = (name: string, signature: string, extra: Partial<PeerCase> = {}): PeerCase => ({
  name,
  body: SQUARE_BODY,
  headers: { 'x-square-hmacsha256-signature': signature },
  ...extra,
});

describePeerAgreement({
  peer: 'square',
  scheme: square,
  secret: SQUARE_KEY,
  url: SQUARE_URL,
  context: () => ({ nowSeconds: NOW, toleranceSeconds: 300 }),
  peerAccepts: (c) =>
    WebhooksHelper.verifySignature({
      requestBody: c.body,
      signatureHeader: c.headers['x-square-hmacsha256-signature'] as string,
      signatureKey: SQUARE_KEY,
      notificationUrl: SQUARE_URL,
    }),
  cases: [
    squareCase('a valid signature', squareMac()),
    squareCase('a signature for another URL', squareMac(`${SQUARE_URL}/`)),
    squareCase('another key', squareMac(SQUARE_URL, 'another-key')),
    squareCase('a body changed after signing', squareMac(), { body: `${SQUARE_BODY} ` }),
    squareCase('base64 without its padding', squareMac().replace(/=+$/, '')),
    squareCase('base64 with the unused bits of its last character set', nonCanonical(squareMac()), {
      differs: BYTES_NOT_TEXT,
    }),
  ],
});
