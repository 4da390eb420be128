// The Linear registrar against a local Linear GraphQL endpoint: every page of the webhooks connection, a
// create that sends the inbox's own secret, the secret updated in place for --replace, and each error
// Linear reports in its `errors` array turned into one line with a reason code and nothing of the key.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { RegistrationError } from '../../../../../cli/operations/registration/errors';
import { LINEAR_RESOURCE_TYPES, linearRegistrar } from '../../../../../cli/operations/registration/linear';
import { type FakeLinearApi, startFakeLinearApi } from '../../../../support/provider-apis/linear';

const URL_ = 'https://hooks.example.com/webhooks/linear';
const SECRET = 'lin_wh_the-inbox-chose-this-one-0123456789';

let api: FakeLinearApi;
beforeAll(async () => {
  api = await startFakeLinearApi();
});
afterAll(() => api.stop());
beforeEach(() => {
  api.webhooks.clear();
  api.requests.length = 0;
  api.pageSize = 50;
  api.admin = true;
});

const registrar = (credential = api.apiKey) => linearRegistrar({ credential, apiBase: api.graphqlUrl });

async function failure(run: () => Promise<unknown>): Promise<RegistrationError> {
  const error = await run().then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  expect(error).toBeInstanceOf(RegistrationError);
  return error as RegistrationError;
}

describe('linearRegistrar', () => {
  it('chooses the secret itself and replaces it by updating the webhook', () => {
    expect(registrar()).toMatchObject({
      name: 'Linear',
      secretOrigin: 'ours',
      replaceStrategy: 'update-secret',
    });
  });

  it('lists every webhook across pages, following endCursor', async () => {
    api.pageSize = 2;
    const seeded = [1, 2, 3, 4, 5].map((n) => api.seed(`https://h${n}.example.com/linear`));
    const listed = await registrar().list();
    expect(listed.map((each) => each.id)).toEqual(seeded.map((each) => each.id));
    expect(listed[0]).toEqual({
      id: seeded[0]!.id,
      url: 'https://h1.example.com/linear',
      events: ['Issue'],
      createdAt: seeded[0]!.createdAt,
    });
    expect(api.requests).toHaveLength(3);
    expect(
      api.requests.map((each) => (each.body as { variables: { after: unknown } }).variables.after),
    ).toEqual([null, seeded[1]!.id, seeded[3]!.id]);
  });

  it('leaves a disabled webhook out of the list: it delivers nothing', async () => {
    api.seed(URL_).enabled = false;
    expect(await registrar().list()).toEqual([]);
  });

  it('sends a personal API key bare and an OAuth token as Bearer, as Linear tells them apart', async () => {
    await registrar().list();
    expect(api.requests.at(-1)!.credential).toBe('accepted');
    const personal = api.apiKey;
    api.apiKey = 'lin_oauth_0123456789abcdef';
    try {
      await registrar('lin_oauth_0123456789abcdef').list();
      expect(api.requests.at(-1)!.credential).toBe('accepted');
    } finally {
      api.apiKey = personal;
    }
  });

  it('creates a webhook for every resource type on all public teams, signing with the secret it was given', async () => {
    const created = await registrar().create({ url: URL_, secret: SECRET });
    expect(created.secret).toBeUndefined();
    const held = api.webhooks.get(created.endpoint.id)!;
    expect(held).toMatchObject({
      url: URL_,
      secret: SECRET,
      allPublicTeams: true,
      label: 'webhook-inbox',
      resourceTypes: [...LINEAR_RESOURCE_TYPES],
    });
    expect(created.endpoint).toMatchObject({ id: held.id, url: URL_, events: [...LINEAR_RESOURCE_TYPES] });
  });

  it('subscribes to only the resource types named', async () => {
    const created = await registrar().create({ url: URL_, events: ['Issue', 'Comment'], secret: SECRET });
    expect(api.webhooks.get(created.endpoint.id)!.resourceTypes).toEqual(['Issue', 'Comment']);
  });

  it('finds a webhook that exists for the URL in the list', async () => {
    const existing = api.seed(URL_);
    expect((await registrar().list()).filter((each) => each.url === URL_).map((each) => each.id)).toEqual([
      existing.id,
    ]);
  });

  it('updates the secret of the webhook in place', async () => {
    const existing = api.seed(URL_);
    await registrar().updateSecret!({ id: existing.id, url: URL_, events: [] }, SECRET);
    expect(api.webhooks.get(existing.id)!.secret).toBe(SECRET);
  });

  it('deletes a webhook', async () => {
    const existing = api.seed(URL_);
    await registrar().delete!({ id: existing.id, url: URL_, events: [] });
    expect(api.webhooks.size).toBe(0);
  });

  it('an unknown webhook is not_found', async () => {
    const error = await failure(() =>
      registrar().updateSecret!({ id: 'gone', url: URL_, events: [] }, SECRET),
    );
    expect(error.reason).toBe('not_found');
  });

  it('a refused key is refused_credential, one line without the key', async () => {
    const wrong = 'lin_api_wrongwrongwrong0123456789';
    const error = await failure(() => registrar(wrong).list());
    expect(error.reason).toBe('refused_credential');
    expect(error.message).not.toContain(wrong);
    expect(error.message).not.toContain('\n');
    expect(api.requests.at(-1)!.credential).toBe('refused');
  });

  it('a key without the admin scope is missing_scope naming admin', async () => {
    api.admin = false;
    const error = await failure(() => registrar().create({ url: URL_, secret: SECRET }));
    expect(error.reason).toBe('missing_scope');
    expect(error.message).toContain('admin');
    expect(error.message).not.toContain(api.apiKey);
    expect(error.message).not.toContain(SECRET);
    expect(api.webhooks.size).toBe(0);
  });

  it.each([
    ['list', () => registrar().list()],
    ['create', () => registrar().create({ url: URL_, secret: SECRET })],
    ['updateSecret', () => registrar().updateSecret!({ id: 'x', url: URL_, events: [] }, SECRET)],
    ['delete', () => registrar().delete!({ id: 'x', url: URL_, events: [] })],
  ])('a 500 on %s is provider_unavailable and changes nothing', async (_name, run) => {
    api.failNext('POST', 500);
    const error = await failure(run);
    expect(error.reason).toBe('provider_unavailable');
    expect(error.message).not.toContain(SECRET);
    expect(api.webhooks.size).toBe(0);
  });

  it('a 500 on the secret update leaves the webhook signing with its old secret', async () => {
    const existing = api.seed(URL_);
    const old = existing.secret;
    api.failNext('POST', 500);
    await failure(() => registrar().updateSecret!({ id: existing.id, url: URL_, events: [] }, SECRET));
    expect(api.webhooks.get(existing.id)!.secret).toBe(old);
  });

  it('an invalid input is rejected_request without echoing what was sent', async () => {
    const error = await failure(() =>
      registrar().create({ url: URL_, events: ['NoSuchType'], secret: SECRET }),
    );
    expect(error.reason).toBe('rejected_request');
    expect(error.message).not.toContain('NoSuchType');
  });

  it('an endpoint that cannot be reached is provider_unavailable', async () => {
    const gone = linearRegistrar({ credential: api.apiKey, apiBase: 'http://127.0.0.1:1/graphql' });
    expect((await failure(() => gone.list())).reason).toBe('provider_unavailable');
  });

  it('never records the key or the secret in the request log', async () => {
    await registrar().create({ url: URL_, secret: SECRET });
    await registrar('lin_api_refusedrefused')
      .list()
      .catch(() => undefined);
    const log = JSON.stringify(api.requests);
    expect(log).not.toContain(api.apiKey);
    expect(log).not.toContain('lin_api_refusedrefused');
    expect(log).not.toContain(SECRET);
  });
});

// The local endpoint is only worth testing against if Linear's own client reads it as it reads Linear.
describe('the local Linear API, read by @linear/sdk', () => {
  it("pages, creates and fetches through the SDK's own documents", async () => {
    const { LinearClient } = await import('@linear/sdk');
    api.pageSize = 1;
    const seeded = [api.seed('https://a.example.com/linear'), api.seed('https://b.example.com/linear')];
    const client = new LinearClient({ apiKey: api.apiKey, apiUrl: api.graphqlUrl });
    const first = await client.webhooks();
    expect(first.nodes.map((each) => each.url)).toEqual(['https://a.example.com/linear']);
    expect(first.pageInfo.hasNextPage).toBe(true);
    const all = await first.fetchNext();
    expect(all.nodes.map((each) => each.id)).toEqual(seeded.map((each) => each.id));
    const created = await client.createWebhook({ url: URL_, resourceTypes: ['Issue'], allPublicTeams: true });
    expect(created.success).toBe(true);
    expect((await created.webhook)?.url).toBe(URL_);
  });

  it("turns the endpoint's errors into the SDK's authentication and forbidden errors", async () => {
    const { AuthenticationLinearError, ForbiddenLinearError, LinearClient } = await import('@linear/sdk');
    const refused = new LinearClient({ apiKey: 'lin_api_refused', apiUrl: api.graphqlUrl });
    await expect(refused.webhooks()).rejects.toBeInstanceOf(AuthenticationLinearError);
    api.admin = false;
    const client = new LinearClient({ apiKey: api.apiKey, apiUrl: api.graphqlUrl });
    await expect(client.webhooks()).rejects.toBeInstanceOf(ForbiddenLinearError);
  });
});
