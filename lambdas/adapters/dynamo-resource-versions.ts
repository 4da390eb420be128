// The newest version seen per resource, for handlers that must not let an older event overwrite newer
// state (`ctx.acceptIfNewer`). Kept in the inbox table under keys no delivery can have (provider ids never
// start with `@`), with a TTL of its own. One conditional UpdateItem per call: no read-then-write.
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { UpdateItemCommand } from '@aws-sdk/client-dynamodb';
import type { ResourceVersions, VersionCheck } from '../core/ports';
import { conditionalWrite } from './dependency-call';
import { toAttributes } from './inbox-item';

/** The key of a resource's version item; `@` keeps it apart from every `{provider}#{dedupKey}`. */
export function versionKey(provider: string, resourceKey: string): string {
  return `@version#${provider}#${resourceKey}`;
}

// Newer than what is stored, or nothing stored (or expired: TTL deletes days late), or the very same
// version written by this same delivery: its retry, after a crash between this write and the mark, must
// be let through again, or the effect it guards would never run.
const NEWER =
  'attribute_not_exists(pk) OR expiresAt < :nowSec OR #version < :version OR (#version = :version AND setBy = :setBy)';

export class DynamoResourceVersions implements ResourceVersions {
  constructor(
    private readonly client: DynamoDBClient,
    private readonly tableName: string,
  ) {}

  async acceptIfNewer(check: VersionCheck): Promise<boolean> {
    return conditionalWrite('UpdateItem', () =>
      this.client.send(
        new UpdateItemCommand({
          TableName: this.tableName,
          Key: toAttributes({ pk: versionKey(check.provider, check.resourceKey) }),
          UpdateExpression:
            'SET #version = :version, setBy = :setBy, provider = :provider, resourceKey = :resourceKey, ' +
            'updatedAt = :at, expiresAt = :expiresAt',
          ConditionExpression: NEWER,
          ExpressionAttributeNames: { '#version': 'version' },
          ExpressionAttributeValues: toAttributes({
            ':version': check.version,
            ':setBy': check.deliveryKey,
            ':provider': check.provider,
            ':resourceKey': check.resourceKey,
            ':at': new Date(check.nowMs).toISOString(),
            ':nowSec': Math.floor(check.nowMs / 1000),
            ':expiresAt': Math.floor(check.nowMs / 1000) + check.ttlSeconds,
          }),
        }),
      ),
    );
  }
}
