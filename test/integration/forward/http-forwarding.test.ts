// Forwarding to HTTP destinations through the whole local pipeline (verify, queue, processor fan-out,
// one queue per destination, forwarder, emulators through the real SDK clients), each destination a
// real HTTP server on loopback answering a scripted sequence. One delivery fans out to all of them.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FORWARD_HEADERS } from '../../../lambdas/core/destinations/signing';
import {
  type Answer,
  closedPort,
  type DestinationServer,
  neverAnswer,
  startDestinationServer,
  status,
} from '../../support/destination-server';
import { type ForwardingInbox, linesFor, startForwardingInbox, verifiesWith } from '../../support/forwarding';

/** Bytes a JSON re-encoding would change: key order, spacing, an escaped slash, non-ASCII. */
const BODY = Buffer.from(
  '{"type":"order.paid",  "timestamp":"2026-12-01T09:00:00Z","data":{"b":1,"a":"\\/caf\u00e9"}}',
);

const servers: Record<string, DestinationServer> = {};
let forwarding: ForwardingInbox;
let refusedPort: number;

/**
 * A 429 whose Retry-After is an HTTP date 4 s after the request arrives (3 to 4 s away when the answer is
 * read: an HTTP date has whole seconds). Taken per request, not when the suite starts, so a slow run that
 * reaches the destination late still asks for a wait.
 */
const retryAtDate: Answer = (response) =>
  status(429, { 'retry-after': new Date(Date.now() + 4_000).toUTCString() })(response);

const SCRIPTS = {
  flaky: () => servers.flaky?.answer(status(503), status(503), status(200)),
  'retry-after': () => servers['retry-after']?.answer(status(429, { 'retry-after': '2' }), status(200)),
  'retry-date': () => servers['retry-date']?.answer(retryAtDate, status(204)),
  refusing: () => servers.refusing?.answer(status(400)),
  gone: () => servers.gone?.answer(status(410)),
  hanging: () => servers.hanging?.answer(neverAnswer, neverAnswer),
  moved: () => servers.moved?.answer(status(302, { location: '/elsewhere' })),
} as const;

beforeAll(async () => {
  for (const id of Object.keys(SCRIPTS)) servers[id] = await startDestinationServer();
  refusedPort = await closedPort();
  const url = (id: string) => (servers[id] as DestinationServer).url('/hooks');
  forwarding = await startForwardingInbox({
    destinations: {
      flaky: { type: 'http', url: url('flaky'), retrySchedule: ['1s', '1s', '1s'] },
      'retry-after': { type: 'http', url: url('retry-after'), retrySchedule: ['20s'] },
      'retry-date': { type: 'http', url: url('retry-date'), retrySchedule: ['20s'] },
      refusing: { type: 'http', url: url('refusing'), retrySchedule: ['1s', '1s'] },
      gone: { type: 'http', url: url('gone'), retrySchedule: ['1s', '1s', '1s'] },
      hanging: { type: 'http', url: url('hanging'), responseTimeoutSeconds: 1, retrySchedule: ['1s'] },
      refused: { type: 'http', url: `http://127.0.0.1:${refusedPort}/hooks`, retrySchedule: ['1s'] },
      moved: { type: 'http', url: url('moved'), retrySchedule: ['1s', '1s'] },
    },
  });
  // The SQS double's second copies stay on: a copy of a delivery waiting out its retry is held until the
  // retry is due, so the waits timed here hold with them.
  for (const script of Object.values(SCRIPTS)) script();
  expect(await forwarding.deliver('msg_order_1', BODY)).toBe(202);
}, 60_000);

afterAll(async () => {
  await forwarding?.stop();
  await Promise.all(Object.values(servers).map((server) => server.close()));
});

/** Every request a destination got carries the same webhook-id, the exact bytes, and a valid signature. */
function expectSignedCopies(id: string, attempts: number) {
  const received = (servers[id] as DestinationServer).received;
  expect(received).toHaveLength(attempts);
  const secret = forwarding.destinationSecret(id);
  expect(secret).toMatch(/^whsec_/);
  const ids = new Set(received.map((r) => r.headers[FORWARD_HEADERS.id]));
  expect(ids.size).toBe(1);
  expect([...ids][0]).toMatch(/^msg_[0-9a-f]{32}$/);
  received.forEach((request, index) => {
    expect(request.method).toBe('POST');
    expect(request.path).toBe('/hooks');
    expect(request.body.equals(BODY)).toBe(true);
    expect(request.headers['content-type']).toBe('application/json');
    expect(request.headers[FORWARD_HEADERS.attempt]).toBe(String(index + 1));
    expect(request.headers[FORWARD_HEADERS.provider]).toBe('standard-webhooks');
    expect(request.headers[FORWARD_HEADERS.eventType]).toBe('order.paid');
    expect(() => verifiesWith(secret, request)).not.toThrow();
  });
  // Every attempt is signed at its own time.
  const stamps = received.map((r) => Number(r.headers[FORWARD_HEADERS.timestamp]));
  expect([...stamps].sort((a, b) => a - b)).toEqual(stamps);
  return received;
}

/** Seconds between the arrivals of consecutive attempts, by the destination server's clock. */
function gaps(id: string): number[] {
  const atMs = (servers[id] as DestinationServer).received.map((r) => r.atMs);
  return atMs.slice(1).map((at, i) => (at - (atMs[i] as number)) / 1000);
}

describe('forwarding to an HTTP destination', () => {
  it('retries 503, 503 and delivers on the 200: three attempts, one webhook-id, each signed, the same bytes', async () => {
    await expect
      .poll(() => forwarding.history('msg_order_1', 'flaky'), { timeout: 30_000 })
      .toMatchObject({
        state: 'delivered',
        attempts: 3,
        lastStatus: 200,
      });
    expectSignedCopies('flaky', 3);
    const retries = linesFor(forwarding.lines, 'flaky').filter((l) => l.attributes.outcome === 'retry');
    expect(retries.map((l) => l.attributes.errorCode)).toEqual(['http_503', 'http_503']);
    // Full jitter within the 1 s step: SQS hides a message for whole seconds, at least one.
    for (const line of retries) expect(line.attributes.delaySeconds).toBe(1);
  });

  it('waits the Retry-After seconds of a 429, not the schedule step', async () => {
    await expect
      .poll(() => forwarding.history('msg_order_1', 'retry-after'), { timeout: 30_000 })
      .toMatchObject({
        state: 'delivered',
        attempts: 2,
      });
    expectSignedCopies('retry-after', 2);
    const retry = linesFor(forwarding.lines, 'retry-after').find((l) => l.attributes.outcome === 'retry');
    expect(retry?.attributes).toMatchObject({ errorCode: 'http_429', delaySeconds: 2 });
    expect(gaps('retry-after')[0]).toBeGreaterThanOrEqual(1.9);
  });

  it('waits until the HTTP date of a 429 Retry-After', async () => {
    await expect
      .poll(() => forwarding.history('msg_order_1', 'retry-date'), { timeout: 30_000 })
      .toMatchObject({
        state: 'delivered',
        attempts: 2,
        lastStatus: 204,
      });
    const retry = linesFor(forwarding.lines, 'retry-date').find((l) => l.attributes.outcome === 'retry');
    expect(Number(retry?.attributes.delaySeconds)).toBeGreaterThanOrEqual(2);
    expect(Number(retry?.attributes.delaySeconds)).toBeLessThanOrEqual(4);
    expect(gaps('retry-date')[0]).toBeGreaterThanOrEqual(1.9);
  });

  it('dead-letters a 400 at once, with the status in the error code, to the destination DLQ', async () => {
    await expect
      .poll(() => forwarding.history('msg_order_1', 'refusing'), { timeout: 30_000 })
      .toMatchObject({
        state: 'dead-lettered',
        attempts: 1,
        lastStatus: 400,
        lastErrorCode: 'http_400',
      });
    expectSignedCopies('refusing', 1);
    await expect.poll(() => dlqDepth('refusing'), { timeout: 30_000 }).toBe(1);
  });

  it('treats a redirect as final: the Location is never requested', async () => {
    await expect
      .poll(() => forwarding.history('msg_order_1', 'moved'), { timeout: 30_000 })
      .toMatchObject({
        state: 'dead-lettered',
        attempts: 1,
        lastErrorCode: 'http_302',
      });
    expect((servers.moved as DestinationServer).received.map((r) => r.path)).toEqual(['/hooks']);
  });

  it('retries a response that never comes, then dead-letters it as response_timeout', async () => {
    await expect
      .poll(() => forwarding.history('msg_order_1', 'hanging'), { timeout: 30_000 })
      .toMatchObject({
        state: 'dead-lettered',
        attempts: 2,
        lastErrorCode: 'response_timeout',
      });
    expectSignedCopies('hanging', 2);
    await expect.poll(() => dlqDepth('hanging'), { timeout: 30_000 }).toBe(1);
  });

  it('retries a refused connection, then dead-letters it as connection_refused', async () => {
    await expect
      .poll(() => forwarding.history('msg_order_1', 'refused'), { timeout: 30_000 })
      .toMatchObject({
        state: 'dead-lettered',
        attempts: 2,
        lastErrorCode: 'connection_refused',
      });
  });

  it('disables a destination that answers 410, holds its deliveries, and sends them once it is enabled', async () => {
    await expect
      .poll(() => forwarding.history('msg_order_1', 'gone'), { timeout: 30_000 })
      .toMatchObject({
        state: 'waiting',
        attempts: 1,
        lastErrorCode: 'http_410',
      });
    expect(await forwarding.destinationStatus('gone')).toMatchObject({ enabled: false, reason: 'http_410' });
    // A later delivery waits too: nothing more reaches the destination while it is disabled.
    expect(await forwarding.deliver('msg_order_2', BODY)).toBe(202);
    await expect.poll(() => queueDepth('gone'), { timeout: 30_000 }).toBe(2);
    await new Promise((resolve) => setTimeout(resolve, 3_000));
    expect((servers.gone as DestinationServer).received).toHaveLength(1);
    await forwarding.enable('gone');
    await expect
      .poll(() => forwarding.history('msg_order_1', 'gone'), { timeout: 30_000 })
      .toMatchObject({
        state: 'delivered',
        attempts: 2,
      });
    await expect
      .poll(() => forwarding.history('msg_order_2', 'gone'), { timeout: 30_000 })
      .toMatchObject({
        state: 'delivered',
        attempts: 1,
      });
  });
});

async function dlqDepth(id: string): Promise<number> {
  return forwarding.depth(id, 'dlq');
}

async function queueDepth(id: string): Promise<number> {
  return forwarding.depth(id, 'queue');
}
