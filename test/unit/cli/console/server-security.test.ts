// The console's security rules against the real server on an ephemeral port: loopback only, the token on
// every page and API call, mutations as POSTs with the token in a header, a Host check against DNS
// rebinding, read-only mode, and no CORS. The backend is a stand-in that counts the mutations it runs, so
// a refused request is proven never to have reached one.
import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { groupDeadLetters } from '../../../../cli/console/console-operations';
import { newToken, sameToken } from '../../../../cli/console/security';
import { type ConsoleBackend, type RunningConsole, startConsoleServer } from '../../../../cli/console/server';
import { InvalidCursorError } from '../../../../lambdas/adapters/dynamo-inbox-listing';
import type { InboxRecord } from '../../../../lambdas/core/inbox';

const deadLetter: InboxRecord = {
  pk: 'mobazha#evt_1',
  provider: 'mobazha',
  dedupKey: 'evt_1',
  payloadSha256: 'ab'.repeat(32),
  status: 'dead-lettered',
  receivedAt: '2026-12-01T10:00:00.000Z',
  deadLetteredAt: '2026-12-01T10:00:01.000Z',
  attempts: 1,
  lastErrorCode: 'downstream_rejected',
  expiresAt: 2_000_000_000,
};

function fakeBackend(calls: string[]): ConsoleBackend {
  const mutation = (name: string) => async () => {
    calls.push(name);
    return 'done';
  };
  return {
    target: { description: 'a stand-in', kind: 'local', config: { destinations: {} } },
    config: { providers: { mobazha: {} } },
    dlqName: 'webhook-inbox-dlq',
    deliveries: {
      page: async (query: { cursor?: string }) => {
        if (query.cursor === 'tampered') throw new InvalidCursorError('not a cursor of this listing');
        return { records: [deadLetter] };
      },
      get: async () => deadLetter,
    },
    dlqCounts: async () => ({ visible: 1, inFlight: 0, delayed: 0 }),
    deadLetterGroups: async () => groupDeadLetters([deadLetter]),
    providers: async () => [],
    reveal: async () => Buffer.from('{"secret":"payload"}'),
    redrive: mutation('redrive'),
    purge: mutation('purge'),
    rotate: mutation('rotate'),
    replay: async () => {
      calls.push('replay');
      return { kind: 'replayed', messageId: 'm-1' };
    },
  } as unknown as ConsoleBackend;
}

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

function call(
  port: number,
  path: string,
  options: { method?: string; headers?: Record<string, string>; body?: string } = {},
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port,
        path,
        method: options.method ?? 'GET',
        headers: { host: `127.0.0.1:${port}`, ...options.headers },
      },
      (res) => {
        let body = '';
        res.setEncoding('utf8').on('data', (chunk: string) => {
          body += chunk;
        });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
      },
    );
    req.on('error', reject);
    req.end(options.body);
  });
}

const JSON_TYPE = { 'content-type': 'application/json' };

describe('the console server', () => {
  const token = newToken();
  const calls: string[] = [];
  let server: RunningConsole;
  let readOnly: RunningConsole;
  const readOnlyCalls: string[] = [];

  beforeAll(async () => {
    server = await startConsoleServer({ port: 0, readOnly: false, token, backend: fakeBackend(calls) });
    readOnly = await startConsoleServer({
      port: 0,
      readOnly: true,
      token,
      backend: fakeBackend(readOnlyCalls),
    });
  });
  afterAll(async () => {
    await server?.close();
    await readOnly?.close();
  });

  it('listens on 127.0.0.1 only, and prints a URL with a fresh random token', () => {
    expect(server.address).toBe('127.0.0.1');
    expect(server.url).toBe(`http://127.0.0.1:${server.port}/?token=${token}`);
    expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(newToken()).not.toBe(token);
  });

  it('compares tokens whole: a prefix, a longer text or another token does not pass', () => {
    expect(sameToken(token, token)).toBe(true);
    expect(sameToken(token, token.slice(0, -1))).toBe(false);
    expect(sameToken(token, `${token}x`)).toBe(false);
    expect(sameToken(token, newToken())).toBe(false);
    expect(sameToken(token, undefined)).toBe(false);
  });

  it('answers 401 with an empty body to every page, asset, API call and unknown path without the token', async () => {
    for (const path of [
      '/',
      '/deliveries',
      '/dead-letters',
      '/assets/console.js',
      '/api/payload?provider=mobazha&key=evt_1',
      '/api/jobs/x',
      '/nowhere',
    ]) {
      const answer = await call(server.port, path);
      expect(answer.status, path).toBe(401);
      expect(answer.body, path).toBe('');
    }
    const wrong = await call(server.port, `/deliveries?token=${newToken()}`);
    expect(wrong.status).toBe(401);
    const wrongCookie = await call(server.port, '/deliveries', {
      headers: { cookie: `webhook_inbox_console_${server.port}=${newToken()}` },
    });
    expect(wrongCookie.status).toBe(401);
    // Cookies are shared across ports: another console's cookie, even with this token, is not this one's.
    const otherConsole = await call(server.port, '/deliveries', {
      headers: { cookie: `webhook_inbox_console_${readOnly.port}=${token}` },
    });
    expect(otherConsole.status).toBe(401);
  });

  it('never redirects the token off to another host: a path that normalises to //host stays on this one', async () => {
    for (const path of ['/.//evil.example/x', '//evil.example/x', '/./\\evil.example/x']) {
      const first = await call(server.port, `${path}?token=${token}`);
      expect(first.status).toBe(303);
      const location = String(first.headers.location);
      expect(new URL(location, `http://127.0.0.1:${server.port}`).host).toBe(`127.0.0.1:${server.port}`);
    }
  });

  it('takes a page token from the URL once, answering with an HttpOnly SameSite=Strict cookie and a URL without it', async () => {
    const first = await call(server.port, `/deliveries?status=failed&token=${token}`);
    expect(first.status).toBe(303);
    expect(first.headers.location).toBe('/deliveries?status=failed');
    const cookie = String(first.headers['set-cookie']);
    expect(cookie).toContain(`webhook_inbox_console_${server.port}=${token}`);
    expect(cookie).toContain('HttpOnly');
    expect(cookie).toContain('SameSite=Strict');
    const page = await call(server.port, '/deliveries?status=failed', {
      headers: { cookie: `webhook_inbox_console_${server.port}=${token}` },
    });
    expect(page.status).toBe(200);
    expect(page.body).toContain('evt_1');
  });

  it('takes an API token from the header only: the cookie a browser attaches by itself is not enough', async () => {
    const path = '/api/payload?provider=mobazha&key=evt_1';
    const byCookie = await call(server.port, path, {
      headers: { cookie: `webhook_inbox_console_${server.port}=${token}` },
    });
    expect(byCookie.status).toBe(401);
    const byQuery = await call(server.port, `${path}&token=${token}`);
    expect(byQuery.status).toBe(401);
    const byHeader = await call(server.port, path, { headers: { 'x-console-token': token } });
    expect(byHeader.status).toBe(200);
    expect(JSON.parse(byHeader.body)).toMatchObject({ bytes: 20 });
  });

  it('answers a tampered cursor 400, as the CLI refuses it, not 500', async () => {
    const answer = await call(server.port, '/deliveries?cursor=tampered', {
      headers: { cookie: `webhook_inbox_console_${server.port}=${token}` },
    });
    expect(answer.status).toBe(400);
  });

  it('refuses another Host (DNS rebinding) even with the token, and accepts localhost', async () => {
    const rebound = await call(server.port, '/api/jobs/x', {
      headers: { host: `evil.example:${server.port}`, 'x-console-token': token },
    });
    expect(rebound.status).toBe(403);
    const otherPort = await call(server.port, '/api/jobs/x', {
      headers: { host: `127.0.0.1:${server.port + 1}`, 'x-console-token': token },
    });
    expect(otherPort.status).toBe(403);
    const local = await call(server.port, '/api/jobs/x', {
      headers: { host: `localhost:${server.port}`, 'x-console-token': token },
    });
    expect(local.status).toBe(404);
  });

  it('runs a mutation only for a JSON POST that carries the token in the header', async () => {
    const body = JSON.stringify({ scope: 'all' });
    const cookie = `webhook_inbox_console_${server.port}=${token}`;
    const refused = [
      await call(server.port, '/api/redrive', { headers: { 'x-console-token': token } }),
      await call(server.port, `/api/redrive?token=${token}`, { method: 'POST', headers: JSON_TYPE, body }),
      await call(server.port, '/api/redrive', { method: 'POST', headers: { ...JSON_TYPE, cookie }, body }),
      await call(server.port, '/api/redrive', {
        method: 'POST',
        headers: { 'content-type': 'text/plain', 'x-console-token': token },
        body,
      }),
    ];
    expect(refused.map((a) => a.status)).toEqual([405, 401, 401, 415]);
    expect(calls).toEqual([]);
    const accepted = await call(server.port, '/api/redrive', {
      method: 'POST',
      headers: { ...JSON_TYPE, 'x-console-token': token },
      body,
    });
    expect(accepted.status).toBe(202);
    expect(JSON.parse(accepted.body)).toMatchObject({ kind: 'redrive', state: expect.any(String) });
    expect(calls).toEqual(['redrive']);
  });

  it('in read-only mode refuses every mutation with 403 and renders no mutation control', async () => {
    for (const path of ['/api/redrive', '/api/replay', '/api/purge', '/api/rotate']) {
      const answer = await call(readOnly.port, path, {
        method: 'POST',
        headers: { ...JSON_TYPE, 'x-console-token': token },
        body: JSON.stringify({ scope: 'all', provider: 'mobazha', key: 'evt_1', confirm: 'purge' }),
      });
      expect(answer.status, path).toBe(403);
    }
    expect(readOnlyCalls).toEqual([]);
    const cookie = { cookie: `webhook_inbox_console_${readOnly.port}=${token}` };
    for (const path of ['/dead-letters', '/delivery?provider=mobazha&key=evt_1', '/providers']) {
      const page = await call(readOnly.port, path, { headers: cookie });
      expect(page.status, path).toBe(200);
      expect(page.body, path).not.toMatch(/data-action="(redrive|replay|purge|rotate)/);
    }
    const writable = await call(server.port, '/dead-letters', {
      headers: { cookie: `webhook_inbox_console_${server.port}=${token}` },
    });
    expect(writable.body).toMatch(/data-action="redrive-group"/);
    expect(writable.body).toMatch(/data-action="purge"/);
  });

  it('sends no CORS header, answers no preflight, and a strict CSP on every answer', async () => {
    const answers = [
      await call(server.port, '/api/redrive', {
        method: 'OPTIONS',
        headers: {
          origin: 'https://evil.example',
          'access-control-request-method': 'POST',
          'access-control-request-headers': 'x-console-token',
        },
      }),
      await call(server.port, '/deliveries'),
      await call(server.port, '/deliveries', {
        headers: { cookie: `webhook_inbox_console_${server.port}=${token}`, origin: 'https://evil.example' },
      }),
      await call(server.port, '/api/jobs/x', { headers: { 'x-console-token': token } }),
    ];
    expect(answers.map((a) => a.status)).toEqual([405, 401, 200, 404]);
    for (const answer of answers) {
      expect(Object.keys(answer.headers).filter((h) => h.startsWith('access-control-'))).toEqual([]);
      expect(answer.headers['content-security-policy']).toContain("default-src 'none'");
      expect(answer.headers['content-security-policy']).toContain("script-src 'self'");
      expect(answer.headers['content-security-policy']).toContain("frame-ancestors 'none'");
    }
  });
});
