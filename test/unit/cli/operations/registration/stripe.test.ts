// The Stripe registrar against a local server that answers as Stripe's API documents: every page of the
// list, the secret that only the create call returns, delete, and each refusal turned into its reason code
// with nothing of the key in the sentence.
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { RegistrationError } from '../../../../../cli/operations/registration/errors';
import { stripeKeyMode, stripeRegistrar } from '../../../../../cli/operations/registration/stripe';
import { type FakeStripeApi, startFakeStripeApi } from '../../../../support/provider-apis/stripe';

const testKey = `sk_test_${randomBytes(16).toString('hex')}`;
const URL_ = 'https://inbox.example.com/webhooks/stripe';

let api: FakeStripeApi;
beforeAll(async () => {
  api = await startFakeStripeApi();
  api.allowKey(testKey);
});
afterAll(() => api.close());
beforeEach(() => {
  api.clear();
  api.requests.splice(0);
});

const registrar = (credential = testKey, mode?: 'test' | 'live') =>
  stripeRegistrar({ credential, apiBase: api.url, ...(mode ? { mode } : {}) });

/** The rejection, checked to be a RegistrationError whose message holds no part of the key. */
async function refusal(promise: Promise<unknown>, key = testKey): Promise<RegistrationError> {
  const error = await promise.then(
    () => expect.unreachable('the call succeeded'),
    (failure: unknown) => failure,
  );
  expect(error).toBeInstanceOf(RegistrationError);
  const { message } = error as RegistrationError;
  expect(message).not.toContain(key);
  expect(message).not.toContain(key.slice(-4));
  expect(message).not.toMatch(/[\r\n]/);
  return error as RegistrationError;
}

describe('stripeRegistrar', () => {
  it('says how it replaces: Stripe returns the secret, so a new endpoint is made and the old deleted', () => {
    const stripe = registrar();
    expect(stripe).toMatchObject({ name: 'Stripe', secretOrigin: 'theirs', replaceStrategy: 'recreate' });
    expect(stripe.delete).toBeTypeOf('function');
  });

  it('lists every endpoint across pages, following has_more with starting_after', async () => {
    for (let i = 0; i < 105; i++) api.seed(`https://other.example.com/${i}`);
    const seeded = api.endpoints();
    const listed = await registrar().list();
    expect(listed.map((each) => each.id)).toEqual(seeded.map((each) => each.id));
    const pages = api.requests.filter((each) => each.method === 'GET');
    expect(pages).toHaveLength(2);
    expect(pages[1]!.query.get('starting_after')).toBe(seeded[99]!.id);
    expect(listed[0]).toMatchObject({ url: seeded[0]!.url, events: ['*'] });
    expect(listed[0]!.createdAt).toBe(new Date(seeded[0]!.created * 1000).toISOString());
  });

  it('creates an endpoint for every event at the SDK pinned API version and returns the secret Stripe shows once', async () => {
    const { default: Stripe } = await import('stripe');
    const created = await registrar().create({ url: URL_ });
    const held = api.endpoints().find((each) => each.id === created.endpoint.id)!;
    expect(created.secret).toBe(held.secret);
    expect(created.endpoint).toMatchObject({ url: URL_, events: ['*'] });
    expect(held.api_version).toBe(Stripe.API_VERSION);
    expect(held.enabled_events).toEqual(['*']);
  });

  it('sends a create whose answer was lost again with the same idempotency key, and gets the secret of the one endpoint made', async () => {
    api.loseNextAnswer('POST');
    const created = await registrar().create({ url: URL_ });
    expect(api.endpoints()).toHaveLength(1);
    const held = api.endpoints()[0]!;
    expect(created.endpoint.id).toBe(held.id);
    expect(created.secret).toBe(held.secret);
    const creates = api.requests.filter((each) => each.method === 'POST');
    expect(creates).toHaveLength(2);
    expect(creates[0]!.headers['idempotency-key']).toMatch(/^webhook-inbox-/);
    expect(creates[1]!.headers['idempotency-key']).toBe(creates[0]!.headers['idempotency-key']);
  });

  it('subscribes to the events named, when some are', async () => {
    const created = await registrar().create({ url: URL_, events: ['charge.succeeded', 'invoice.paid'] });
    expect(created.endpoint.events).toEqual(['charge.succeeded', 'invoice.paid']);
  });

  it('finds an endpoint that already exists for the URL in the list', async () => {
    const existing = api.seed(URL_);
    const listed = await registrar().list();
    expect(listed.filter((each) => each.url === URL_).map((each) => each.id)).toEqual([existing.id]);
  });

  it('deletes an endpoint, and says not_found for one Stripe does not have', async () => {
    const existing = api.seed(URL_);
    await registrar().delete!({ id: existing.id, url: URL_, events: ['*'] });
    expect(api.endpoints().map((each) => each.id)).not.toContain(existing.id);
    const error = await refusal(registrar().delete!({ id: existing.id, url: URL_, events: ['*'] }));
    expect(error.reason).toBe('not_found');
  });

  it('turns a refused key (401) into refused_credential without quoting Stripe, which masks all but four characters', async () => {
    const unknown = `sk_test_${randomBytes(16).toString('hex')}`;
    const error = await refusal(registrar(unknown).list(), unknown);
    expect(error.reason).toBe('refused_credential');
    expect(error.message).toMatch(/401/);
  });

  it('refuses a key of the other mode before any call, saying which mode the key is and which was asked', async () => {
    const error = await refusal(registrar(testKey, 'live').create({ url: URL_ }));
    expect(error.reason).toBe('wrong_mode');
    expect(error.message).toMatch(/test-mode key.*live mode was asked/);
    const live = `rk_live_${randomBytes(16).toString('hex')}`;
    const restricted = await refusal(registrar(live, 'test').list(), live);
    expect(restricted.message).toMatch(/live-mode key.*test mode was asked/);
    expect(api.requests).toHaveLength(0);
  });

  it('reads the mode from sk_ and rk_ keys alike', () => {
    expect(stripeKeyMode('sk_test_x')).toBe('test');
    expect(stripeKeyMode('rk_live_x')).toBe('live');
    expect(stripeKeyMode('pk_test_x')).toBeUndefined();
  });

  it('names the permission a restricted key lacks (403 missing_scope), and only the permission', async () => {
    const readOnly = `rk_test_${randomBytes(16).toString('hex')}`;
    api.allowKey(readOnly, ['rak_webhook_read']);
    await expect(registrar(readOnly).list()).resolves.toEqual(expect.any(Array));
    const error = await refusal(registrar(readOnly).create({ url: URL_ }), readOnly);
    expect(error.reason).toBe('missing_scope');
    expect(error.message).toContain('rak_webhook_write');
    expect(error.message).not.toContain('acct_');
    expect(api.endpoints().filter((each) => each.url === URL_)).toHaveLength(0);
  });

  it.each([
    ['GET', 'listing', (stripe: ReturnType<typeof registrar>) => stripe.list()],
    ['POST', 'creating', (stripe: ReturnType<typeof registrar>) => stripe.create({ url: URL_ })],
    [
      'DELETE',
      'deleting',
      (stripe: ReturnType<typeof registrar>) => stripe.delete!({ id: 'we_1', url: URL_, events: [] }),
    ],
  ])(
    'a 500 on %s is provider_unavailable, tried once and never retried by the SDK',
    async (method, doing, call) => {
      api.failNext(method, 500);
      const error = await refusal(call(registrar()));
      expect(error.reason).toBe('provider_unavailable');
      expect(error.message).toContain(doing);
      expect(api.requests.filter((each) => each.method === method)).toHaveLength(1);
      expect(api.endpoints().filter((each) => each.url === URL_)).toHaveLength(0);
    },
  );

  it('a URL Stripe refuses is rejected_request naming the parameter', async () => {
    const error = await refusal(registrar().create({ url: 'ftp://inbox.example.com' }));
    expect(error.reason).toBe('rejected_request');
    expect(error.message).toContain('param url');
  });

  it('sends the key as a bearer header and never records it in the request line or body', async () => {
    await registrar().list();
    for (const request of api.requests) {
      expect(JSON.stringify(request)).not.toContain(testKey);
    }
  });
});
