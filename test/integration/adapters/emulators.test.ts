// startEmulators itself: sockets bound to loopback only, and a --data-dir that keeps the inbox across a
// restart while the queues start empty.
import { randomUUID } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { connect } from 'node:net';
import { networkInterfaces, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { parseConfig } from '../../../config';
import { createAwsClients } from '../../../lambdas/adapters/clients';
import { DynamoInbox } from '../../../lambdas/adapters/dynamo-inbox';
import { SqsQueueOps } from '../../../lambdas/adapters/sqs-queue-ops';
import { inboxKey } from '../../../lambdas/core/inbox';
import { type Emulators, startEmulators } from '../../../local/emulators';
import { provisionResources } from '../../../local/resources';

const cleanups: (() => Promise<void>)[] = [];

afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function started(dataDir?: string): Promise<Emulators> {
  const emulators = await startEmulators(dataDir === undefined ? {} : { dataDir });
  cleanups.push(() => emulators.stop());
  return emulators;
}

/** `0100007F:1F90` (little-endian IPv4, hex port) as `127.0.0.1`; an IPv6 address as its hex. */
function procAddress(hex: string): string {
  if (hex.length !== 8) return hex;
  return [6, 4, 2, 0].map((i) => Number.parseInt(hex.slice(i, i + 2), 16)).join('.');
}

/** The local addresses of the sockets listening on `port`, from the kernel's own tables (Linux). */
function listeningAddresses(port: number): string[] | undefined {
  const tables = ['/proc/net/tcp', '/proc/net/tcp6'].filter((file) => existsSync(file));
  if (tables.length === 0) return undefined;
  const addresses: string[] = [];
  for (const table of tables) {
    for (const row of readFileSync(table, 'utf8').split('\n').slice(1)) {
      const [, local, , state] = row.trim().split(/\s+/);
      if (!local || state !== '0A') continue; // 0A: LISTEN
      const [address, portHex] = local.split(':') as [string, string];
      if (Number.parseInt(portHex, 16) === port) addresses.push(procAddress(address));
    }
  }
  return addresses;
}

/** This machine's own addresses that are not loopback: a socket bound to all interfaces answers on them. */
function outwardAddresses(): string[] {
  return Object.values(networkInterfaces())
    .flat()
    .filter((info) => info !== undefined && !info.internal && info.family === 'IPv4')
    .map((info) => info!.address);
}

function connects(host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host, port });
    socket.setTimeout(2_000);
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
    socket.once('timeout', () => {
      socket.destroy();
      resolve(false);
    });
  });
}

describe('startEmulators', () => {
  it('binds DynamoDB, SQS and S3 to 127.0.0.1 only: nothing listens on another address', async () => {
    const { endpoints } = await started();
    expect(endpoints.sqs).toBe(endpoints.s3);
    const ports = [...new Set(Object.values(endpoints).map((endpoint) => Number(new URL(endpoint).port)))];
    expect(ports).toHaveLength(2);
    let checks = 0;
    for (const port of ports) {
      expect(await connects('127.0.0.1', port)).toBe(true);
      const listening = listeningAddresses(port);
      if (listening !== undefined) {
        expect(listening).toEqual(['127.0.0.1']);
        checks++;
      }
      for (const address of outwardAddresses()) {
        expect(await connects(address, port), `${address}:${port}`).toBe(false);
        checks++;
      }
    }
    // On a machine with neither /proc nor a network interface this test would prove nothing.
    expect(checks).toBeGreaterThan(0);
  });

  it('keeps the inbox in --data-dir across a restart; queues start empty again', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'webhook-inbox-data-'));
    cleanups.push(() => rm(dataDir, { recursive: true, force: true }));
    const config = parseConfig({});
    const claim = {
      provider: 'github',
      dedupKey: randomUUID(),
      payloadSha256: 'c'.repeat(64),
      nowMs: Date.UTC(2026, 0, 1),
      leaseSeconds: 30,
      ttlSeconds: 86_400,
      claimToken: randomUUID(),
    };

    const first = await started(dataDir);
    const firstClients = createAwsClients(first.clientOptions);
    const resources = await provisionResources(firstClients, config);
    expect((await new DynamoInbox(firstClients.dynamodb, resources.tableName).claim(claim)).kind).toBe(
      'claimed',
    );
    // A message in each queue, seen there, so that finding them empty later means they did not survive.
    const firstQueues = new SqsQueueOps(firstClients.sqs);
    for (const url of [resources.queueUrl, resources.dlqUrl]) {
      await firstQueues.sendRaw(url, 'left behind', {});
      expect((await firstQueues.counts(url)).visible).toBe(1);
    }
    for (const client of Object.values(firstClients)) client.destroy();
    await first.stop();
    cleanups.pop();

    const second = await started(dataDir);
    const secondClients = createAwsClients(second.clientOptions);
    cleanups.push(async () => {
      for (const client of Object.values(secondClients)) client.destroy();
    });
    // The table exists already (ResourceInUseException path); fauxqs has no persistence, so queues are new.
    const again = await provisionResources(secondClients, config);
    const record = await new DynamoInbox(secondClients.dynamodb, again.tableName).get(
      inboxKey(claim.provider, claim.dedupKey),
    );
    expect(record).toMatchObject({ status: 'claimed', claimToken: claim.claimToken });
    const queues = new SqsQueueOps(secondClients.sqs);
    for (const url of [again.queueUrl, again.dlqUrl]) {
      expect(new URL(url).pathname).toBe(
        new URL(url === again.queueUrl ? resources.queueUrl : resources.dlqUrl).pathname,
      );
      expect(await queues.counts(url)).toEqual({ visible: 0, inFlight: 0, delayed: 0 });
      expect(await queues.receive(url, { visibilitySeconds: 1 })).toEqual([]);
    }
  });
});
