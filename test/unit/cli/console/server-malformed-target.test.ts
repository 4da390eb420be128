// A request target that is not a URL the console can parse (`//[` reads as a scheme-relative URL with a
// broken host) must be answered like any other unknown path, not thrown out of the request listener: a
// web page on any origin can send it with one fetch, and a throw there ends the console's process.
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newToken } from '../../../../cli/console/security';
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

describe('the console server and a request target it cannot parse', () => {
  let server: RunningConsole;
  const crashes: unknown[] = [];
  const onRejection = (reason: unknown) => crashes.push(reason);

  beforeAll(async () => {
    process.on('unhandledRejection', onRejection);
    server = await startConsoleServer({
      port: 0,
      readOnly: false,
      token: newToken(),
      backend: fakeBackend([]),
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
});
