// The console's search box takes whatever a visitor types. A text longer than any table key (DynamoDB
// refuses a partition key over 2,048 bytes with a ValidationException) matches no delivery: the page says
// so, rather than turning the refusal into a 500 that quotes DynamoDB.
import { describe, expect, it } from 'vitest';
import { DeliveriesSource } from '../../../../cli/console/deliveries-source';
import { DynamoInbox } from '../../../../lambdas/adapters/dynamo-inbox';
import { useEmulators } from '../../../support/emulators';

const env = useEmulators();

describe('console: searching for a text longer than any key', () => {
  it('finds nothing, for one provider and for all, instead of failing on the key size', async () => {
    const { tableName } = await env.provision();
    const inbox = new DynamoInbox(env.clients.dynamodb, tableName, { providers: ['github', 'stripe'] });
    const source = new DeliveriesSource(inbox, ['github', 'stripe']);
    const search = 'a'.repeat(3_000);
    await expect(source.page({ search, limit: 50 })).resolves.toMatchObject({ records: [] });
    await expect(source.page({ search, provider: 'github', limit: 50 })).resolves.toMatchObject({
      records: [],
    });
  });
});
