// The resource-version store behind `ctx.acceptIfNewer`, against dynalite through the real SDK client.
import { randomUUID } from 'node:crypto';
import { beforeEach, describe, expect, it } from 'vitest';
import { DynamoInbox } from '../../../lambdas/adapters/dynamo-inbox';
import { DynamoResourceVersions } from '../../../lambdas/adapters/dynamo-resource-versions';
import type { VersionCheck } from '../../../lambdas/core/ports';
import { useEmulators } from '../../support/emulators';
import { faultForTest } from '../../support/faults';

const env = useEmulators();
const T0 = Date.UTC(2026, 11, 1);
let versions: DynamoResourceVersions;
let resourceKey: string;

beforeEach(() => {
  versions = new DynamoResourceVersions(env.clients.dynamodb, env.resources.tableName);
  resourceKey = `payment_intent:${randomUUID()}`;
});

const check = (version: number, overrides: Partial<VersionCheck> = {}): VersionCheck => ({
  provider: 'stripe',
  resourceKey,
  version,
  deliveryKey: `stripe:evt_${version}`,
  nowMs: T0,
  ttlSeconds: 86_400,
  ...overrides,
});

describe('acceptIfNewer', () => {
  it('accepts the first version of a resource, then only newer ones', async () => {
    expect(await versions.acceptIfNewer(check(200))).toBe(true);
    expect(await versions.acceptIfNewer(check(100))).toBe(false);
    expect(await versions.acceptIfNewer(check(300))).toBe(true);
    expect(await versions.acceptIfNewer(check(200))).toBe(false);
  });

  it('calls the same version from another delivery stale, and from the same delivery (its retry) newer', async () => {
    expect(await versions.acceptIfNewer(check(200, { deliveryKey: 'stripe:evt_a' }))).toBe(true);
    expect(await versions.acceptIfNewer(check(200, { deliveryKey: 'stripe:evt_b' }))).toBe(false);
    expect(await versions.acceptIfNewer(check(200, { deliveryKey: 'stripe:evt_a' }))).toBe(true);
  });

  it('keeps resources of different providers and keys apart', async () => {
    expect(await versions.acceptIfNewer(check(200))).toBe(true);
    expect(await versions.acceptIfNewer(check(100, { provider: 'paddle' }))).toBe(true);
    expect(await versions.acceptIfNewer(check(100, { resourceKey: `${resourceKey}-other` }))).toBe(true);
  });

  it('forgets a version once its TTL has passed, though DynamoDB has not deleted it yet', async () => {
    expect(await versions.acceptIfNewer(check(200))).toBe(true);
    expect(await versions.acceptIfNewer(check(100, { nowMs: T0 + 86_401_000 }))).toBe(true);
  });

  it('keeps its items out of the inbox listing', async () => {
    const table = (await env.provision()).tableName;
    const isolated = new DynamoResourceVersions(env.clients.dynamodb, table);
    expect(await isolated.acceptIfNewer(check(1))).toBe(true);
    expect(await new DynamoInbox(env.clients.dynamodb, table).list({ limit: 10 })).toEqual([]);
  });

  it('reports DynamoDB failing as DependencyError(dynamodb, UpdateItem), so the delivery is retried', async () => {
    const _fault = faultForTest(env.clients.dynamodb, { commands: 'UpdateItemCommand', times: 1 });
    await expect(versions.acceptIfNewer(check(1))).rejects.toMatchObject({
      name: 'DependencyError',
      dependency: 'dynamodb',
      operation: 'UpdateItem',
    });
  });
});
