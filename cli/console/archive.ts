// The console's reveal and replay. The archive and replay themselves are cli/replay.ts's (issue 16 §1);
// until that module is in this tree, reveal reads a large body's S3 copy (payloadRef) and replay says it
// is unavailable.
import type { InboxRecord } from '../../lambdas/core/inbox';
import type { Target } from '../target-types';

export type ReplayAnswer = { kind: 'replayed'; messageId: string } | { kind: 'refused'; reason: string };

export async function revealPayload(target: Target, record: InboxRecord): Promise<Buffer | undefined> {
  if (record.payloadRef === undefined) return undefined;
  const { S3PayloadReader } = await import('../../lambdas/adapters/s3-payloads');
  return (await new S3PayloadReader((await target.clients()).s3, target.bucketName).get(record.payloadRef))
    .body;
}

export async function replay(_target: Target, _provider: string, _dedupKey: string): Promise<ReplayAnswer> {
  return { kind: 'refused', reason: 'not_available' };
}
