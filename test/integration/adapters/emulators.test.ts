// startEmulators itself: loopback-only endpoints, and a --data-dir that keeps the inbox across a restart.
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { parseConfig } from '../../../config';
import { createAwsClients } from '../../../lambdas/adapters/clients';
import { DynamoInbox } from '../../../lambdas/adapters/dynamo-inbox';
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

describe('startEmulators', () => {
  it('serves DynamoDB, SQS and S3 on loopback ports only', async () => {
    const { endpoints } = await started();
    for (const endpoint of Object.values(endpoints)) expect(new URL(endpoint).hostname).toBe('127.0.0.1');
    expect(endpoints.sqs).toBe(endpoints.s3);
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
    const firstClients = createAwsClients(first.endpoints);
    const resources = await provisionResources(firstClients, config);
    expect((await new DynamoInbox(firstClients.dynamodb, resources.tableName).claim(claim)).kind).toBe(
      'claimed',
    );
    for (const client of Object.values(firstClients)) client.destroy();
    await first.stop();
    cleanups.pop();

    const second = await started(dataDir);
    const secondClients = createAwsClients(second.endpoints);
    cleanups.push(async () => {
      for (const client of Object.values(secondClients)) client.destroy();
    });
    // The table exists already (ResourceInUseException path); fauxqs has no persistence, so queues are new.
    const again = await provisionResources(secondClients, config);
    const record = await new DynamoInbox(secondClients.dynamodb, again.tableName).get(
      inboxKey(claim.provider, claim.dedupKey),
    );
    expect(record).toMatchObject({ status: 'claimed', claimToken: claim.claimToken });
  });
});
