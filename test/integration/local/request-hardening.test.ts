// Local mode against what an adversarial probe sent it over real HTTP: a Square signature made for another
// URL with a matching Host header, metadata headers that are huge, repeated or carry terminal controls,
// a handler logging sender-written text, and a project folder whose secrets others can read.
import { createHmac, randomUUID } from 'node:crypto';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseConfig } from '../../../config';
import { SCHEMES } from '../../../lambdas/core/schemes';
import { consoleLogger } from '../../../local/console-log';
import { type LocalInbox, startLocalInbox } from '../../../local/local-inbox';
import { readSecretsFile, STATE_DIR, secretsFilePath } from '../../../local/secrets-file';

const config = parseConfig({
  providers: { github: { scheme: 'github' }, square: { scheme: 'square' } },
  queue: { retrySchedule: ['30s'] },
});
const quiet = { info: () => undefined, warn: () => undefined, error: () => undefined };

const dirs: string[] = [];
const project = (prefix: string) => {
  const dir = mkdtempSync(join(tmpdir(), `webhook-inbox-${prefix}-`));
  dirs.push(dir);
  return dir;
};
afterAll(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

interface Answer {
  status: number;
  body: string;
}

/** A POST with exactly these header lines (a repeated name is sent as several lines). */
function post(url: string, body: Buffer, headers: Record<string, string | string[]>): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const request = httpRequest(url, { method: 'POST', agent: false, signal: AbortSignal.timeout(30_000) });
    for (const [name, value] of Object.entries(headers)) request.setHeader(name, value);
    request.on('response', (response) => {
      let text = '';
      response.setEncoding('utf8').on('data', (chunk: string) => (text += chunk));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, body: text }));
    });
    request.on('error', reject);
    request.end(body);
  });
}

const modeOf = (path: string) => statSync(path).mode & 0o777;

describe('a running local instance', () => {
  let inbox: LocalInbox;
  let cwd: string;
  const lines: string[] = [];
  const secret = (provider: string) => readSecretsFile(secretsFilePath(cwd))[provider]![0]!;
  const url = (provider: string) => `${inbox.state.gatewayUrl}/webhooks/${provider}`;

  beforeAll(async () => {
    cwd = project('hardening');
    inbox = await startLocalInbox({
      config,
      cwd,
      port: 0,
      logs: consoleLogger((line) => lines.push(line)),
    });
  }, 60_000);
  afterAll(() => inbox?.stop(), 60_000);

  describe('Square signs the URL: local mode uses its own address, never the Host header', () => {
    const square = (signedFor: string, host: string) => {
      const body = Buffer.from(
        JSON.stringify({ merchant_id: 'MLX', event_id: randomUUID(), type: 'payment.updated' }),
      );
      const signature = createHmac('sha256', secret('square'))
        .update(signedFor)
        .update(body)
        .digest('base64');
      return post(url('square'), body, {
        'content-type': 'application/json',
        'x-square-hmacsha256-signature': signature,
        host,
      });
    };

    it.each(['http://evil.example/webhooks/square', 'https://evil.example/webhooks/square'])(
      'refuses a signature made for %s, sent with Host: evil.example, 401 bad_signature',
      async (signedFor) => {
        expect(await square(signedFor, 'evil.example')).toEqual({
          status: 401,
          body: JSON.stringify({ error: 'bad_signature' }),
        });
      },
    );

    it("accepts the signature made for the instance's own URL, whatever Host says", async () => {
      // The URL `webhook-inbox send` signs for this instance: https, its own host, no port
      // (cli/operations/signed-delivery.ts).
      const own = `https://${new URL(inbox.state.gatewayUrl).hostname}/webhooks/square`;
      expect(own).toBe('https://127.0.0.1/webhooks/square');
      expect((await square(own, 'evil.example')).status).toBe(202);
      expect((await square(own, new URL(inbox.state.gatewayUrl).host)).status).toBe(202);
    });
  });

  describe('X-GitHub-Event, unsigned metadata', () => {
    const github = (
      headers: Record<string, string | string[]>,
      body = Buffer.from(JSON.stringify({ zen: randomUUID() })),
    ) =>
      post(url('github'), body, {
        'content-type': 'application/json',
        'x-hub-signature-256': `sha256=${createHmac('sha256', secret('github')).update(body).digest('hex')}`,
        'x-github-delivery': randomUUID(),
        ...headers,
      });

    it.each([
      { name: '8,000 characters', value: 'x'.repeat(8000) },
      { name: 'the byte 0x9B (C1 CSI) and a screen clear', value: 'ping\u009b2J' },
      { name: 'a comma-joined pair', value: 'ping, push' },
    ])('refuses $name 400 bad_event_type and prints the reason only', async ({ value }) => {
      const before = lines.length;
      expect(await github({ 'x-github-event': value })).toEqual({
        status: 400,
        body: JSON.stringify({ error: 'bad_event_type' }),
      });
      const printed = lines.slice(before).join('\n');
      expect(printed).toContain('rejected bad_event_type');
      expect(printed).not.toContain(value);
      expect(printed).not.toMatch(/\u009b/);
      expect(printed.length).toBeLessThan(400);
    });

    it('refuses two X-GitHub-Event lines 401 repeated_header', async () => {
      expect(await github({ 'x-github-event': ['ping', 'push'] })).toEqual({
        status: 401,
        body: JSON.stringify({ error: 'repeated_header' }),
      });
    });

    it('accepts one, printing the type (the control)', async () => {
      const before = lines.length;
      expect((await github({ 'x-github-event': 'ping' })).status).toBe(202);
      expect(lines.slice(before).join('\n')).toContain('type=ping');
    });

    it("prints a handler's line with the sender's terminal controls escaped", async () => {
      // A pull request's action is sender text the shipped handler logs (it logs ids and types only, and
      // the action is the event's subtype); anyone who can send a signed body chooses it.
      const action = 'Fix\u009b2J\u001b]0;owned\u0007\u001b[31m red \u202egnp.exe\u2028next';
      const body = Buffer.from(
        JSON.stringify({
          action,
          number: 7,
          pull_request: { title: 'a title', state: 'open', merged: false },
          repository: { full_name: 'octo/repo' },
        }),
      );
      expect((await github({ 'x-github-event': 'pull_request' }, body)).status).toBe(202);
      const deadline = Date.now() + 30_000;
      const printed = () => lines.find((l) => l.includes('github pull_request') && l.includes('#7'));
      while (!printed() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
      const line = printed();
      expect(line).toBeDefined();
      // Only picocolors' own colour codes may remain (they are absent when colour is off).
      // biome-ignore lint/suspicious/noControlCharactersInRegex: picocolors' SGR codes start with ESC.
      const bare = line!.replace(/\u001b\[\d+m/g, '');
      // biome-ignore lint/suspicious/noControlCharactersInRegex: finding them is the point.
      expect(bare).not.toMatch(/[\u0000-\u001f\u007f-\u009f\u202e\u2028]/);
      expect(bare).toContain(
        'Fix\\u009b2J\\u001b]0;owned\\u0007\\u001b[31m red \\u202egnp.exe\\u2028next: #7',
      );
    }, 40_000);
  });
});

describe('the project folder holding the secrets', () => {
  it('tightens an existing .webhook-inbox (0755) and secrets.json (0644) to 0700 and 0600 at startup, says so, and keeps the secrets', async () => {
    const cwd = project('loose');
    const dir = join(cwd, STATE_DIR);
    const file = secretsFilePath(cwd);
    mkdirSync(dir);
    const secrets = Object.fromEntries(
      Object.values(config.providers).map((p) => [p.id, [SCHEMES[p.scheme].generateSecret()]]),
    );
    writeFileSync(file, JSON.stringify(secrets));
    chmodSync(dir, 0o755);
    chmodSync(file, 0o644);

    const inbox = await startLocalInbox({ config, cwd, port: 0, logs: { verify: quiet, process: quiet } });
    try {
      expect([modeOf(dir), modeOf(file)]).toEqual([0o700, 0o600]);
      expect(inbox.tightened).toEqual([
        { path: dir, from: 0o755, to: 0o700 },
        { path: file, from: 0o644, to: 0o600 },
      ]);
      expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual(secrets);
    } finally {
      await inbox.stop();
    }
  }, 60_000);

  it('creates them owner-only in a new project, and reports nothing to tighten', async () => {
    const cwd = project('fresh');
    const inbox = await startLocalInbox({ config, cwd, port: 0, logs: { verify: quiet, process: quiet } });
    try {
      expect([modeOf(join(cwd, STATE_DIR)), modeOf(secretsFilePath(cwd))]).toEqual([0o700, 0o600]);
      expect(inbox.tightened).toEqual([]);
    } finally {
      await inbox.stop();
    }
  }, 60_000);
});
