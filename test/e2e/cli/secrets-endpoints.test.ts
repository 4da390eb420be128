// Secret rotation through the real command line against a running local instance: after a rotation the
// previous secret still verifies, and after a second one the secret before it is refused. Then `endpoints`.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LocalInbox } from '../../../local/local-inbox';
import { CLI_TIMEOUT_MS, json, makeProject, readSecrets, runCli, startInstance } from './helpers';

const project = makeProject();
let inbox: LocalInbox;

beforeAll(async () => {
  inbox = await startInstance(project.dir);
}, 120_000);

afterAll(async () => {
  await inbox?.stop();
  project.remove();
}, 60_000);

describe('webhook-inbox secrets without a running instance', { timeout: CLI_TIMEOUT_MS * 3 }, () => {
  const idle = makeProject();
  afterAll(() => idle.remove());

  it('rotates and shows the local secrets file, which need not exist yet', async () => {
    const none = await runCli(idle.dir, ['secrets', 'show', 'stripe', '--json']);
    expect(none.code, none.stderr).toBe(0);
    expect(json<{ secrets: unknown[] }>(none).secrets).toEqual([]);

    const value = 'whsec_stored_before_the_first_start_0001';
    const first = await runCli(idle.dir, ['secrets', 'rotate', 'stripe', '--value', value]);
    expect(first.code, first.stderr).toBe(0);
    expect(readSecrets(idle.dir).stripe).toEqual([value]);
    const second = await runCli(idle.dir, ['secrets', 'rotate', 'stripe']);
    expect(second.code, second.stderr).toBe(0);
    const [current, previous] = readSecrets(idle.dir).stripe as string[];
    expect(previous).toBe(value);

    const shown = await runCli(idle.dir, ['secrets', 'show', 'stripe', '--reveal', '--json']);
    expect(shown.code, shown.stderr).toBe(0);
    expect(json<{ secrets: { label: string; secret: string }[] }>(shown).secrets).toEqual([
      { label: 'current', secret: current },
      { label: 'previous', secret: value },
    ]);
  });
});

describe('webhook-inbox secrets', { timeout: CLI_TIMEOUT_MS * 3 }, () => {
  it('rotates keeping exactly one previous secret', async () => {
    const original = readSecrets(project.dir).github?.[0] as string;
    expect(original).toEqual(expect.any(String));

    const first = await runCli(project.dir, ['secrets', 'rotate', 'github', '--json']);
    expect(first.code, first.stderr).toBe(0);
    const rotated = json<{
      provider: string;
      revealed: boolean;
      secrets: { label: string; secret: string }[];
      next: string;
    }>(first);
    expect(rotated.provider).toBe('github');
    // The names `secrets show --json` uses: one list, `secrets`, each masked unless revealed.
    expect(rotated.revealed).toBe(false);
    expect(rotated.secrets.map((v) => v.label)).toEqual(['current', 'previous']);
    expect(rotated.secrets.every((v) => v.secret.includes('********'))).toBe(true);
    expect(first.stdout).not.toContain(original);
    const afterFirst = readSecrets(project.dir).github as string[];
    expect(afterFirst).toHaveLength(2);
    expect(afterFirst[1]).toBe(original);
    expect(afterFirst[0]).not.toBe(original);

    // A provider that has not switched yet still signs with the previous secret: accepted.
    const previous = await runCli(project.dir, ['send', 'github', '--secret', original, '--json']);
    expect(previous.code, previous.stderr).toBe(0);
    expect(json<{ status: number }>(previous).status).toBe(202);

    const second = await runCli(project.dir, ['secrets', 'rotate', 'github']);
    expect(second.code, second.stderr).toBe(0);
    expect(second.stdout).toContain('rotated the github secret');
    expect(second.stdout).toContain('next:');
    expect(second.stdout).toContain('Settings → Webhooks');
    const afterSecond = readSecrets(project.dir).github as string[];
    expect(afterSecond).toEqual([expect.any(String), afterFirst[0]]);

    // Two rotations later the original secret is older than the previous one: refused.
    const stale = await runCli(project.dir, ['send', 'github', '--secret', original]);
    expect(stale.code).toBe(1);
    expect(stale.stdout).toContain('401');
    expect(stale.stdout).toContain('bad_signature');
  });

  it('takes a Standard Webhooks secret without base64 padding, and verifies with it', async () => {
    // 32 key bytes: 43 base64 characters, one `=` short of padded, as some senders print it.
    const unpadded = `whsec_${Buffer.alloc(32, 0x5a).toString('base64').replace(/=+$/, '')}`;
    const rotate = await runCli(project.dir, ['secrets', 'rotate', 'standard-webhooks', '--value', unpadded]);
    expect(rotate.code, rotate.stderr + rotate.stdout).toBe(0);
    expect(readSecrets(project.dir)['standard-webhooks']?.[0]).toBe(unpadded);

    const sent = await runCli(project.dir, ['send', 'standard-webhooks', '--json']);
    expect(sent.code, sent.stderr).toBe(0);
    expect(json<{ status: number; localCheck: string }>(sent)).toMatchObject({
      status: 202,
      localCheck: 'valid',
    });
  });

  it('does not promise a previous secret when the value stored is already the current one', async () => {
    const value = 'partner-secret-stored-twice';
    expect((await runCli(project.dir, ['secrets', 'rotate', 'mobazha', '--value', value])).code).toBe(0);
    const again = await runCli(project.dir, ['secrets', 'rotate', 'mobazha', '--value', value]);
    expect(again.code, again.stderr).toBe(0);
    expect(readSecrets(project.dir).mobazha).toEqual([value]);
    expect(again.stdout).toContain('this secret only');
    expect(again.stdout).not.toContain('and the previous one');
  });

  it('shows secrets masked unless --reveal', async () => {
    const [current, previous] = readSecrets(project.dir).github as string[];
    const [masked, revealed] = await Promise.all([
      runCli(project.dir, ['secrets', 'show', 'github']),
      runCli(project.dir, ['secrets', 'show', 'github', '--reveal', '--json']),
    ]);
    expect(masked.code, masked.stderr).toBe(0);
    expect(masked.stdout).toContain('current');
    expect(masked.stdout).toContain('--reveal');
    expect(masked.stdout).not.toContain(current as string);
    expect(masked.stdout).toContain((current as string).slice(-4));
    const maskedJson = await runCli(project.dir, ['secrets', 'show', 'github', '--json']);
    expect(json(maskedJson)).toMatchObject({
      revealed: false,
      secrets: [
        { label: 'current', secret: expect.stringContaining('********') },
        { label: 'previous', secret: expect.stringContaining('********') },
      ],
    });
    expect(maskedJson.stdout).not.toContain(current as string);
    const shown = json<{ revealed: boolean; secrets: { label: string; secret: string }[] }>(revealed);
    expect(shown.revealed).toBe(true);
    expect(shown.secrets).toEqual([
      { label: 'current', secret: current },
      { label: 'previous', secret: previous },
    ]);
  });
});

describe('webhook-inbox endpoints', { timeout: CLI_TIMEOUT_MS * 2 }, () => {
  it('lists the URL, where to paste it and the secret for every provider', async () => {
    const [human, machine] = await Promise.all([
      runCli(project.dir, ['endpoints']),
      runCli(project.dir, ['endpoints', '--json']),
    ]);
    expect(human.code, human.stderr).toBe(0);
    const base = inbox.state.gatewayUrl;
    for (const text of [
      `${base}/webhooks/github`,
      `${base}/webhooks/square`,
      'Settings → Webhooks',
      'secrets show github --reveal',
    ]) {
      expect(human.stdout).toContain(text);
    }
    const endpoints = json<{ provider: string; url: string; where: string; secretHint: string }[]>(machine);
    expect(endpoints).toHaveLength(11);
    for (const endpoint of endpoints) {
      expect(endpoint.url).toBe(`${base}/webhooks/${endpoint.provider}`);
      expect(endpoint.where.length).toBeGreaterThan(10);
      // What to do about the secret, under a name no other output uses for a secret itself.
      expect(endpoint).not.toHaveProperty('secret');
      expect(endpoint.secretHint).toContain(endpoint.provider);
    }
    expect(endpoints.find((e) => e.provider === 'stripe')?.secretHint).toContain('--value');
  });
});
