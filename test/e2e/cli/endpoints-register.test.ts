// `endpoints register`, `endpoints status` and `secrets set` through the real command line: where the URL
// and the credential may come from (never argv), and the secrets read once from standard input.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, describe, expect, it } from 'vitest';
import { type FakeGithub, startFakeGithub } from '../../support/provider-apis/github';
import { CLI_TIMEOUT_MS, json, makeProject, oneLineError, readSecrets } from './helpers';
import { runCliWith } from './run-with-input';

const project = makeProject();
afterAll(() => project.remove());
const TUNNEL = 'https://abc.trycloudflare.com/webhooks/github';

describe('endpoints register: the URL and the credential', { timeout: CLI_TIMEOUT_MS * 4 }, () => {
  it('locally, without --url, refuses with one line and exit 2 before reading any credential', async () => {
    const result = await runCliWith(project.dir, ['endpoints', 'register', 'github', '--repo', 'a/b'], {
      env: { GITHUB_TOKEN: 'ghp_x' },
    });
    expect(result.code).toBe(2);
    expect(oneLineError(result)).toMatch(/loopback.*pass --url/);
  });

  it('refuses a loopback --url too', async () => {
    const result = await runCliWith(project.dir, [
      'endpoints',
      'register',
      'github',
      '--repo',
      'a/b',
      '--url',
      'http://127.0.0.1:3000/webhooks/github',
    ]);
    expect(result.code).toBe(2);
    expect(oneLineError(result)).toMatch(/loopback URL no provider can reach/);
  });

  it('refuses plain http for --url and for an --api-base off this machine, before any request', async () => {
    const base = ['endpoints', 'register', 'github', '--repo', 'a/b'];
    const url = await runCliWith(
      project.dir,
      [...base, '--url', 'http://abc.trycloudflare.com/webhooks/github'],
      {
        env: { GITHUB_TOKEN: 'ghp_x' },
      },
    );
    expect(url.code).toBe(2);
    expect(oneLineError(url)).toMatch(/--url .* must be https/);
    const api = await runCliWith(
      project.dir,
      [...base, '--url', TUNNEL, '--api-base', 'http://ghe.example.com/api/v3'],
      { env: { GITHUB_TOKEN: 'ghp_x' } },
    );
    expect(api.code).toBe(2);
    expect(oneLineError(api)).toMatch(/--api-base .* must be https/);
  });

  it('takes no credential from argv: no option for one, no extra argument, and the value is never echoed', async () => {
    for (const args of [['--token', 'ghp_in_argv_1'], ['--api-key', 'ghp_in_argv_1'], ['ghp_in_argv_1']]) {
      const result = await runCliWith(
        project.dir,
        ['endpoints', 'register', 'github', '--repo', 'a/b', '--url', TUNNEL, ...args],
        {
          env: { GITHUB_TOKEN: undefined },
        },
      );
      expect(result.code).toBe(2);
      expect(oneLineError(result)).not.toContain('ghp_in_argv_1');
    }
  });

  it('without GITHUB_TOKEN or --token-stdin, says where the credential comes from (exit 2)', async () => {
    const none = await runCliWith(
      project.dir,
      ['endpoints', 'register', 'github', '--repo', 'a/b', '--url', TUNNEL],
      {
        env: { GITHUB_TOKEN: undefined },
      },
    );
    expect(none.code).toBe(2);
    expect(oneLineError(none)).toMatch(/set GITHUB_TOKEN .*--token-stdin/);
    const empty = await runCliWith(
      project.dir,
      ['endpoints', 'register', 'github', '--repo', 'a/b', '--url', TUNNEL, '--token-stdin'],
      { input: '\n' },
    );
    expect(empty.code).toBe(2);
    expect(oneLineError(empty)).toMatch(/no credential on standard input/);
  });

  it('GitHub without --repo or --org, and a scheme with no registration API: usage errors', async () => {
    const noRepo = await runCliWith(project.dir, ['endpoints', 'register', 'github', '--url', TUNNEL], {
      env: { GITHUB_TOKEN: 'ghp_x' },
    });
    expect(noRepo.code).toBe(2);
    expect(oneLineError(noRepo)).toMatch(/--repo owner\/name or --org NAME/);
    const mobazha = await runCliWith(project.dir, ['endpoints', 'register', 'mobazha', '--url', TUNNEL]);
    expect(mobazha.code).toBe(2);
    expect(oneLineError(mobazha)).toMatch(/no registration API/);
  });
});

describe('endpoints register with the credential from the environment or stdin', {
  timeout: CLI_TIMEOUT_MS * 3,
}, () => {
  let github: FakeGithub;
  afterAll(() => github?.close());

  it('reads GITHUB_TOKEN, or one trimmed line with --token-stdin', async () => {
    github = await startFakeGithub();
    github.addToken('ghp_from_env', { kind: 'classic', scopes: ['repo'] });
    github.addToken('ghp_from_stdin', { kind: 'classic', scopes: ['repo'] });
    const base = ['endpoints', 'register', 'github', '--url', TUNNEL, '--api-base', github.apiBase, '--json'];
    const fromEnv = await runCliWith(project.dir, [...base, '--repo', 'acme/one'], {
      env: { GITHUB_TOKEN: 'ghp_from_env' },
    });
    expect(fromEnv.code, fromEnv.stderr).toBe(0);
    const fromStdin = await runCliWith(project.dir, [...base, '--repo', 'acme/two', '--token-stdin'], {
      input: '  ghp_from_stdin  \nignored second line\n',
      env: { GITHUB_TOKEN: undefined },
    });
    expect(fromStdin.code, fromStdin.stderr).toBe(0);
    expect(github.hooks.map((h) => h.owner)).toEqual(['repos/acme/one', 'repos/acme/two']);
    // The second repository's hook signs with the secret the first one does: the inbox holds it already.
    expect(github.hooks[1]?.secret).toBe(github.hooks[0]?.secret);
    expect(readSecrets(project.dir).github?.[0]).toBe(github.hooks[0]?.secret);

    const status = await runCliWith(
      project.dir,
      [
        'endpoints',
        'status',
        'github',
        '--url',
        TUNNEL,
        '--api-base',
        github.apiBase,
        '--repo',
        'acme/one',
        '--json',
      ],
      { env: { GITHUB_TOKEN: 'ghp_from_env', STRIPE_API_KEY: undefined } },
    );
    expect(status.code, status.stderr).toBe(0);
    const rows = json<{ provider: string; registered: string; secretSetAt?: string }[]>(status);
    expect(rows.find((r) => r.provider === 'github')).toMatchObject({
      registered: `yes (endpoint ${github.hooks[0]?.id})`,
      secretSetAt: expect.any(String),
    });
    const all = await runCliWith(project.dir, ['endpoints', 'status', '--url', TUNNEL, '--json'], {
      env: {
        GITHUB_TOKEN: undefined,
        STRIPE_API_KEY: undefined,
        PADDLE_API_KEY: undefined,
        LINEAR_API_KEY: undefined,
        SQUARE_ACCESS_TOKEN: undefined,
      },
    });
    expect(all.code, all.stderr).toBe(0);
    const everyRow = json<{ provider: string; registered: string }[]>(all);
    expect(everyRow.find((r) => r.provider === 'slack')?.registered).toMatch(/cannot check: no API/);
    expect(everyRow.find((r) => r.provider === 'github')?.registered).toMatch(
      /cannot check: no GITHUB_TOKEN/,
    );
  });
});

describe('endpoints status --api-base', { timeout: CLI_TIMEOUT_MS * 2 }, () => {
  it("sends no credential but the named provider's to the --api-base host", async () => {
    const seen: string[] = [];
    const server = createServer((request, response) => {
      seen.push(String(request.headers.authorization ?? ''));
      response.writeHead(404, { 'content-type': 'application/json' }).end('{}');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    try {
      const env = {
        GITHUB_TOKEN: 'ghp_for_the_ghe_host',
        STRIPE_API_KEY: 'sk_test_not_for_that_host',
        PADDLE_API_KEY: 'pdl_not_for_that_host',
        LINEAR_API_KEY: 'lin_api_not_for_that_host',
        SQUARE_ACCESS_TOKEN: 'sq_not_for_that_host',
      };
      const args = ['--url', TUNNEL, '--api-base', `http://127.0.0.1:${port}/api/v3`, '--repo', 'acme/one'];
      const every = await runCliWith(project.dir, ['endpoints', 'status', ...args, '--json'], { env });
      expect(every.code).toBe(2);
      expect(oneLineError(every)).toMatch(/--api-base is one provider's API host/);
      const github = await runCliWith(project.dir, ['endpoints', 'status', 'github', ...args, '--json'], {
        env,
      });
      expect(github.code, github.stderr).toBe(0);
      expect(json<{ provider: string }[]>(github).map((r) => r.provider)).toEqual(['github']);
      expect(seen).toContain('token ghp_for_the_ghe_host');
      expect(seen.filter((header) => /not_for_that_host/.test(header))).toEqual([]);
    } finally {
      server.close();
    }
  });
});

describe('secrets set and the providers without a registration API', { timeout: CLI_TIMEOUT_MS * 3 }, () => {
  const slack = '0123456789abcdef0123456789abcdef';

  it('register slack prints the steps and stores the secret piped in, never echoing it', async () => {
    const result = await runCliWith(
      project.dir,
      ['endpoints', 'register', 'slack', '--url', 'https://abc.trycloudflare.com/webhooks/slack'],
      { input: `${slack}\n` },
    );
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toMatch(/Request URL to https:\/\/abc\.trycloudflare\.com\/webhooks\/slack/);
    // Slack checks the URL the moment it is saved, signed with the secret: the secret comes first.
    expect(result.stderr.indexOf('Signing Secret')).toBeLessThan(result.stderr.indexOf('Secret stored'));
    expect(result.stderr.indexOf('Secret stored')).toBeLessThan(result.stderr.indexOf('Request URL'));
    expect(result.stdout + result.stderr).not.toContain(slack);
    expect(readSecrets(project.dir).slack?.[0]).toBe(slack);
  });

  it('secrets set refuses a value of the wrong format and stores nothing', async () => {
    const before = readSecrets(project.dir).zoom;
    const result = await runCliWith(project.dir, ['secrets', 'set', 'zoom'], { input: 'short\n' });
    expect(result.code).toBe(2);
    expect(oneLineError(result)).toMatch(/refused the zoom secret: that is not the Secret Token/);
    expect(readSecrets(project.dir).zoom).toEqual(before);
  });

  it('secrets set trims what it reads and keeps the secret before as the previous one', async () => {
    const first = 'shpss_0123456789abcdef0123456789abcdef';
    const second = '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';
    await runCliWith(project.dir, ['secrets', 'set', 'shopify'], { input: `${first}\n` });
    const result = await runCliWith(project.dir, ['secrets', 'set', 'shopify', '--json'], {
      input: `  ${second}\r\n`,
    });
    expect(result.code, result.stderr).toBe(0);
    expect(json<{ accepted: number }>(result).accepted).toBe(2);
    expect(readSecrets(project.dir).shopify).toEqual([second, first]);
  });
});
