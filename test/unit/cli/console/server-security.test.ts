// The console's security rules against the real server on an ephemeral port: loopback only, the token on
// every page and API call, mutations as POSTs with the token in a header, a Host check against DNS
// rebinding, read-only mode, and no CORS. The backend is a stand-in that counts the mutations it runs, so
// a refused request is proven never to have reached one.
import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newToken, sameToken } from '../../../../cli/console/security';
import { type RunningConsole, startConsoleServer } from '../../../../cli/console/server';
import { fakeBackend } from '../../../support/console-backend';

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

  it('listens on 127.0.0.1 only, and prints a URL under a random base path with a fresh random token', () => {
    expect(server.address).toBe('127.0.0.1');
    expect(server.basePath).toMatch(/^\/c\/[A-Za-z0-9_-]{22}\/$/);
    expect(readOnly.basePath).not.toBe(server.basePath);
    expect(server.url).toBe(`http://127.0.0.1:${server.port}${server.basePath}?token=${token}`);
    expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(newToken()).not.toBe(token);
  });

  it('answers nothing outside its base path: 404 with an empty body, even with the token', async () => {
    const cookie = `webhook_inbox_console_${server.port}=${token}`;
    for (const path of [
      '/',
      `/?token=${token}`,
      '/deliveries',
      `/deliveries?token=${token}`,
      '/assets/console.js',
      '/c/',
      `${readOnly.basePath}deliveries`,
      `${server.basePath.slice(0, -2)}/deliveries`,
    ]) {
      const answer = await call(server.port, path, { headers: { cookie, 'x-console-token': token } });
      expect(answer.status, path).toBe(404);
      expect(answer.body, path).toBe('');
      expect(answer.headers['set-cookie'], path).toBeUndefined();
    }
    const mutation = await call(server.port, '/api/redrive', {
      method: 'POST',
      headers: { ...JSON_TYPE, 'x-console-token': token },
      body: JSON.stringify({ scope: 'all' }),
    });
    expect(mutation.status).toBe(404);
    expect(calls).toEqual([]);
  });

  it('links every page, form, asset and API call relative to the base path', async () => {
    const cookie = { cookie: `webhook_inbox_console_${server.port}=${token}` };
    for (const path of ['deliveries', 'dead-letters', 'providers', 'delivery?provider=mobazha&key=evt_1']) {
      const page = await call(server.port, `${server.basePath}${path}`, { headers: cookie });
      expect(page.status, path).toBe(200);
      expect(page.body, path).toMatch(/href="assets\/console\.css"/);
      // An absolute path would leave the base path, where nothing answers.
      expect(page.body, path).not.toMatch(/(href|src|action)="\//);
    }
    const script = await call(server.port, `${server.basePath}assets/console.js`, { headers: cookie });
    expect(script.status).toBe(200);
    expect(script.body).toContain("'api/");
    expect(script.body).not.toMatch(/['"`]\/api\//);
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
      '',
      'deliveries',
      'dead-letters',
      'assets/console.js',
      'api/payload?provider=mobazha&key=evt_1',
      'api/jobs/x',
      'nowhere',
    ]) {
      const answer = await call(server.port, `${server.basePath}${path}`);
      expect(answer.status, path).toBe(401);
      expect(answer.body, path).toBe('');
    }
    const wrong = await call(server.port, `${server.basePath}deliveries?token=${newToken()}`);
    expect(wrong.status).toBe(401);
    const wrongCookie = await call(server.port, `${server.basePath}deliveries`, {
      headers: { cookie: `webhook_inbox_console_${server.port}=${newToken()}` },
    });
    expect(wrongCookie.status).toBe(401);
    // Cookies are shared across ports: another console's cookie, even with this token, is not this one's.
    const otherConsole = await call(server.port, `${server.basePath}deliveries`, {
      headers: { cookie: `webhook_inbox_console_${readOnly.port}=${token}` },
    });
    expect(otherConsole.status).toBe(401);
  });

  it('never redirects the token off to another host: a path that normalises to //host stays on this one', async () => {
    const base = server.basePath;
    for (const path of [`${base}.//evil.example/x`, `${base}/evil.example/x`, `${base}./\\evil.example/x`]) {
      const first = await call(server.port, `${path}?token=${token}`);
      expect(first.status, path).toBe(303);
      const location = new URL(String(first.headers.location), `http://127.0.0.1:${server.port}`);
      expect(location.host, path).toBe(`127.0.0.1:${server.port}`);
      expect(location.pathname.startsWith(base), path).toBe(true);
    }
    for (const path of ['/.//evil.example/x', '//evil.example/x', '/./\\evil.example/x']) {
      const outside = await call(server.port, `${path}?token=${token}`);
      expect(outside.status, path).toBe(404);
      expect(outside.headers.location, path).toBeUndefined();
    }
  });

  it('takes a page token from the URL once, answering with an HttpOnly SameSite=Strict cookie and a URL without it', async () => {
    const first = await call(server.port, `${server.basePath}deliveries?status=failed&token=${token}`);
    expect(first.status).toBe(303);
    expect(first.headers.location).toBe(`${server.basePath}deliveries?status=failed`);
    const cookie = String(first.headers['set-cookie']);
    expect(cookie).toContain(`webhook_inbox_console_${server.port}=${token}`);
    expect(cookie).toContain('HttpOnly');
    expect(cookie).toContain('SameSite=Strict');
    // Scoped to this launch's base path: other servers on 127.0.0.1 are sent it only under that path.
    expect(cookie).toContain(`Path=${server.basePath}`);
    expect(cookie).not.toMatch(/Path=\/(;|$)/);
    const root = await call(server.port, `${server.basePath}?token=${token}`);
    expect(root.status).toBe(303);
    expect(root.headers.location).toBe(server.basePath);
    // The base without its trailing slash is the base: the cookie's path is then set with the slash.
    const bare = await call(server.port, `${server.basePath.slice(0, -1)}?token=${token}`);
    expect(bare.status).toBe(303);
    expect(bare.headers.location).toBe(server.basePath);
    const home = await call(server.port, server.basePath, {
      headers: { cookie: `webhook_inbox_console_${server.port}=${token}` },
    });
    expect(home.headers.location).toBe(`${server.basePath}deliveries`);
    const page = await call(server.port, `${server.basePath}deliveries?status=failed`, {
      headers: { cookie: `webhook_inbox_console_${server.port}=${token}` },
    });
    expect(page.status).toBe(200);
    expect(page.body).toContain('evt_1');
  });

  it('takes an API token from the header only: the cookie a browser attaches by itself is not enough', async () => {
    const path = `${server.basePath}api/payload?provider=mobazha&key=evt_1`;
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
    const answer = await call(server.port, `${server.basePath}deliveries?cursor=tampered`, {
      headers: { cookie: `webhook_inbox_console_${server.port}=${token}` },
    });
    expect(answer.status).toBe(400);
  });

  it('refuses another Host (DNS rebinding) even with the token, and accepts localhost', async () => {
    const rebound = await call(server.port, `${server.basePath}api/jobs/x`, {
      headers: { host: `evil.example:${server.port}`, 'x-console-token': token },
    });
    expect(rebound.status).toBe(403);
    const otherPort = await call(server.port, `${server.basePath}api/jobs/x`, {
      headers: { host: `127.0.0.1:${server.port + 1}`, 'x-console-token': token },
    });
    expect(otherPort.status).toBe(403);
    const local = await call(server.port, `${server.basePath}api/jobs/x`, {
      headers: { host: `localhost:${server.port}`, 'x-console-token': token },
    });
    expect(local.status).toBe(404);
  });

  it('runs a mutation only for a JSON POST that carries the token in the header', async () => {
    const body = JSON.stringify({ scope: 'all' });
    const cookie = `webhook_inbox_console_${server.port}=${token}`;
    const refused = [
      await call(server.port, `${server.basePath}api/redrive`, { headers: { 'x-console-token': token } }),
      await call(server.port, `${server.basePath}api/redrive?token=${token}`, {
        method: 'POST',
        headers: JSON_TYPE,
        body,
      }),
      await call(server.port, `${server.basePath}api/redrive`, {
        method: 'POST',
        headers: { ...JSON_TYPE, cookie },
        body,
      }),
      await call(server.port, `${server.basePath}api/redrive`, {
        method: 'POST',
        headers: { 'content-type': 'text/plain', 'x-console-token': token },
        body,
      }),
    ];
    expect(refused.map((a) => a.status)).toEqual([405, 401, 401, 415]);
    expect(calls).toEqual([]);
    const accepted = await call(server.port, `${server.basePath}api/redrive`, {
      method: 'POST',
      headers: { ...JSON_TYPE, 'x-console-token': token },
      body,
    });
    expect(accepted.status).toBe(202);
    expect(JSON.parse(accepted.body)).toMatchObject({ kind: 'redrive', state: expect.any(String) });
    expect(calls).toEqual(['redrive']);
  });

  it('in read-only mode refuses every mutation with 403 and renders no mutation control', async () => {
    for (const path of ['api/redrive', 'api/replay', 'api/purge', 'api/rotate']) {
      const answer = await call(readOnly.port, `${readOnly.basePath}${path}`, {
        method: 'POST',
        headers: { ...JSON_TYPE, 'x-console-token': token },
        body: JSON.stringify({ scope: 'all', provider: 'mobazha', key: 'evt_1', confirm: 'purge' }),
      });
      expect(answer.status, path).toBe(403);
    }
    expect(readOnlyCalls).toEqual([]);
    const cookie = { cookie: `webhook_inbox_console_${readOnly.port}=${token}` };
    for (const path of ['dead-letters', 'delivery?provider=mobazha&key=evt_1', 'providers']) {
      const page = await call(readOnly.port, `${readOnly.basePath}${path}`, { headers: cookie });
      expect(page.status, path).toBe(200);
      expect(page.body, path).not.toMatch(/data-action="(redrive|replay|purge|rotate)/);
    }
    const writable = await call(server.port, `${server.basePath}dead-letters`, {
      headers: { cookie: `webhook_inbox_console_${server.port}=${token}` },
    });
    expect(writable.body).toMatch(/data-action="redrive-group"/);
    expect(writable.body).toMatch(/data-action="purge"/);
  });

  it('sends no CORS header, answers no preflight, and a strict CSP on every answer', async () => {
    const answers = [
      await call(server.port, `${server.basePath}api/redrive`, {
        method: 'OPTIONS',
        headers: {
          origin: 'https://evil.example',
          'access-control-request-method': 'POST',
          'access-control-request-headers': 'x-console-token',
        },
      }),
      await call(server.port, `${server.basePath}deliveries`),
      await call(server.port, `${server.basePath}deliveries`, {
        headers: { cookie: `webhook_inbox_console_${server.port}=${token}`, origin: 'https://evil.example' },
      }),
      await call(server.port, `${server.basePath}api/jobs/x`, { headers: { 'x-console-token': token } }),
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
