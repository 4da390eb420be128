// End to end: `endpoints register github` against a local GitHub API, then a delivery signed by GitHub's own
// library (@octokit/webhooks-methods) with the secret the fake GitHub holds is answered 202 by the running
// inbox. Then --replace, including a GitHub that answers 500 halfway: the hook's secret still verifies.
import { randomUUID } from 'node:crypto';
import { sign } from '@octokit/webhooks-methods';
import { beforeAll, describe, expect, it } from 'vitest';
import { CLI_TIMEOUT_MS, json, oneLineError } from '../../../../e2e/cli/helpers';
import { runCliWith } from '../../../../e2e/cli/run-with-input';
import { type FakeGithub, startFakeGithub } from '../../../../support/provider-apis/github';
import { statusRow, useRegisterCommand } from './register-command';

const TOKEN = 'ghp_e2e_token_0123456789abcdef';
const PUBLIC_URL = 'https://inbox-tunnel.example.com/webhooks/github';
let github: FakeGithub;
const command = useRegisterCommand({
  providerId: 'github',
  credentialEnv: 'GITHUB_TOKEN',
  publicUrl: PUBLIC_URL,
  apiBase: () => github.apiBase,
  registerArgs: ['--repo', 'acme/shop'],
  statusArgs: ['--repo', 'acme/shop'],
});

beforeAll(async () => {
  github = await startFakeGithub();
  github.addToken(TOKEN, { kind: 'classic', scopes: ['admin:repo_hook'] });
  return () => github.close();
}, 60_000);

const register = (...extra: string[]) => command.register(TOKEN, ...extra);

/** A push as GitHub sends it, signed by GitHub's own library with `secret`. */
async function deliver(secret: string): Promise<number> {
  // The inbox dedups GitHub deliveries by body hash: each push is a new commit.
  const body = JSON.stringify({
    ref: 'refs/heads/main',
    after: randomUUID(),
    commits: [],
    repository: { full_name: 'acme/shop' },
  });
  return command.post(
    {
      'content-type': 'application/json',
      'x-github-event': 'push',
      'x-github-delivery': randomUUID(),
      'x-github-hook-id': String(github.hooks[0]?.id),
      'x-hub-signature-256': await sign(secret, body),
    },
    body,
  );
}

describe('endpoints register github, end to end', { timeout: CLI_TIMEOUT_MS * 4 }, () => {
  it('creates the hook with a secret the inbox already holds: GitHub-signed deliveries are answered 202', async () => {
    const result = await register('--json');
    expect(result.code, result.stderr).toBe(0);
    expect(json<{ outcome: string }>(result).outcome).toBe('created');
    const [hook] = github.hooks;
    expect(hook).toMatchObject({ url: PUBLIC_URL, contentType: 'json', insecureSsl: '0' });
    expect(command.secrets()[0]).toBe(hook?.secret);
    expect(await deliver(hook?.secret as string)).toBe(202);
    // The token went in the Authorization header only: nothing it printed holds it or the secret.
    expect(result.stdout + result.stderr).not.toContain(TOKEN);
    expect(result.stdout + result.stderr).not.toContain(hook?.secret as string);
  });

  it('run again, it finds the hook and changes nothing', async () => {
    const before = { hooks: structuredClone(github.hooks), secrets: command.secrets() };
    const result = await register();
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toMatch(/already has endpoint \d+ .*nothing changed/);
    expect(github.hooks).toEqual(before.hooks);
    expect(command.secrets()).toEqual(before.secrets);
  });

  it('--replace while GitHub answers 500 to the update: one line saying what was not done; the old secret still verifies', async () => {
    const old = github.hooks[0]?.secret as string;
    github.failNext('PATCH', 500);
    const result = await register('--replace');
    expect(result.code).toBe(1);
    expect(oneLineError(result)).toMatch(
      /GitHub answered 500 .*still signs with the old secret.*Run the same command again.*provider_unavailable/,
    );
    expect(github.hooks[0]?.secret).toBe(old);
    expect(await deliver(old)).toBe(202);
  });

  it('--replace: GitHub signs with the new secret, and a delivery signed with the old one still verifies', async () => {
    const old = github.hooks[0]?.secret as string;
    const result = await register('--replace');
    expect(result.code, result.stderr).toBe(0);
    const now = github.hooks[0]?.secret as string;
    expect(now).not.toBe(old);
    expect(command.secrets().slice(0, 2)).toEqual([now, old]);
    expect(await deliver(now)).toBe(202);
    expect(await deliver(old)).toBe(202);
  });

  it('endpoints status: registered to the URL, and GitHub has signed a delivery since its secret was set', async () => {
    // Another provider's secret changes after GitHub's deliveries: GitHub's own time still counts.
    const rotated = await runCliWith(command.dir, ['secrets', 'rotate', 'stripe']);
    expect(rotated.code, rotated.stderr).toBe(0);
    const result = await command.status(TOKEN);
    expect(result.code, result.stderr).toBe(0);
    expect(statusRow(result, 'github')).toMatchObject({
      registered: `yes (endpoint ${github.hooks[0]?.id})`,
      signedSince: expect.stringMatching(/^yes \(a delivery at /),
    });
    const stripe = await runCliWith(
      command.dir,
      ['endpoints', 'status', 'stripe', '--url', PUBLIC_URL, '--json'],
      { env: { STRIPE_API_KEY: undefined } },
    );
    expect(stripe.code, stripe.stderr).toBe(0);
    expect(statusRow(stripe, 'stripe')?.signedSince).toBe('no delivery since');
  });

  it('a refused token and a token without admin:repo_hook: one line each, with the reason, no token', async () => {
    const refused = await command.registerWithStdin('ghp_not_a_token_at_all');
    expect(refused.code).toBe(1);
    expect(oneLineError(refused)).toMatch(/refused the token.*refused_credential/);
    expect(refused.stderr).not.toContain('ghp_not_a_token_at_all');

    github.addToken('ghp_public_repo_only', { kind: 'classic', scopes: ['public_repo'] });
    const scoped = await command.registerWithStdin('ghp_public_repo_only');
    expect(scoped.code).toBe(1);
    expect(oneLineError(scoped)).toMatch(/lacks the admin:repo_hook scope.*missing_scope/);
  });
});
