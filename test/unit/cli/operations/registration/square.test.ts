// The Square registrar against a local Square Webhook Subscriptions API: every page of the list, a create
// that subscribes to every event type when none is named, the signature-key rotation, and each failure
// Square documents turned into one line with a reason code and nothing of the token.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { RegistrationError } from '../../../../../cli/operations/registration/errors';
import {
  SQUARE_API_VERSION,
  SQUARE_WRITE_ATTEMPTS,
  squareRegistrar,
} from '../../../../../cli/operations/registration/square';
import {
  type FakeSquareApi,
  SQUARE_EVENT_TYPES,
  startFakeSquareApi,
} from '../../../../support/provider-apis/square';

const URL_ = 'https://hooks.example.com/webhooks/square';

let api: FakeSquareApi;
beforeAll(async () => {
  api = await startFakeSquareApi();
});
afterAll(() => api.stop());
beforeEach(() => {
  api.subscriptions.clear();
  api.missingScopes.clear();
  api.requests.length = 0;
  api.pageSize = 100;
});

const registrar = (credential = api.token) => squareRegistrar({ credential, apiBase: api.url });

async function failure(run: () => Promise<unknown>): Promise<RegistrationError> {
  const error = await run().then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  expect(error).toBeInstanceOf(RegistrationError);
  return error as RegistrationError;
}

describe('squareRegistrar', () => {
  it('says Square returns the secret and rotates it with its own call', () => {
    expect(registrar()).toMatchObject({
      name: 'Square',
      secretOrigin: 'theirs',
      replaceStrategy: 'rotate-secret',
    });
  });

  it('lists every subscription across pages, following the cursor', async () => {
    api.pageSize = 2;
    const seeded = [1, 2, 3, 4, 5].map((n) => api.seed(`https://h${n}.example.com/square`));
    const listed = await registrar().list();
    expect(listed.map((each) => each.id).sort()).toEqual(seeded.map((each) => each.id).sort());
    expect(listed.find((each) => each.id === seeded[0]!.id)).toEqual({
      id: seeded[0]!.id,
      url: 'https://h1.example.com/square',
      events: ['payment.created'],
      createdAt: seeded[0]!.created_at,
    });
    const pages = api.requests.filter((each) => each.path === '/v2/webhooks/subscriptions');
    expect(pages).toHaveLength(3);
    expect(pages[0]!.query.cursor).toBeUndefined();
    expect(pages[1]!.query.cursor).toEqual(expect.any(String));
  });

  it('creates a subscription to every event type when none is named, and returns the signature key', async () => {
    const created = await registrar().create({ url: URL_ });
    const held = api.subscriptions.get(created.endpoint.id)!;
    expect(created.secret).toBe(held.signature_key);
    expect(created.endpoint).toMatchObject({ url: URL_, events: [...SQUARE_EVENT_TYPES] });
    const sent = api.requests.find((each) => each.method === 'POST')!.body as Record<string, unknown>;
    expect(sent).toEqual({
      idempotency_key: expect.any(String),
      subscription: {
        name: 'webhook-inbox',
        enabled: true,
        event_types: [...SQUARE_EVENT_TYPES],
        notification_url: URL_,
        api_version: SQUARE_API_VERSION,
      },
    });
    expect(api.requests[0]!.query).toEqual({ api_version: SQUARE_API_VERSION });
  });

  it('subscribes to only the events named, without listing the event types', async () => {
    const created = await registrar().create({ url: URL_, events: ['payment.updated'] });
    expect(api.subscriptions.get(created.endpoint.id)!.event_types).toEqual(['payment.updated']);
    expect(api.requests.some((each) => each.path === '/v2/webhooks/event-types')).toBe(false);
  });

  it('finds a subscription that exists for the URL in the list', async () => {
    const existing = api.seed(URL_);
    expect((await registrar().list()).filter((each) => each.url === URL_).map((each) => each.id)).toEqual([
      existing.id,
    ]);
  });

  it('rotates the signature key: the new key is what Square signs with from then on', async () => {
    const existing = api.seed(URL_);
    const old = existing.signature_key;
    const [endpoint] = await registrar().list();
    const rotated = await registrar().rotateSecret!(endpoint!);
    expect(rotated).not.toBe(old);
    expect(api.subscriptions.get(existing.id)!.signature_key).toBe(rotated);
    const sent = api.requests.at(-1)!;
    expect(sent).toMatchObject({
      method: 'POST',
      path: `/v2/webhooks/subscriptions/${existing.id}/signature-key`,
    });
    expect(sent.body).toEqual({ idempotency_key: expect.any(String) });
  });

  it('deletes a subscription', async () => {
    const existing = api.seed(URL_);
    await registrar().delete!({ id: existing.id, url: URL_, events: [] });
    expect(api.subscriptions.size).toBe(0);
  });

  it('refuses an unknown subscription on rotation with not_found', async () => {
    const error = await failure(() => registrar().rotateSecret!({ id: 'wbhk_gone', url: URL_, events: [] }));
    expect(error.reason).toBe('not_found');
  });

  it('a refused token is refused_credential, one line without the token', async () => {
    const wrong = 'EAAAwrong-token-0123456789';
    const error = await failure(() => registrar(wrong).list());
    expect(error.reason).toBe('refused_credential');
    expect(error.message).not.toContain(wrong);
    expect(error.message).not.toContain('\n');
    expect(api.requests.at(-1)!.credential).toBe('refused');
  });

  it('a token without the write scope is missing_scope naming DEVELOPER_APPLICATION_WEBHOOKS_WRITE', async () => {
    api.missingScopes.add('DEVELOPER_APPLICATION_WEBHOOKS_WRITE');
    const error = await failure(() => registrar().create({ url: URL_, events: ['payment.created'] }));
    expect(error.reason).toBe('missing_scope');
    expect(error.message).toContain('DEVELOPER_APPLICATION_WEBHOOKS_WRITE');
    expect(error.message).not.toContain(api.token);
    expect(api.subscriptions.size).toBe(0);
  });

  it('a token without the read scope is missing_scope naming DEVELOPER_APPLICATION_WEBHOOKS_READ', async () => {
    api.missingScopes.add('DEVELOPER_APPLICATION_WEBHOOKS_READ');
    const error = await failure(() => registrar().list());
    expect(error).toMatchObject({ reason: 'missing_scope' });
    expect(error.message).toContain('DEVELOPER_APPLICATION_WEBHOOKS_READ');
  });

  it.each([
    ['GET', () => registrar().list()],
    ['DELETE', () => registrar().delete!({ id: 'wbhk_x', url: URL_, events: [] })],
  ])(
    'a 500 on %s is provider_unavailable at once: the command is run again, not the call',
    async (method, run) => {
      api.failNext(method, 500);
      const error = await failure(run);
      expect(error.reason).toBe('provider_unavailable');
      expect(api.requests.filter((each) => each.method === method)).toHaveLength(1);
    },
  );

  it('a create that Square keeps answering 500 is provider_unavailable after the attempts, with nothing created', async () => {
    for (let n = 0; n < SQUARE_WRITE_ATTEMPTS; n++) api.failNext('POST', 500);
    const error = await failure(() => registrar().create({ url: URL_, events: ['payment.created'] }));
    expect(error.reason).toBe('provider_unavailable');
    expect(api.requests.filter((each) => each.method === 'POST')).toHaveLength(SQUARE_WRITE_ATTEMPTS);
    expect(api.subscriptions.size).toBe(0);
  });

  it('a create whose answer was lost is repeated with the same idempotency key and returns the key Square holds', async () => {
    api.loseNextAnswer('POST');
    const created = await registrar().create({ url: URL_, events: ['payment.created'] });
    expect(api.subscriptions.size).toBe(1);
    expect(created.secret).toBe(api.subscriptions.get(created.endpoint.id)!.signature_key);
    const keys = api.requests
      .filter((each) => each.method === 'POST')
      .map((each) => (each.body as { idempotency_key: string }).idempotency_key);
    expect(keys).toHaveLength(2);
    expect(keys[1]).toBe(keys[0]);
  });

  it('a rotation whose answer was lost is repeated with the same key and returns the key Square signs with', async () => {
    const existing = api.seed(URL_);
    api.loseNextAnswer('POST');
    const rotated = await registrar().rotateSecret!({ id: existing.id, url: URL_, events: [] });
    expect(rotated).toBe(api.subscriptions.get(existing.id)!.signature_key);
    const keys = api.requests.map((each) => (each.body as { idempotency_key: string }).idempotency_key);
    expect(keys).toEqual([keys[0], keys[0]]);
  });

  it('a rotation Square keeps answering 500 leaves the subscription signing with its old key', async () => {
    const existing = api.seed(URL_);
    const old = existing.signature_key;
    for (let n = 0; n < SQUARE_WRITE_ATTEMPTS; n++) api.failNext('POST', 500);
    const error = await failure(() => registrar().rotateSecret!({ id: existing.id, url: URL_, events: [] }));
    expect(error.reason).toBe('provider_unavailable');
    expect(api.subscriptions.get(existing.id)!.signature_key).toBe(old);
  });

  it('an event type Square does not know is rejected_request naming the field only', async () => {
    const error = await failure(() => registrar().create({ url: URL_, events: ['no.such.event'] }));
    expect(error.reason).toBe('rejected_request');
    expect(error.message).toContain('subscription.event_types');
    expect(error.message).not.toContain('no.such.event');
  });

  it('an API that cannot be reached is provider_unavailable', async () => {
    const gone = squareRegistrar({ credential: api.token, apiBase: 'http://127.0.0.1:1' });
    expect((await failure(() => gone.list())).reason).toBe('provider_unavailable');
  });

  it('never records the token itself in the request log', async () => {
    await registrar().list();
    await registrar('EAAAwrong')
      .list()
      .catch(() => undefined);
    expect(JSON.stringify(api.requests)).not.toContain(api.token);
    expect(JSON.stringify(api.requests)).not.toContain('EAAAwrong');
  });
});
