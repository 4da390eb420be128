// The SSRF guard (address-policy.ts) against a real listener on 127.0.0.1: names are answered by an injected
// resolver, so "resolves to 10.0.0.7" needs no DNS, and a refused name must leave the listener untouched.
// No test here lets a connection leave the machine: every address a passing run connects to is loopback.
import type { LookupAddress } from 'node:dns';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type AddressLookup, HttpDestinationSender } from '../../../lambdas/adapters/http-destination';
import { newDestinationSecret } from '../../../lambdas/core/destinations/signing';
import { type DestinationServer, startDestinationServer, status } from '../../support/destination-server';
import { httpDestination, outboundDelivery, secretsOf } from '../../support/outbound-delivery';

let server: DestinationServer;
let connectionsBefore = 0;
beforeAll(async () => {
  server = await startDestinationServer();
});
afterAll(() => server.close());
afterEach(() => {
  server.received.length = 0;
});

const secrets = secretsOf({ partner: [newDestinationSecret()] });
const blocked = { kind: 'failed', code: 'blocked_address', retryable: false };
const delivered = { kind: 'answered', status: 204 };

const family = (address: string) => (address.includes(':') ? 6 : 4);

/** Answers every name with `answers(call)`, the call counted from 1. */
function resolver(answers: (call: number) => string[]): AddressLookup & { calls: number } {
  const lookup = Object.assign(
    ((_hostname, _options, callback) => {
      lookup.calls += 1;
      const addresses = answers(lookup.calls).map((address) => ({ address, family: family(address) }));
      setImmediate(() => callback(null, addresses));
    }) as AddressLookup,
    { calls: 0 },
  );
  return lookup;
}

function sender(lookup: AddressLookup, allowLoopback = false) {
  return new HttpDestinationSender({ secrets, lookup, allowLoopback });
}

/** A destination by name, on the listener's port, so a guard that let it through would reach it. */
const byName = (settings: { internal?: boolean } = {}) =>
  httpDestination({
    url: `http://hooks.partner.test:${server.port}/hooks`,
    connectTimeoutSeconds: 1,
    ...settings,
  });

const literal = (host: string, settings: { internal?: boolean } = {}) =>
  httpDestination({ url: `http://${host}:${server.port}/hooks`, connectTimeoutSeconds: 1, ...settings });

function expectUntouched() {
  expect(server.connections()).toBe(connectionsBefore);
  expect(server.received).toHaveLength(0);
}

const FORBIDDEN = [
  '127.0.0.1',
  '::1',
  '::ffff:127.0.0.1',
  '10.0.0.7',
  '192.168.1.1',
  '172.16.0.1',
  '169.254.169.254',
  'fd00:ec2::254',
];

describe('HttpDestinationSender SSRF guard', () => {
  beforeAll(() => {
    connectionsBefore = server.connections();
  });
  afterEach(() => {
    connectionsBefore = server.connections();
  });

  it.each(FORBIDDEN)('refuses a name that resolves to %s, and connects to nothing', async (address) => {
    const result = await sender(resolver(() => [address])).send(outboundDelivery(byName()));
    expect(result).toEqual(blocked);
    expectUntouched();
  });

  it('refuses a name whose answers mix a public address with a loopback one', async () => {
    const result = await sender(resolver(() => ['93.184.216.34', '127.0.0.1'])).send(
      outboundDelivery(byName()),
    );
    expect(result).toEqual(blocked);
    expectUntouched();
  });

  it.each([
    '127.0.0.1',
    '[::1]',
    '[::ffff:127.0.0.1]',
    '[::ffff:7f00:1]',
    '2130706433', // 127.0.0.1 as one number, which URL parsing turns back into 127.0.0.1
    '0x7f.1',
    '10.0.0.7',
    '169.254.169.254',
    '[fd00:ec2::254]',
  ])('refuses the literal address %s without resolving or connecting', async (host) => {
    const lookup = resolver(() => ['93.184.216.34']);
    expect(await sender(lookup).send(outboundDelivery(literal(host)))).toEqual(blocked);
    expect(lookup.calls).toBe(0);
    expectUntouched();
  });

  it('checks the address actually connected to, when it is not the one the resolver answered', async () => {
    // A lying resolver (an injected fault): its answer reads as a public address when checked, then as
    // loopback when the connection reads it. The check on the connected socket refuses it before any
    // request byte is written.
    let reads = 0;
    const shifty = {
      family: 4,
      get address() {
        reads += 1;
        return reads === 1 ? '93.184.216.34' : '127.0.0.1';
      },
    } as LookupAddress;
    const lookup: AddressLookup = (_hostname, _options, callback) => callback(null, [shifty]);
    expect(await sender(lookup).send(outboundDelivery(byName()))).toEqual(blocked);
    expect(reads).toBeGreaterThan(1);
    expect(server.received).toHaveLength(0);
  });

  it('resolves and checks again for each new connection: a name rebound to metadata is refused', async () => {
    // Local mode's guard (loopback allowed) stands in for a public first answer, so nothing leaves the
    // machine. The first answer closes its connection, so the next attempt must connect anew.
    const lookup = resolver((call) => (call === 1 ? ['127.0.0.1'] : ['169.254.169.254']));
    const guarded = sender(lookup, true);
    const destination = byName();
    server.answer(status(204, { connection: 'close' }));
    expect(await guarded.send(outboundDelivery(destination, { attempt: 1 }))).toEqual(delivered);
    expect(await guarded.send(outboundDelivery(destination, { attempt: 2 }))).toEqual(blocked);
    expect(lookup.calls).toBe(2);
    expect(server.received.map((r) => r.headers['webhook-inbox-attempt'])).toEqual(['1']);
  });

  it("never hands an internal destination's connection to a guarded one with the same address", async () => {
    const lookup = resolver(() => ['127.0.0.1']);
    const shared = sender(lookup);
    const inside = httpDestination(
      { url: `http://hooks.partner.test:${server.port}/hooks`, internal: true },
      'inside',
    );
    secrets.byId.inside = secrets.byId.partner as string[];
    expect(await shared.send(outboundDelivery(inside))).toEqual(delivered);
    expect(await shared.send(outboundDelivery(byName()))).toEqual(blocked);
    expect(server.received).toHaveLength(1);
  });

  it('lets an internal destination reach loopback by name and by literal', async () => {
    const loopback = sender(resolver(() => ['127.0.0.1']));
    expect(await loopback.send(outboundDelivery(byName({ internal: true })))).toEqual(delivered);
    expect(await loopback.send(outboundDelivery(literal('127.0.0.1', { internal: true })))).toEqual(
      delivered,
    );
    const mapped = sender(resolver(() => ['::ffff:127.0.0.1']));
    expect(await mapped.send(outboundDelivery(byName({ internal: true })))).toEqual(delivered);
    expect(server.received).toHaveLength(3);
  });

  it('lets local mode (allowLoopback) reach loopback, and nothing private or metadata', async () => {
    const loopback = sender(
      resolver(() => ['127.0.0.1']),
      true,
    );
    expect(await loopback.send(outboundDelivery(byName()))).toEqual(delivered);
    expect(await loopback.send(outboundDelivery(literal('127.0.0.1')))).toEqual(delivered);
    expect(server.received).toHaveLength(2);
    server.received.length = 0;
    connectionsBefore = server.connections();
    for (const address of ['10.0.0.7', '169.254.169.254', 'fd00:ec2::254', '192.168.1.1']) {
      expect(
        await sender(
          resolver(() => [address]),
          true,
        ).send(outboundDelivery(byName())),
      ).toEqual(blocked);
    }
    for (const host of ['10.0.0.7', '169.254.169.254', '[fd00:ec2::254]']) {
      expect(
        await sender(
          resolver(() => []),
          true,
        ).send(outboundDelivery(literal(host))),
      ).toEqual(blocked);
    }
    expectUntouched();
  });
});
