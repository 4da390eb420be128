// Local mode's HTTP server listens before the pipeline is up, so a busy port fails at once. A request that
// arrives in that window is held until startup finishes, and answered 503 with Retry-After if startup
// takes too long or fails: it is never left without an answer.
import { copyFileSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer, request as httpRequest, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { loadProjectConfig } from '../../../config/load';
import { type Emulators, startEmulators } from '../../../local/emulators';
import { lockFilePath } from '../../../local/instance-lock';
import { startLocalInbox } from '../../../local/local-inbox';
import { StartupGate } from '../../../local/startup-gate';

const REPO = join(import.meta.dirname, '../../..');
const quiet = { info: () => undefined, warn: () => undefined, error: () => undefined };
const cleanups: (() => unknown)[] = [];

afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

function deferred<T>() {
  let resolve!: (value: T) => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

interface Answer {
  status: number;
  headers: IncomingMessage['headers'];
  body: string;
}

/** A POST that resolves with the answer; a request never answered fails the test instead of hanging it. */
function post(url: string, body = '{}'): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const request = httpRequest(
      url,
      {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        // A connection of its own: after a failed start, a kept-alive one would only hang up.
        agent: false,
        signal: AbortSignal.timeout(30_000),
      },
      (response) => {
        let text = '';
        response.setEncoding('utf8').on('data', (chunk: string) => (text += chunk));
        response.on('end', () =>
          resolve({ status: response.statusCode ?? 0, headers: response.headers, body: text }),
        );
      },
    );
    request.on('error', (error) => reject(new Error(`no answer from ${url}: ${error.message}`)));
    request.end(body);
  });
}

/** A server on a free loopback port, and that port. */
async function serving(server: Server): Promise<number> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  cleanups.push(() => new Promise((resolve) => server.close(resolve)));
  return (server.address() as AddressInfo).port;
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

function project(): string {
  const dir = mkdtempSync(join(tmpdir(), 'webhook-inbox-startup-'));
  copyFileSync(join(REPO, 'cdk.json'), join(dir, 'cdk.json'));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** startLocalInbox with emulators the test hands over when it chooses, on a port known in advance. */
async function startingInbox(options: { startupHoldMs?: number } = {}) {
  const dir = project();
  const port = await freePort();
  const emulators = deferred<Emulators>();
  const starting = startLocalInbox({
    config: loadProjectConfig(dir),
    cwd: dir,
    port,
    logs: { verify: quiet, process: quiet },
    emulators: emulators.promise,
    ...options,
  });
  starting.catch(() => undefined); // awaited by the tests
  return { dir, url: `http://127.0.0.1:${port}`, emulators, starting };
}

describe('a request that arrives while npm start is starting', () => {
  it('gets the real answer once the pipeline is ready', async () => {
    const { url, emulators, starting } = await startingInbox();
    const answer = post(`${url}/webhooks/github`);
    // The emulators take a moment to start: the request reaches the server and waits for them.
    emulators.resolve(await startEmulators());
    const inbox = await starting;
    cleanups.push(() => inbox.stop());
    // The verify handler's own answer to an unsigned delivery.
    expect(await answer).toMatchObject({ status: 401 });
  }, 60_000);

  it('gets 503 with Retry-After if startup takes longer than the hold, and the folder is freed if it then fails', async () => {
    const { dir, url, emulators, starting } = await startingInbox({ startupHoldMs: 50 });
    const answer = await post(`${url}/webhooks/github`);
    expect(answer.status).toBe(503);
    expect(Number(answer.headers['retry-after'])).toBeGreaterThan(0);
    expect(JSON.parse(answer.body)).toEqual({ error: 'starting' });

    emulators.reject(new Error('the emulators failed to start'));
    await expect(starting).rejects.toThrow('the emulators failed to start');
    await expect(post(`${url}/webhooks/github`)).rejects.toThrow(/ECONNREFUSED/);
    expect(existsSync(lockFilePath(dir))).toBe(false);
  }, 60_000);
});

describe('StartupGate', () => {
  /** A server whose listener is the gate; `arrived` resolves once a request is on the server (held). */
  async function gated(holdMs: number) {
    const gate = new StartupGate({ holdMs, retryAfterSeconds: 5 });
    const server = createServer(gate.listen);
    const arrived = deferred<void>();
    server.on('request', () => arrived.resolve());
    const port = await serving(server);
    return { gate, url: `http://127.0.0.1:${port}/webhooks/github`, arrived: arrived.promise };
  }

  it('hands a held request to the listener once startup is done', async () => {
    const { gate, url, arrived } = await gated(60_000);
    const answer = post(url);
    await arrived;
    gate.open((_, response) => response.writeHead(202).end('ready'));
    expect(await answer).toMatchObject({ status: 202, body: 'ready' });
  });

  it('answers a held request 503 with Retry-After when startup fails, and every later one too', async () => {
    const { gate, url, arrived } = await gated(60_000);
    const answer = post(url);
    await arrived;
    gate.fail();
    for (const failed of [await answer, await post(url)]) {
      expect(failed.status).toBe(503);
      expect(failed.headers['retry-after']).toBe('5');
      expect(failed.headers.connection).toBe('close');
      expect(JSON.parse(failed.body)).toEqual({ error: 'unavailable' });
    }
  });
});
