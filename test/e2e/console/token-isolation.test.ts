import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newToken } from '../../../cli/console/security';
import { type RunningConsole, startConsoleServer } from '../../../cli/console/server';
import { launchChromium } from '../../support/chromium';
import { fakeBackend } from '../../support/console-backend';

const token = newToken();
const calls: string[] = [];
const reveals: string[] = [];
let consoleServer: RunningConsole;
let browser: Browser;

/** Another local service the operator's browser visits: it keeps what each request carried. */
const seen: { path: string; cookie: string | undefined }[] = [];
let neighbour: Server;
let neighbourOrigin: string;

beforeAll(async () => {
  consoleServer = await startConsoleServer({
    port: 0,
    readOnly: false,
    token,
    backend: fakeBackend(calls, reveals),
  });
  neighbour = createServer((request, response) => {
    seen.push({ path: request.url ?? '', cookie: request.headers.cookie });
    response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    response.end('<!doctype html><title>neighbour</title><p>another local service</p>');
  });
  await new Promise<void>((resolve) => neighbour.listen(0, '127.0.0.1', resolve));
  neighbourOrigin = `http://127.0.0.1:${(neighbour.address() as AddressInfo).port}`;
  browser = await launchChromium();
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await consoleServer?.close();
  await new Promise((resolve) => neighbour?.close(resolve));
});

describe('the console token and other local servers', { timeout: 60_000 }, () => {
  it('sends the console cookie to no other port, on any path but the unguessable base', async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    await page.goto(consoleServer.url);
    // The printed URL works pasted as it is, and the 303 took the token out of the address bar.
    const landing = page.url();
    expect(landing).not.toContain('token=');
    expect(await page.locator('h1').textContent()).toBe('Deliveries');
    const [cookie, ...others] = await context.cookies();
    expect(others).toEqual([]);
    expect(cookie).toMatchObject({
      name: `webhook_inbox_console_${consoleServer.port}`,
      httpOnly: true,
      sameSite: 'Strict',
    });

    const paths = ['/', '/deliveries', '/dead-letters', '/api/jobs/x', '/assets/console.js', '/c/', '/x/y'];
    for (const path of paths) await page.goto(`${neighbourOrigin}${path}`);
    // A link from the console itself: the neighbour is reached from a console page.
    await page.goto(landing);
    // (A string: the tests are type-checked without the DOM's types.)
    await page.evaluate(
      `(() => { const link = document.createElement('a'); link.href = ${JSON.stringify(`${neighbourOrigin}/from-console`)}; document.body.append(link); link.click(); })()`,
    );
    await page.waitForURL(`${neighbourOrigin}/from-console`);

    expect(seen.map((s) => s.path)).toEqual(expect.arrayContaining([...paths, '/from-console']));
    expect(seen.length).toBeGreaterThan(paths.length);
    for (const request of seen) {
      expect(request.cookie ?? '', request.path).not.toContain(token);
      expect(request.cookie ?? '', request.path).not.toContain('webhook_inbox_console');
    }
    // The console still answers in the same browser.
    await page.goto(new URL('dead-letters', landing).href);
    expect(await page.locator('h1').textContent()).toBe('Dead letters');
    await context.close();
  });

  it("refuses the API to another server's page, which reads nothing and changes nothing", async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    await page.goto(consoleServer.url);
    await page.goto(`${neighbourOrigin}/attack`);
    const consoleOrigin = `http://127.0.0.1:${consoleServer.port}`;
    const outcomes = await page.evaluate(
      async ({ origin, base }) => {
        const body = JSON.stringify({ scope: 'all', provider: 'mobazha', key: 'evt_1', confirm: 'purge' });
        const attempts: [string, RequestInit][] = [];
        for (const prefix of ['/', base]) {
          for (const path of ['api/redrive', 'api/replay', 'api/purge', 'api/rotate']) {
            const url = `${origin}${prefix}${path}`;
            attempts.push([
              url,
              {
                method: 'POST',
                credentials: 'include',
                body,
                headers: { 'content-type': 'application/json' },
              },
            ]);
            attempts.push([url, { method: 'POST', credentials: 'include', body, mode: 'no-cors' }]);
          }
          const payload = `${origin}${prefix}api/payload?provider=mobazha&key=evt_1`;
          attempts.push([payload, { credentials: 'include' }]);
          attempts.push([payload, { credentials: 'include', mode: 'no-cors' }]);
          attempts.push([`${origin}${prefix}deliveries`, { credentials: 'include' }]);
        }
        return Promise.all(
          attempts.map(async ([url, init]) => {
            try {
              const response = await fetch(url, init);
              return `${response.type} ${response.status} ${await response.text()}`;
            } catch {
              return 'blocked';
            }
          }),
        );
      },
      { origin: consoleOrigin, base: consoleServer.basePath },
    );
    // Either the browser refused the call, or it got an opaque answer it cannot read.
    for (const outcome of outcomes) expect(['blocked', 'opaque 0 ']).toContain(outcome);
    expect(calls).toEqual([]);
    expect(reveals).toEqual([]);
    await context.close();
  });
});
