// The Paddle registrar against a local server that answers as Paddle's API documents: every page of the
// notification destinations, every event type when none is named (Paddle has no wildcard), the secret key
// the create call returns, delete, and Paddle's refusals (all 403s) told apart by their codes.
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { RegistrationError } from '../../../../../cli/operations/registration/errors';
import { paddleApiBase, paddleRegistrar } from '../../../../../cli/operations/registration/paddle';
import {
  type FakePaddleApi,
  PADDLE_EVENT_TYPES,
  startFakePaddleApi,
} from '../../../../support/provider-apis/paddle';

const sandboxKey = `pdl_sdbx_apikey_01${randomBytes(12).toString('hex')}_${randomBytes(12).toString('base64url')}`;
const URL_ = 'https://inbox.example.com/webhooks/paddle';

let api: FakePaddleApi;
beforeAll(async () => {
  api = await startFakePaddleApi();
  api.allowKey(sandboxKey);
});
afterAll(() => api.close());
beforeEach(() => api.clear());

const registrar = (credential = sandboxKey) => paddleRegistrar({ credential, apiBase: api.url });

async function refusal(promise: Promise<unknown>, key = sandboxKey): Promise<RegistrationError> {
  const error = await promise.then(
    () => expect.unreachable('the call succeeded'),
    (failure: unknown) => failure,
  );
  expect(error).toBeInstanceOf(RegistrationError);
  const { message } = error as RegistrationError;
  expect(message).not.toContain(key);
  expect(message).not.toContain(key.slice(-6));
  expect(message).not.toMatch(/[\r\n]/);
  return error as RegistrationError;
}

describe('paddleRegistrar', () => {
  it('says how it replaces: Paddle returns the secret, so a new destination is made and the old deleted', () => {
    expect(registrar()).toMatchObject({
      name: 'Paddle',
      secretOrigin: 'theirs',
      replaceStrategy: 'recreate',
    });
  });

  it('picks the sandbox or live API from the key prefix', () => {
    expect(paddleApiBase('pdl_sdbx_apikey_01abc_x')).toBe('https://sandbox-api.paddle.com');
    expect(paddleApiBase('pdl_live_apikey_01abc_x')).toBe('https://api.paddle.com');
  });

  it('lists every webhook destination across pages by the after cursor, leaving email destinations out', async () => {
    for (let i = 0; i < 203; i++) api.seed(`https://other.example.com/${i}`);
    api.seed('alerts@example.com', 'email');
    const urls = api.settings().filter((each) => each.type === 'url');
    const listed = await registrar().list();
    expect(listed.map((each) => each.id)).toEqual(urls.map((each) => each.id));
    const pages = api.requests.filter((each) => each.method === 'GET');
    expect(pages).toHaveLength(2);
    expect(pages[1]!.query.get('after')).toBe(api.settings()[199]!.id);
    expect(listed[0]).toMatchObject({ url: urls[0]!.destination, events: ['transaction.completed'] });
    expect(pages[0]!.headers['paddle-version']).toBe('1');
  });

  it('never sends the key to a host that a pagination link names', async () => {
    for (let i = 0; i < 201; i++) api.seed(`https://other.example.com/${i}`);
    const elsewhere = await startFakePaddleApi();
    try {
      api.linkHost(elsewhere.url);
      const listed = await registrar().list();
      expect(listed).toHaveLength(201);
      expect(elsewhere.requests).toHaveLength(0);
      expect(api.requests.filter((each) => each.method === 'GET')).toHaveLength(2);
    } finally {
      await elsewhere.close();
    }
  });

  it('creates a URL destination for every event type Paddle lists, and returns its endpoint_secret_key', async () => {
    const created = await registrar().create({ url: URL_ });
    const held = api.settings().find((each) => each.id === created.endpoint.id)!;
    expect(created.secret).toBe(held.endpoint_secret_key);
    expect(created.secret).toMatch(/^pdl_ntfset_/);
    expect(created.endpoint.events).toEqual(PADDLE_EVENT_TYPES.map((each) => each.name));
    expect(held).toMatchObject({
      type: 'url',
      destination: URL_,
      api_version: 1,
      description: 'webhook-inbox',
    });
    expect(api.requests.map((each) => `${each.method} ${each.path}`)).toEqual([
      'GET /event-types',
      'POST /notification-settings',
    ]);
  });

  it('subscribes to the events named, without asking for the event types', async () => {
    const created = await registrar().create({ url: URL_, events: ['transaction.completed'] });
    expect(created.endpoint.events).toEqual(['transaction.completed']);
    expect(api.requests.map((each) => each.path)).toEqual(['/notification-settings']);
  });

  it('an event name Paddle does not know is rejected_request', async () => {
    const error = await refusal(registrar().create({ url: URL_, events: ['no.such.event'] }));
    expect(error.reason).toBe('rejected_request');
    expect(error.message).toContain('bad_request');
  });

  it('finds a destination that already exists for the URL in the list', async () => {
    const existing = api.seed(URL_);
    const listed = await registrar().list();
    expect(listed.filter((each) => each.url === URL_).map((each) => each.id)).toEqual([existing.id]);
  });

  it('deletes a destination (204), and says not_found for one Paddle does not have', async () => {
    const existing = api.seed(URL_);
    const endpoint = { id: existing.id, url: URL_, events: [] };
    await registrar().delete!(endpoint);
    expect(api.settings()).toHaveLength(0);
    expect((await refusal(registrar().delete!(endpoint))).reason).toBe('not_found');
  });

  it('turns an unknown key, which Paddle answers 403 invalid_token, into refused_credential', async () => {
    const unknown = `pdl_live_apikey_01${randomBytes(12).toString('hex')}_${randomBytes(12).toString('base64url')}`;
    const error = await refusal(registrar(unknown).list(), unknown);
    expect(error.reason).toBe('refused_credential');
    expect(error.message).toContain('invalid_token');
  });

  it('turns 403 forbidden into missing_scope naming the permission the call needs', async () => {
    const readOnly = `pdl_sdbx_apikey_01${randomBytes(12).toString('hex')}_${randomBytes(12).toString('base64url')}`;
    api.allowKey(readOnly, ['notification_setting.read']);
    await expect(registrar(readOnly).list()).resolves.toEqual([]);
    const error = await refusal(registrar(readOnly).create({ url: URL_ }), readOnly);
    expect(error.reason).toBe('missing_scope');
    expect(error.message).toContain('notification_setting.write');
    expect(api.settings()).toHaveLength(0);
  });

  it.each([
    ['GET', '/notification-settings', 'listing', (paddle: ReturnType<typeof registrar>) => paddle.list()],
    [
      'GET',
      '/event-types',
      'event types',
      (paddle: ReturnType<typeof registrar>) => paddle.create({ url: URL_ }),
    ],
    [
      'POST',
      '/notification-settings',
      'creating',
      (paddle: ReturnType<typeof registrar>) => paddle.create({ url: URL_ }),
    ],
    [
      'DELETE',
      '/notification-settings',
      'deleting',
      (paddle: ReturnType<typeof registrar>) => paddle.delete!({ id: 'ntfset_1', url: URL_, events: [] }),
    ],
  ])('a 500 on %s %s is provider_unavailable and changes nothing', async (method, path, doing, run) => {
    api.failNext(method, 500, path);
    const error = await refusal(run(registrar()));
    expect(error.reason).toBe('provider_unavailable');
    expect(error.message).toContain(doing);
    expect(error.message).toContain('internal_error');
    expect(api.settings()).toHaveLength(0);
  });

  it('a proxy page instead of JSON (502) is provider_unavailable, its text not quoted', async () => {
    api.failNext('POST', 502, '/notification-settings', '<html><body>Bad Gateway</body></html>');
    const error = await refusal(registrar().create({ url: URL_, events: ['transaction.completed'] }));
    expect(error.reason).toBe('provider_unavailable');
    expect(error.message).toContain('502');
    expect(error.message).not.toContain('html');
  });

  it('a server that does not answer at all is provider_unavailable', async () => {
    const gone = await startFakePaddleApi();
    const url = gone.url;
    await gone.close();
    const error = await refusal(paddleRegistrar({ credential: sandboxKey, apiBase: url }).list());
    expect(error.reason).toBe('provider_unavailable');
  });

  it('sends the key only in the Authorization header', async () => {
    await registrar().create({ url: URL_ });
    for (const request of api.requests) expect(JSON.stringify(request)).not.toContain(sandboxKey);
  });
});
