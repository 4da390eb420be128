// A request target that is not a URL the console can parse (`//[` reads as a scheme-relative URL with a
// broken host) must be refused with a 4xx, not thrown out of the request listener: a web page on any
// origin can send it with one fetch, and a throw there ends the console's process. The same holds for
// anything a route throws, even a value that cannot be made text.
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newToken, TOKEN_HEADER } from '../../../../cli/console/security';
import { type RunningConsole, startConsoleServer } from '../../../../cli/console/server';
import { fakeBackend } from '../../../support/console-backend';

/** Sends one raw request line and returns the status line of the answer ('' if the socket just closed). */
function rawStatus(port: number, target: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () =>
      socket.write(`GET ${target} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nConnection: close\r\n\r\n`),
    );
    let answer = '';
    socket.setEncoding('utf8').on('data', (chunk: string) => {
      answer += chunk;
    });
    // A listener that threw leaves the socket open with no answer: give up on it rather than hang.
    socket.setTimeout(2_000, () => socket.destroy());
    socket.on('close', () => resolve(answer.split('\r\n', 1)[0] ?? ''));
    socket.on('error', reject);
  });
}

describe("the console server's request listener, given what its routes cannot handle", () => {
  let server: RunningConsole;
  const token = newToken();
  const crashes: unknown[] = [];
  const onRejection = (reason: unknown) => crashes.push(reason);

  beforeAll(async () => {
    process.on('unhandledRejection', onRejection);
    server = await startConsoleServer({
      port: 0,
      readOnly: false,
      token,
      backend: {
        ...fakeBackend([]),
        // A thrown value that cannot even be described: String() of a null-prototype object throws.
        reveal: async () => Promise.reject(Object.create(null)),
      },
    });
  });
  afterAll(async () => {
    process.off('unhandledRejection', onRejection);
    await server?.close();
  });

  it('answers GET //[ with a 4xx and nothing escapes the request listener', async () => {
    const status = await rawStatus(server.port, '//[');
    expect(status).toMatch(/^HTTP\/1\.1 4\d\d /);
    // Let a rejection of the listener's promise surface.
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(crashes).toEqual([]);
  });

  it('answers 500 for a thrown value that has no text, and nothing escapes the request listener', async () => {
    const response = await fetch(
      `http://127.0.0.1:${server.port}${server.basePath}api/payload?provider=mobazha&key=evt_1`,
      // A listener that threw never answers: give up on it rather than hang.
      { headers: { [TOKEN_HEADER]: token }, signal: AbortSignal.timeout(2_000) },
    );
    expect(response.status).toBe(500);
    expect(await response.text()).toBe('{"error":"an error with no text"}');
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(crashes).toEqual([]);
  });
});
