// `npm start -- --forward-to <url>` as a user runs it: a child process in a project directory of its own,
// a delivery signed by the standardwebhooks library, and the local service receiving it forwarded and
// verifiable with the secret the CLI prints.
import { type ChildProcess, spawn } from 'node:child_process';
import { copyFileSync, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { stripVTControlCharacters } from 'node:util';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LocalState } from '../../../local/state-file';
import { type DestinationServer, startDestinationServer } from '../../support/destination-server';
import { verifiesWith } from '../../support/forwarding';
import { json, runCli } from '../cli/helpers';

const REPO = resolve(import.meta.dirname, '../../..');
const project = mkdtempSync(join(tmpdir(), 'webhook-inbox-forward-to-'));
let child: ChildProcess;
let output = '';
let server: DestinationServer;
let state: LocalState;

async function waitFor<T>(
  what: string,
  probe: () => T | undefined | Promise<T | undefined>,
  timeoutMs = 60_000,
) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}; output so far:\n${output}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

beforeAll(async () => {
  server = await startDestinationServer();
  copyFileSync(join(REPO, 'cdk.json'), join(project, 'cdk.json'));
  child = spawn(
    'npm',
    ['--prefix', REPO, 'start', '--silent', '--', '--port', '0', '--forward-to', server.url('/webhooks')],
    { cwd: project, env: { ...process.env, FORCE_COLOR: '0' }, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  child.stdout?.on('data', (chunk) => (output += chunk));
  child.stderr?.on('data', (chunk) => (output += chunk));
  const file = join(project, '.webhook-inbox', 'local.json');
  state = await waitFor('local.json', () =>
    existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as LocalState) : undefined,
  );
}, 90_000);

afterAll(async () => {
  if (state && child.exitCode === null) {
    try {
      process.kill(state.pid, 'SIGINT');
    } catch {}
  }
  if (child && child.exitCode === null) await new Promise((r) => child.once('exit', r));
  await server?.close();
  rmSync(project, { recursive: true, force: true });
}, 60_000);

describe('npm start -- --forward-to', () => {
  it('names the destination in the banner, forwards a signed delivery to the service, and the printed secret verifies it', async () => {
    // local.json is written as the instance comes up, a moment before the banner is printed.
    await waitFor('the banner', () =>
      stripVTControlCharacters(output).includes('forward-to-1') ? true : undefined,
    );
    expect(stripVTControlCharacters(output)).toContain(
      `forward-to-1       http        ${server.url('/webhooks')}`,
    );
    const secrets = JSON.parse(readFileSync(join(project, '.webhook-inbox', 'secrets.json'), 'utf8'));
    const hook = new Webhook(secrets['standard-webhooks'][0]);
    const body = JSON.stringify({
      type: 'user.created',
      timestamp: new Date().toISOString(),
      data: { id: 'u_7' },
    });
    const now = new Date();
    const answer = await fetch(`${state.gatewayUrl}/webhooks/standard-webhooks`, {
      method: 'POST',
      body,
      headers: {
        'content-type': 'application/json',
        'webhook-id': 'msg_forward_e2e',
        'webhook-timestamp': String(Math.floor(now.getTime() / 1000)),
        'webhook-signature': hook.sign('msg_forward_e2e', now, body),
      },
    });
    expect(answer.status).toBe(202);
    const request = await waitFor('the forwarded request', () => server.received[0]);
    expect(request.body.toString()).toBe(body);
    const shown = json<{ secret: string }>(
      await runCli(project, ['destinations', 'show', 'forward-to-1', '--reveal', '--json']),
    );
    expect(() => verifiesWith(shown.secret, request)).not.toThrow();
    await waitFor('the forward line', () =>
      /forward delivered 204 -> forward-to-1 standard-webhooks key=msg_forward_e2e attempt=1/.test(
        stripVTControlCharacters(output),
      )
        ? true
        : undefined,
    );
  });
});
