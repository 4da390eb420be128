// How the command answers mistakes: one line on stderr, exit 2 for usage errors, exit 1 for runtime ones.
// None of these needs a running instance.
import { afterAll, describe, expect, it } from 'vitest';
import { CLI_TIMEOUT_MS, makeProject, oneLineError, runCli } from './helpers';

const project = makeProject();
afterAll(() => project.remove());

describe.concurrent('webhook-inbox usage', { timeout: CLI_TIMEOUT_MS }, () => {
  it('describes each subcommand with --help, target options included', async () => {
    const result = await runCli(project.dir, ['selftest', '--help']);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('Usage: webhook-inbox selftest');
    for (const option of [
      '--all',
      '--url <url>',
      '--stack <name>',
      '--region <region>',
      '--profile',
      '--json',
    ]) {
      expect(result.stdout).toContain(option);
    }
  });

  it('refuses an unknown provider with exit 2, naming the configured ones', async () => {
    const result = await runCli(project.dir, ['send', 'nope']);
    expect(result.code).toBe(2);
    const line = oneLineError(result);
    expect(line).toContain('unknown provider "nope"');
    expect(line).toContain('github');
  });

  it('refuses an unknown option with exit 2', async () => {
    const result = await runCli(project.dir, ['deliveries', 'list', '--bogus']);
    expect(result.code).toBe(2);
    expect(oneLineError(result)).toContain("unknown option '--bogus'");
  });

  it('refuses an unknown command with exit 2', async () => {
    const result = await runCli(project.dir, ['frobnicate']);
    expect(result.code).toBe(2);
    expect(oneLineError(result)).toContain("unknown command 'frobnicate'");
  });

  it('refuses a bad option value with exit 2', async () => {
    const result = await runCli(project.dir, ['deliveries', 'list', '--since', 'yesterday']);
    expect(result.code).toBe(2);
    expect(oneLineError(result)).toContain('--since');
  });

  it('refuses a --url that is not an http(s) URL with exit 2, before looking for an instance', async () => {
    for (const [command, url, ...rest] of [
      ['send', 'notaurl', '--secret', 's3cret'],
      ['send', 'ftp://example.com/hook', '--secret', 's3cret'],
      ['selftest', 'notaurl'],
    ] as const) {
      const result = await runCli(project.dir, [command, 'github', '--url', url, ...rest]);
      expect(`${command} ${url} ${result.code}`).toBe(`${command} ${url} 2`);
      expect(oneLineError(result)).toContain(`--url`);
    }
  });

  it('refuses a time window that ends before it starts with exit 2, for the listing and the replay', async () => {
    const [list, replay] = await Promise.all([
      runCli(project.dir, ['deliveries', 'list', '--since', '1h', '--until', '2h']),
      runCli(project.dir, ['deliveries', 'replay', '--since', '1h', '--until', '2h']),
    ]);
    for (const result of [list, replay]) {
      expect(result.code, result.stderr).toBe(2);
      expect(oneLineError(result)).toMatch(/--until is before --since/);
    }
  });

  it('refuses to purge the DLQ without --yes, with exit 2', async () => {
    const result = await runCli(project.dir, ['dlq', 'purge']);
    expect(result.code).toBe(2);
    expect(oneLineError(result)).toContain('--yes');
  });

  it('fails with exit 1 and a hint when no local instance is running', async () => {
    const result = await runCli(project.dir, ['deliveries', 'list']);
    expect(result.code).toBe(1);
    const line = oneLineError(result);
    expect(line).toContain('no local instance is running');
    expect(line).toContain('npm start');
  });
});
