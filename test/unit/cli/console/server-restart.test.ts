// The console server over a source that finds the local instance per request: with none running, every
// page and API call answers 503 with one line (the assets still load); a read whose connection was refused
// is read again from the instance found then; a mutation is never repeated.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type BackendSource, UnavailableError } from '../../../../cli/console/backend-source';
import { newToken } from '../../../../cli/console/security';
import { type ConsoleBackend, type RunningConsole, startConsoleServer } from '../../../../cli/console/server';
import { DependencyError } from '../../../../lambdas/core/errors';
import { fakeBackend } from '../../../support/console-backend';

const NONE =
  'no local inbox is running for /p: start one with `npm start` in the project folder, then reload this page';
const refused = () =>
  new DependencyError('dynamodb', 'Query', {
    cause: Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:1'), { code: 'ECONNREFUSED' }),
  });

/** An instance whose listing refuses every connection: it was stopped under the console. */
function stoppedInstance(calls: string[]): ConsoleBackend {
  const backend = fakeBackend(calls);
  return {
    ...backend,
    target: { ...backend.target, description: 'local instance at http://127.0.0.1:3000' },
    deliveries: {
      ...backend.deliveries,
      page: async () => {
        throw refused();
      },
    },
    replay: async () => {
      calls.push('replay');
      throw refused();
    },
  } as unknown as ConsoleBackend;
}

describe('the console server over a local instance that restarts', () => {
  const token = newToken();
  const oldCalls: string[] = [];
  const newCalls: string[] = [];
  const asked: boolean[] = [];
  let answer: 'old' | 'new' | 'none' = 'none';
  const source: BackendSource = {
    get description() {
      return 'local instance at http://127.0.0.1:3000';
    },
    current: async (refusedBefore = false) => {
      asked.push(refusedBefore);
      if (answer === 'none') throw new UnavailableError(NONE);
      if (answer === 'old') {
        // Refused once: the record now names the new instance.
        if (refusedBefore) answer = 'new';
        else return stoppedInstance(oldCalls);
      }
      const backend = fakeBackend(newCalls);
      return {
        ...backend,
        target: { ...backend.target, description: 'local instance at http://127.0.0.1:4000' },
      };
    },
    close: () => undefined,
  };
  let server: RunningConsole;
  const cookie = () => ({ cookie: `webhook_inbox_console_${server.port}=${token}` });
  const get = (path: string, headers: Record<string, string> = cookie()) =>
    fetch(`http://127.0.0.1:${server.port}${server.basePath}${path}`, { headers });

  beforeAll(async () => {
    server = await startConsoleServer({ port: 0, readOnly: false, token, backend: source });
  });
  afterAll(() => server?.close());

  it('answers every page and API call 503 with one line when no instance runs, and still serves the assets', async () => {
    answer = 'none';
    for (const path of ['deliveries', 'dead-letters', 'providers', 'delivery?provider=mobazha&key=evt_1']) {
      const page = await get(path);
      expect(page.status, path).toBe(503);
      const body = await page.text();
      expect(body, path).toContain('<p>no local inbox is running for /p: start one with `npm start` in the');
      expect(body, path).not.toMatch(/ECONNREFUSED|at .*\.ts:\d+/);
    }
    const api = await get('api/payload?provider=mobazha&key=evt_1', { 'x-console-token': token });
    expect(api.status).toBe(503);
    expect(await api.json()).toEqual({ error: NONE });
    expect((await get('assets/console.css')).status).toBe(200);
    expect((await get('assets/console.js')).status).toBe(200);
  });

  it('reads a page again from the instance found after a refused connection', async () => {
    answer = 'old';
    asked.length = 0;
    const page = await get('deliveries');
    expect(page.status).toBe(200);
    const body = await page.text();
    expect(body).toContain('evt_1');
    expect(body).toContain('local instance at http://127.0.0.1:4000');
    expect(asked).toEqual([false, true]);
  });

  it('never repeats a mutation whose connection was refused, and says to try again', async () => {
    answer = 'old';
    const replay = await fetch(`http://127.0.0.1:${server.port}${server.basePath}api/replay`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-console-token': token },
      body: JSON.stringify({ provider: 'mobazha', key: 'evt_1' }),
    });
    expect(replay.status).toBe(503);
    expect(await replay.json()).toEqual({
      error: 'the local inbox was restarted during the call: try again',
    });
    expect(oldCalls).toEqual(['replay']);
    expect(newCalls).toEqual([]);
  });
});
