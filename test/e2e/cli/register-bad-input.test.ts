// `endpoints register` with input a new user gets wrong: an unknown provider is named as unknown first,
// and a loopback host in another spelling is still refused as loopback.
import { afterAll, describe, expect, it } from 'vitest';
import { CLI_TIMEOUT_MS, makeProject, oneLineError } from './helpers';
import { runCliWith } from './run-with-input';

const project = makeProject();
afterAll(() => project.remove());

describe('endpoints register: bad input', { timeout: CLI_TIMEOUT_MS * 3 }, () => {
  it('names an unknown provider as unknown, not as one whose servers cannot reach loopback', async () => {
    const result = await runCliWith(project.dir, ['endpoints', 'register', 'nosuch']);
    expect(result.code).toBe(2);
    expect(oneLineError(result)).toMatch(/unknown provider "nosuch"/);
  });

  it.each([
    'https://localhost./webhooks/github',
    'https://[::ffff:127.0.0.1]/webhooks/github',
    'https://app.localhost/webhooks/github',
  ])('refuses the loopback --url %s before asking for a credential', async (url) => {
    const result = await runCliWith(
      project.dir,
      ['endpoints', 'register', 'github', '--repo', 'a/b', '--url', url],
      {
        env: { GITHUB_TOKEN: 'ghp_x' },
      },
    );
    expect(result.code).toBe(2);
    expect(oneLineError(result)).toMatch(/loopback/);
  });
});
