import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { RegistrationError } from '../../../../../cli/operations/registration/errors';
import { githubRegistrar } from '../../../../../cli/operations/registration/github';
import { type FakeGithub, startFakeGithub } from '../../../../support/provider-apis/github';

const TOKEN = 'ghp_testtoken_0123456789';
const URL_ = 'https://inbox.example.com/webhooks/github';
let github: FakeGithub;

beforeEach(async () => {
  github = await startFakeGithub();
  github.addToken(TOKEN, { kind: 'classic', scopes: ['admin:repo_hook', 'admin:org_hook'] });
});
afterEach(() => github.close());

const registrar = (over: Partial<Parameters<typeof githubRegistrar>[0]> = {}) =>
  githubRegistrar({ credential: TOKEN, apiBase: github.apiBase, repo: 'acme/shop', ...over });

async function refusal(promise: Promise<unknown>): Promise<RegistrationError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!(error instanceof RegistrationError))
    throw new Error(`expected a RegistrationError, got ${String(error)}`);
  return error;
}

describe('githubRegistrar', () => {
  it('creates a JSON hook with TLS verification on, signing with the secret we chose', async () => {
    const created = await registrar().create({ url: URL_, secret: 'chosen-secret' });
    const [hook] = github.hooks;
    expect(created.endpoint).toMatchObject({ id: String(hook?.id), url: URL_, events: ['*'] });
    expect(created.secret).toBeUndefined();
    expect(hook).toMatchObject({
      owner: 'repos/acme/shop',
      contentType: 'json',
      insecureSsl: '0',
      secret: 'chosen-secret',
      active: true,
    });
    expect(github.requests.at(-1)).toMatchObject({ method: 'POST', path: '/api/v3/repos/acme/shop/hooks' });
  });

  it('creates an organization hook with --org, narrowed to the events given', async () => {
    await registrar({ repo: undefined, org: 'acme' }).create({
      url: URL_,
      secret: 's',
      events: ['push', 'release'],
    });
    expect(github.hooks[0]).toMatchObject({ owner: 'orgs/acme', events: ['push', 'release'] });
  });

  it('lists every page of hooks (GitHub pages by Link header)', async () => {
    for (let i = 0; i < 130; i++) github.addHook('repos/acme/shop', `https://other.example.com/${i}`, 's');
    github.addHook('repos/acme/shop', URL_, 's');
    const listed = await registrar().list();
    expect(listed).toHaveLength(131);
    expect(listed.at(-1)?.url).toBe(URL_);
    expect(github.requests.filter((r) => r.method === 'GET').length).toBeGreaterThan(1);
  });

  it('updates the secret through PATCH .../hooks/{id}/config, leaving the hook itself alone', async () => {
    const hook = github.addHook('repos/acme/shop', URL_, 'old');
    const [listed] = await registrar().list();
    await registrar().updateSecret?.(listed as never, 'new');
    expect(hook.secret).toBe('new');
    expect(github.requests.at(-1)).toMatchObject({
      method: 'PATCH',
      path: `/api/v3/repos/acme/shop/hooks/${hook.id}/config`,
    });
  });

  it('deletes a hook', async () => {
    github.addHook('repos/acme/shop', URL_, 'old');
    const [listed] = await registrar().list();
    await registrar().delete?.(listed as never);
    expect(github.hooks).toEqual([]);
  });

  it('a refused token is refused_credential, and the token appears nowhere in the error', async () => {
    const error = await refusal(registrar({ credential: 'ghp_wrong_token' }).list());
    expect(error.reason).toBe('refused_credential');
    expect(`${error.message} ${JSON.stringify(error)}`).not.toContain('ghp_wrong_token');
  });

  it('a classic token without admin:repo_hook is missing_scope naming the scope', async () => {
    github.addToken('ghp_readonly', { kind: 'classic', scopes: ['public_repo'] });
    const error = await refusal(registrar({ credential: 'ghp_readonly' }).list());
    expect(error.reason).toBe('missing_scope');
    expect(error.message).toContain('admin:repo_hook');
  });

  it('a classic token without admin:org_hook is missing_scope naming that scope for --org', async () => {
    github.addToken('ghp_repo_only', { kind: 'classic', scopes: ['admin:repo_hook'] });
    const error = await refusal(
      registrar({ credential: 'ghp_repo_only', repo: undefined, org: 'acme' }).list(),
    );
    expect(error.reason).toBe('missing_scope');
    expect(error.message).toContain('admin:org_hook');
  });

  it('a fine-grained token without the Webhooks permission (403) is missing_scope', async () => {
    github.addToken('github_pat_x', { kind: 'fine-grained', webhooks: false });
    const error = await refusal(registrar({ credential: 'github_pat_x' }).list());
    expect(error.reason).toBe('missing_scope');
    expect(error.message).toContain('Webhooks');
  });

  it('a 500 is provider_unavailable; a 422 (unknown event) is rejected_request', async () => {
    github.failNext('POST', 500);
    expect((await refusal(registrar().create({ url: URL_, secret: 's' }))).reason).toBe(
      'provider_unavailable',
    );
    expect((await refusal(registrar().create({ url: URL_, secret: 's', events: ['nope'] }))).reason).toBe(
      'rejected_request',
    );
  });

  it('a failed secret update carries neither the secret nor the request that held it', async () => {
    github.addHook('repos/acme/shop', URL_, 'old');
    const [listed] = await registrar().list();
    github.failNext('PATCH', 500);
    const error = await refusal(
      registrar().updateSecret?.(listed as never, 'the-new-secret') as Promise<void>,
    );
    expect(error.reason).toBe('provider_unavailable');
    expect(error.cause).toBeUndefined();
    expect(`${error.message} ${JSON.stringify(error)}`).not.toContain('the-new-secret');
  });

  it('refuses --repo that is not owner/name, and neither or both of --repo and --org', () => {
    expect(() => registrar({ repo: 'acme' })).toThrow(RegistrationError);
    expect(() => registrar({ repo: undefined })).toThrow(/exactly one/);
    expect(() => registrar({ org: 'acme' })).toThrow(/exactly one/);
  });

  it('never sends the secret anywhere but config.secret, and records it redacted', async () => {
    await registrar().create({ url: URL_, secret: 'very-secret-value' });
    expect(JSON.stringify(github.requests)).not.toContain('very-secret-value');
  });
});
