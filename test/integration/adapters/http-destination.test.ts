import { createHmac } from 'node:crypto';
import { once } from 'node:events';
import { type AddressInfo, createServer as createTcpServer, type Socket } from 'node:net';
import { Webhook } from 'standardwebhooks';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type AddressLookup, HttpDestinationSender } from '../../../lambdas/adapters/http-destination';
import { judgeAttempt } from '../../../lambdas/core/destinations/attempt';
import { newDestinationSecret } from '../../../lambdas/core/destinations/signing';
import {
  closedPort,
  type DestinationServer,
  neverAnswer,
  type ReceivedRequest,
  startDestinationServer,
  status,
} from '../../support/destination-server';
import { httpDestination, outboundDelivery, secretsOf } from '../../support/outbound-delivery';

let server: DestinationServer;
beforeAll(async () => {
  server = await startDestinationServer();
});
afterAll(() => server.close());
afterEach(() => {
  server.received.length = 0;
});

const secret = newDestinationSecret();

/** Local mode's guard (loopback allowed), and the system resolver unless a test answers names itself. */
function senderFor(secrets: string[] = [secret], lookup?: AddressLookup) {
  const source = secretsOf({ partner: secrets });
  return { source, sender: new HttpDestinationSender({ secrets: source, allowLoopback: true, lookup }) };
}

/** The request's headers as the standardwebhooks library takes them. */
function webhookHeaders(request: ReceivedRequest): Record<string, string> {
  return Object.fromEntries(Object.entries(request.headers).map(([k, v]) => [k, String(v)]));
}

function only(): ReceivedRequest {
  expect(server.received).toHaveLength(1);
  return server.received[0] as ReceivedRequest;
}

describe('HttpDestinationSender: what the destination receives', () => {
  it('posts the exact bytes, not UTF-8 text, with the delivery content type, signed over those bytes', async () => {
    const { sender } = senderFor();
    const body = Buffer.from([0xff, 0xfe, 0x00, 0x80, 0xc3, 0x28, 0x0a, 0xed, 0xa0, 0x80]);
    const delivery = outboundDelivery(httpDestination({ url: server.url() }), {
      body,
      contentType: 'application/vnd.partner+octet-stream',
    });
    expect(await sender.send(delivery)).toEqual({ kind: 'answered', status: 204 });
    const request = only();
    expect(request.method).toBe('POST');
    expect(request.body.equals(body)).toBe(true);
    expect(request.headers['content-type']).toBe('application/vnd.partner+octet-stream');
    // The standardwebhooks npm library decodes a Buffer as UTF-8 before signing, so it cannot check a
    // body that is not UTF-8; the Standard Webhooks spec signs bytes, which is checked here by hand.
    const key = Buffer.from(secret.slice('whsec_'.length), 'base64');
    const signed = Buffer.concat([
      Buffer.from(`${delivery.webhookId}.${request.headers['webhook-timestamp']}.`),
      body,
    ]);
    const expected = `v1,${createHmac('sha256', key).update(signed).digest('base64')}`;
    expect(request.headers['webhook-signature']).toBe(expected);
  });

  it('signs so the standardwebhooks library verifies a JSON body and a non-JSON UTF-8 one', async () => {
    const { sender } = senderFor();
    const form = Buffer.from('text=caf\u00e9+%E2%9C%93&user=\u00fcml', 'utf8');
    await sender.send(outboundDelivery(httpDestination({ url: server.url() })));
    await sender.send(
      outboundDelivery(httpDestination({ url: server.url() }), {
        body: form,
        contentType: 'application/x-www-form-urlencoded',
      }),
    );
    const [json, encoded] = server.received as [ReceivedRequest, ReceivedRequest];
    expect(new Webhook(secret).verify(json.body, webhookHeaders(json))).toEqual({
      action: 'opened',
      number: 7,
    });
    expect(encoded.body.equals(form)).toBe(true);
    expect(encoded.headers['content-type']).toBe('application/x-www-form-urlencoded');
    expect(() =>
      new Webhook(secret).verify(encoded.body, webhookHeaders(encoded), { jsonParse: false }),
    ).not.toThrow();
    expect(() => new Webhook(newDestinationSecret()).verify(json.body, webhookHeaders(json))).toThrow();
  });

  it("carries the delivery's id, timestamp, provider, event type and delivery id", async () => {
    const { sender } = senderFor();
    const delivery = outboundDelivery(httpDestination({ url: server.url('/in?tenant=7') }), {
      nowMs: Date.UTC(2030, 0, 1, 0, 0, 0, 999),
      eventType: 'pull_request',
    });
    await sender.send(delivery);
    const request = only();
    expect(request.path).toBe('/in?tenant=7');
    expect(request.headers).toMatchObject({
      'webhook-id': delivery.webhookId,
      'webhook-timestamp': String(Date.UTC(2030, 0, 1) / 1000),
      'webhook-inbox-provider': 'github',
      'webhook-inbox-event-type': 'pull_request',
      'webhook-inbox-delivery-id': 'f1e2d3c4-0000-4000-8000-000000000001',
      'webhook-inbox-attempt': '1',
      'content-length': String(delivery.body.length),
    });
  });

  it('keeps the webhook-id across attempts, counts them, and signs each one', async () => {
    const { sender } = senderFor();
    server.answer(status(503), status(503), status(200));
    const destination = httpDestination({ url: server.url() });
    const results = [];
    for (const attempt of [1, 2, 3])
      results.push(await sender.send(outboundDelivery(destination, { attempt })));
    expect(results.map((r) => r.kind === 'answered' && r.status)).toEqual([503, 503, 200]);
    expect(new Set(server.received.map((r) => r.headers['webhook-id'])).size).toBe(1);
    expect(server.received.map((r) => r.headers['webhook-inbox-attempt'])).toEqual(['1', '2', '3']);
    for (const request of server.received) {
      expect(() => new Webhook(secret).verify(request.body, webhookHeaders(request))).not.toThrow();
    }
  });

  it("sends the URL's user and password as Basic authorization", async () => {
    const { sender } = senderFor();
    const url = `http://hooks%40partner:p%3Ass@127.0.0.1:${server.port}/hooks`;
    await sender.send(outboundDelivery(httpDestination({ url })));
    expect(only().headers.authorization).toBe(
      `Basic ${Buffer.from('hooks@partner:p:ss').toString('base64')}`,
    );
  });

  it('signs with every secret during a rotation, so the receiver verifies with either', async () => {
    const previous = newDestinationSecret();
    const { sender } = senderFor([secret, previous]);
    await sender.send(outboundDelivery(httpDestination({ url: server.url() })));
    const request = only();
    const signatures = String(request.headers['webhook-signature']).split(' ');
    expect(signatures).toHaveLength(2);
    expect(signatures.every((s) => s.startsWith('v1,'))).toBe(true);
    for (const key of [secret, previous]) {
      expect(() => new Webhook(key).verify(request.body, webhookHeaders(request))).not.toThrow();
    }
  });
});

describe('HttpDestinationSender: answers', () => {
  it.each([
    [503, {}, { kind: 'retry', code: 'http_503' }],
    [429, { 'retry-after': '2' }, { kind: 'retry', code: 'http_429', retryAfterSeconds: 2 }],
    [400, {}, { kind: 'permanent', code: 'http_400' }],
    [410, {}, { kind: 'gone', code: 'http_410' }],
  ])('reports %i as answered, for judgeAttempt to judge', async (code, headers, verdict) => {
    const { sender } = senderFor();
    server.answer(status(code, headers, 'a body nobody reads'));
    const result = await sender.send(outboundDelivery(httpDestination({ url: server.url() })));
    expect(result).toEqual({
      kind: 'answered',
      status: code,
      ...('retry-after' in headers ? { retryAfter: '2' } : {}),
    });
    expect(judgeAttempt(result, Date.now())).toEqual(verdict);
  });

  it('returns an HTTP-date Retry-After raw', async () => {
    const { sender } = senderFor();
    const date = 'Wed, 21 Oct 2037 07:28:00 GMT';
    server.answer(status(429, { 'Retry-After': date }));
    const result = await sender.send(outboundDelivery(httpDestination({ url: server.url() })));
    expect(result).toEqual({ kind: 'answered', status: 429, retryAfter: date });
    expect(judgeAttempt(result, Date.parse(date) - 90_000)).toEqual({
      kind: 'retry',
      code: 'http_429',
      retryAfterSeconds: 90,
    });
  });

  it('does not follow a redirect: a 302 is the answer, and its Location is never requested', async () => {
    const { sender } = senderFor();
    server.answer(status(302, { location: server.url('/moved') }));
    const destination = httpDestination({ url: server.url('/hooks') });
    expect(await sender.send(outboundDelivery(destination))).toEqual({ kind: 'answered', status: 302 });
    // A later request on the same connection: anything the redirect had made would have arrived first.
    await sender.send(outboundDelivery(destination));
    expect(server.received.map((r) => r.path)).toEqual(['/hooks', '/hooks']);
  });

  it('answers as soon as the status and headers arrive, however large or endless the body', async () => {
    const { sender } = senderFor();
    server.answer(status(200, {}, 'x'.repeat(1024 * 1024)), (response) => {
      response.writeHead(200).write('the rest never comes');
    });
    const destination = httpDestination({ url: server.url(), responseTimeoutSeconds: 1 });
    expect(await sender.send(outboundDelivery(destination))).toEqual({ kind: 'answered', status: 200 });
    expect(await sender.send(outboundDelivery(destination))).toEqual({ kind: 'answered', status: 200 });
  });

  it('sends the next attempt over the kept-alive connection', async () => {
    const { sender } = senderFor();
    const destination = httpDestination({ url: server.url(), connectTimeoutSeconds: 1 });
    const before = server.connections();
    for (let attempt = 1; attempt <= 3; attempt++) {
      expect(await sender.send(outboundDelivery(destination, { attempt }))).toEqual({
        kind: 'answered',
        status: 204,
      });
    }
    expect(server.connections() - before).toBe(1);
  });
});

describe('HttpDestinationSender: failures are results', () => {
  it('times out a response that never comes (retryable), after the request arrived', async () => {
    const { sender } = senderFor();
    server.answer(neverAnswer);
    const destination = httpDestination({ url: server.url(), responseTimeoutSeconds: 1 });
    expect(await sender.send(outboundDelivery(destination))).toEqual({
      kind: 'failed',
      code: 'response_timeout',
      retryable: true,
    });
    expect(server.received).toHaveLength(1);
  });

  it('times a kept-alive connection from its reuse: a response that never comes is response_timeout', async () => {
    const { sender } = senderFor();
    server.answer(status(204), neverAnswer);
    const destination = httpDestination({
      url: server.url(),
      connectTimeoutSeconds: 5,
      responseTimeoutSeconds: 1,
    });
    const before = server.connections();
    expect(await sender.send(outboundDelivery(destination))).toEqual({ kind: 'answered', status: 204 });
    expect(await sender.send(outboundDelivery(destination, { attempt: 2 }))).toEqual({
      kind: 'failed',
      code: 'response_timeout',
      retryable: true,
    });
    expect(server.connections() - before).toBe(1);
  });

  it('reports a refused connection as connection_refused', async () => {
    const { sender } = senderFor();
    const port = await closedPort();
    const destination = httpDestination({ url: `http://127.0.0.1:${port}/hooks` });
    expect(await sender.send(outboundDelivery(destination))).toEqual({
      kind: 'failed',
      code: 'connection_refused',
      retryable: true,
    });
  });

  it('reports a name whose every address refuses as connection_refused', async () => {
    const port = await closedPort();
    const { sender } = senderFor([secret], (_hostname, _options, callback) =>
      callback(null, [
        { address: '127.0.0.1', family: 4 },
        { address: '::1', family: 6 },
        { address: '127.0.0.2', family: 4 },
      ]),
    );
    const destination = httpDestination({ url: `http://hooks.partner.test:${port}/in` });
    expect(await sender.send(outboundDelivery(destination))).toEqual({
      kind: 'failed',
      code: 'connection_refused',
      retryable: true,
    });
  });

  it('reports a connection closed before any answer as connection_reset', async () => {
    const { sender } = senderFor();
    server.answer((response) => response.socket?.destroy());
    expect(await sender.send(outboundDelivery(httpDestination({ url: server.url() })))).toEqual({
      kind: 'failed',
      code: 'connection_reset',
      retryable: true,
    });
  });

  describe('with a TCP listener that accepts and never speaks', () => {
    const sockets = new Set<Socket>();
    const silent = createTcpServer((socket) => sockets.add(socket));
    beforeAll(async () => {
      silent.listen(0, '127.0.0.1');
      await once(silent, 'listening');
    });
    afterAll(async () => {
      for (const socket of sockets) socket.destroy();
      silent.close();
      await once(silent, 'close');
    });

    it('times out an https connection whose TLS handshake never completes as connect_timeout', async () => {
      const { sender } = senderFor();
      const { port } = silent.address() as AddressInfo;
      const destination = httpDestination({
        url: `https://127.0.0.1:${port}/hooks`,
        connectTimeoutSeconds: 1,
      });
      expect(await sender.send(outboundDelivery(destination))).toEqual({
        kind: 'failed',
        code: 'connect_timeout',
        retryable: true,
      });
    });
  });

  it('times out a name that never resolves as connect_timeout (a resolver that never answers is injected)', async () => {
    const { sender } = senderFor([secret], () => {});
    const destination = httpDestination({ url: 'http://hooks.partner.test/in', connectTimeoutSeconds: 1 });
    expect(await sender.send(outboundDelivery(destination))).toEqual({
      kind: 'failed',
      code: 'connect_timeout',
      retryable: true,
    });
  });

  it('reports a name that does not resolve as dns_failed', async () => {
    const { sender } = senderFor([secret], (hostname, _options, callback) =>
      callback(Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' }), []),
    );
    const destination = httpDestination({ url: 'http://hooks.partner.test/in' });
    expect(await sender.send(outboundDelivery(destination))).toEqual({
      kind: 'failed',
      code: 'dns_failed',
      retryable: true,
    });
  });

  it('reports a TLS failure (https to a plain-HTTP port) as tls_error', async () => {
    const { sender } = senderFor();
    const destination = httpDestination({ url: `https://127.0.0.1:${server.port}/hooks` });
    expect(await sender.send(outboundDelivery(destination))).toEqual({
      kind: 'failed',
      code: 'tls_error',
      retryable: true,
    });
  });

  it('gives up a content type Node cannot send as invalid_request, sending nothing', async () => {
    const { sender } = senderFor();
    const delivery = outboundDelivery(httpDestination({ url: server.url() }), {
      contentType: 'text/plain; x=\u2713',
    });
    expect(await sender.send(delivery)).toEqual({
      kind: 'failed',
      code: 'invalid_request',
      retryable: false,
    });
    expect(server.received).toHaveLength(0);
  });

  it('sends nothing without a secret, or with an unusable one, and recovers once it is fixed', async () => {
    const { source, sender } = senderFor([]);
    const destination = httpDestination({ url: server.url() });
    expect(await sender.send(outboundDelivery(destination))).toEqual({
      kind: 'failed',
      code: 'destination_secret_missing',
      retryable: true,
    });
    source.byId.partner = ['whsec_!!not-base64!!'];
    expect(await sender.send(outboundDelivery(destination))).toEqual({
      kind: 'failed',
      code: 'destination_secret_unusable',
      retryable: true,
    });
    expect(server.received).toHaveLength(0);
    source.byId.partner = [secret];
    expect(await sender.send(outboundDelivery(destination))).toEqual({ kind: 'answered', status: 204 });
  });
});

describe('a secret rotated since the sender read it', () => {
  it('signs again with the secrets read afresh when the receiver refuses the signature, once', async () => {
    const server = await startDestinationServer();
    const [before, after] = [newDestinationSecret(), newDestinationSecret()];
    // The receiver was given the new secret already (it refuses the old signature, then takes the new
    // one); the sender's cached read still has the old secret.
    let reads = 0;
    const secrets = {
      get: async (_id: string, options?: { refresh?: boolean }) => {
        reads++;
        return options?.refresh ? [after, before] : [before];
      },
    };
    const sender = new HttpDestinationSender({ secrets, allowLoopback: true });
    const destination = httpDestination({ url: server.url() });
    server.answer(status(401), status(204));
    expect(await sender.send(outboundDelivery(destination))).toEqual({ kind: 'answered', status: 204 });
    expect(server.received).toHaveLength(2);
    expect(String(server.received[1]?.headers['webhook-signature']).split(' ')).toHaveLength(2);
    expect(reads).toBe(2);
    await server.close();
  });

  it('does not send again when the secrets read afresh are the same', async () => {
    const server = await startDestinationServer();
    const secret = newDestinationSecret();
    const sender = new HttpDestinationSender({ secrets: { get: async () => [secret] }, allowLoopback: true });
    server.answer(status(403));
    expect(await sender.send(outboundDelivery(httpDestination({ url: server.url() })))).toEqual({
      kind: 'answered',
      status: 403,
    });
    expect(server.received).toHaveLength(1);
    await server.close();
  });
});
