// Replay: an archived delivery sent through the processor again, with the same dedup key and the same
// envelope id (`ctx.idempotencyKey`), as an operator asks (`deliveries replay`, the console). The record
// is marked first (core/replay.ts decides whether it may be, DynamoInbox.markReplayed holds it to that),
// so the processor's lease takes the replayed message and its dedup still holds: a second copy of the
// replay is skipped like any duplicate. Everything runs on the operator's own credentials.
import { userInfo } from 'node:os';
import { queueRetentionSeconds } from '../../config/retention';
import type { DynamoInbox } from '../../lambdas/adapters/dynamo-inbox';
import type { S3PayloadReader } from '../../lambdas/adapters/s3-payloads';
import type { SqsDeliveryQueue } from '../../lambdas/adapters/sqs-queue';
import {
  buildEnvelope,
  envelopeAttributes,
  payloadKey,
  serializeEnvelope,
} from '../../lambdas/core/envelope';
import { InvalidPayloadRefError, PayloadMissingError } from '../../lambdas/core/errors';
import { type InboxRecord, type InboxStatus, inboxKey } from '../../lambdas/core/inbox';
import { type ReplayRefusal, replayDecision, strandedBeforeMs } from '../../lambdas/core/replay';
import { sha256Hex } from '../../lambdas/core/schemes/primitives';
import type { Target } from '../shared/target-types';

export type { ReplayRefusal } from '../../lambdas/core/replay';
export { REPLAY_REFUSALS, replayRefusalMessage } from '../../lambdas/core/replay';

/** A target opened for replays: its inbox, main queue and payload bucket, through the adapters. */
export interface ReplayTarget {
  target: Target;
  inbox: DynamoInbox;
  queue: SqsDeliveryQueue;
  payloads: S3PayloadReader;
}

export type ReplayOutcome =
  | { kind: 'replayed'; record: InboxRecord; messageId: string }
  | { kind: 'would_replay'; record: InboxRecord }
  | { kind: 'refused'; reason: ReplayRefusal; record?: InboxRecord };

export interface ReplaySummary {
  matched: number;
  replayed: number;
  refused: Partial<Record<ReplayRefusal, number>>;
  dryRun: boolean;
  /** Each matched delivery and what became of it (or would, on a dry run), newest first. */
  deliveries: {
    provider: string;
    dedupKey: string;
    inboxStatus: InboxStatus;
    outcome: 'replayed' | 'would_replay' | 'refused';
    reason?: ReplayRefusal;
  }[];
}

export interface ReplayFilter {
  provider?: string;
  status?: InboxStatus;
  sinceMs: number;
  untilMs?: number;
}

export async function openReplayTarget(target: Target): Promise<ReplayTarget> {
  const clients = await target.clients();
  const [{ DynamoInbox }, { SqsDeliveryQueue }, { S3PayloadReader }] = await Promise.all([
    import('../../lambdas/adapters/dynamo-inbox'),
    import('../../lambdas/adapters/sqs-queue'),
    import('../../lambdas/adapters/s3-payloads'),
  ]);
  return {
    target,
    // The configured providers: a filter without --provider reads each one's index partitions.
    inbox: new DynamoInbox(clients.dynamodb, target.tableName, {
      providers: Object.keys(target.config.providers),
    }),
    queue: new SqsDeliveryQueue(clients.sqs, target.queueUrl),
    payloads: new S3PayloadReader(clients.s3, target.bucketName),
  };
}

/** Who replays, for the record: the caller's IAM ARN on a stack (STS), the OS user name locally. */
export async function whoAmI(target: Target): Promise<string | undefined> {
  if (target.kind === 'aws') {
    const { callerArn } = await import('../../lambdas/adapters/sts-identity');
    return callerArn({ region: target.region });
  }
  try {
    return userInfo().username;
  } catch {
    return undefined;
  }
}

type ArchiveRead =
  | { kind: 'bytes'; body: Buffer }
  | { kind: 'refused'; reason: 'not_archived' | 'archive_missing' };

async function readArchive(payloads: S3PayloadReader, record: InboxRecord): Promise<ArchiveRead> {
  if (record.archiveBody !== undefined)
    return { kind: 'bytes', body: Buffer.from(record.archiveBody, 'base64') };
  if (record.archiveRef === undefined) return { kind: 'refused', reason: 'not_archived' };
  try {
    return { kind: 'bytes', body: (await payloads.get(record.archiveRef)).body };
  } catch (error) {
    if (error instanceof PayloadMissingError || error instanceof InvalidPayloadRefError)
      return { kind: 'refused', reason: 'archive_missing' };
    throw error;
  }
}

/**
 * A delivery's archived bytes, for `deliveries show --reveal` and the console's reveal; undefined when the
 * record names none or the object is gone. A record that says it was archived (`archivedAt`) but carries
 * neither the body nor its reference came through a projection without them: then the whole record is
 * read first. One never archived is not read again. Not checked against payloadSha256: replayOne checks
 * before it sends; a reveal shows what is there.
 */
export async function archivedPayload(target: Target, record: InboxRecord): Promise<Buffer | undefined> {
  const clients = await target.clients();
  let full: InboxRecord | undefined = record;
  if (record.archivedAt === undefined) return undefined;
  if (record.archiveBody === undefined && record.archiveRef === undefined) {
    const { DynamoInbox } = await import('../../lambdas/adapters/dynamo-inbox');
    full = await new DynamoInbox(clients.dynamodb, target.tableName).get(record.pk);
    if (!full) return undefined;
  }
  const { S3PayloadReader } = await import('../../lambdas/adapters/s3-payloads');
  const read = await readArchive(new S3PayloadReader(clients.s3, target.bucketName), full);
  return read.kind === 'bytes' ? read.body : undefined;
}

/** Replays one delivery, or says why not. Throws (a CliError from the caller's view) only on an outage. */
export async function replayOne(
  opened: ReplayTarget,
  provider: string,
  dedupKey: string,
  options: {
    by?: string;
    dryRun?: boolean;
    /** The record as the caller just read it (a lookup by prefix), so it is not read again. */
    record?: InboxRecord;
  } = {},
): Promise<ReplayOutcome> {
  const record = options.record ?? (await opened.inbox.get(inboxKey(provider, dedupKey)));
  const retentionMs = queueRetentionSeconds(opened.target.config) * 1000;
  const decision = replayDecision(record, Date.now(), retentionMs);
  if (decision.kind === 'refused' || !record) {
    return { kind: 'refused', reason: decision.kind === 'refused' ? decision.reason : 'not_found', record };
  }
  const archived = await readArchive(opened.payloads, record);
  if (archived.kind === 'refused') return { kind: 'refused', reason: archived.reason, record };
  // Bytes that are not the delivery's would run the handler on something the provider never signed.
  if (sha256Hex(archived.body) !== record.payloadSha256)
    return { kind: 'refused', reason: 'archive_mismatch', record };
  if (options.dryRun) return { kind: 'would_replay', record };

  const nowMs = Date.now();
  const strandedBefore = strandedBeforeMs(nowMs, retentionMs);
  if (
    !(await opened.inbox.markReplayed(record, { nowMs, by: options.by, strandedBeforeMs: strandedBefore }))
  ) {
    // Moved on between the read and the write: say what it is now.
    const now = await opened.inbox.get(record.pk);
    const again = replayDecision(now, Date.now(), retentionMs);
    return { kind: 'refused', reason: again.kind === 'refused' ? again.reason : 'in_flight', record: now };
  }
  let messageId: string;
  try {
    const dataref = await datarefFor(opened, record, archived.body);
    const envelope = buildEnvelope({
      provider: record.provider,
      dedupKey: record.dedupKey,
      deliveryId: record.deliveryId,
      eventType: record.eventType,
      contentType: record.archiveContentType,
      payloadSha256: record.payloadSha256,
      body: archived.body,
      dataref,
      receivedAtMs: Date.parse(record.receivedAt),
      occurredAtMs: record.occurredAt === undefined ? undefined : Date.parse(record.occurredAt),
    });
    ({ messageId } = await opened.queue.send({
      body: serializeEnvelope(envelope),
      attributes: envelopeAttributes(envelope),
    }));
  } catch (error) {
    // Nothing was sent: the record goes back to what it was, so the replay can be run again.
    await opened.inbox.unmarkReplayed(record, nowMs).catch(() => false);
    throw error;
  }
  const { forwardedAt: _forgotten, leaseUntil: _lapsed, ...rest } = record;
  return {
    kind: 'replayed',
    messageId,
    record: {
      ...rest,
      status: 'enqueued',
      replays: (record.replays ?? 0) + 1,
      lastReplayedAt: new Date(nowMs).toISOString(),
      ...(options.by === undefined ? {} : { lastReplayedBy: options.by }),
    },
  };
}

/**
 * The envelope's `dataref` for a body too large to travel inline (as verify decides it, from today's
 * config): the body's `payloads/` object, written as verify would write it. An `archive/` object is never
 * named: the processor and the forwarder may read `payloads/` only, and the archive's lifecycle is not the
 * one every message's body must outlive (config/resources.ts). When the archive reuses verify's object,
 * the put lands on the same key and only restarts its lifecycle clock.
 */
async function datarefFor(
  opened: ReplayTarget,
  record: InboxRecord,
  body: Buffer,
): Promise<string | undefined> {
  if (body.length <= opened.target.config.inlineLimitBytes) return undefined;
  return opened.payloads.put(payloadKey(record.provider, record.payloadSha256), body, record.payloadSha256);
}

/**
 * Every record the filter matches, newest first, a page of the listing index at a time: candidates only,
 * each checked against the table again before it is replayed (replayCandidate).
 */
export async function matchingRecords(
  inbox: Pick<DynamoInbox, 'listPage'>,
  filter: ReplayFilter,
): Promise<InboxRecord[]> {
  const records: InboxRecord[] = [];
  let cursor: string | undefined;
  do {
    const page = await inbox.listPage({ ...filter, limit: 100, ...(cursor ? { cursor } : {}) });
    records.push(...page.records);
    cursor = page.cursor;
  } while (cursor !== undefined);
  return records;
}

/**
 * One candidate of a filtered replay, judged on its record as the table holds it when its turn comes (a
 * consistent get), not as the listing showed it: the listing's index is eventually consistent, and a
 * rate-limited run reaches its last candidates minutes after it listed them. A record whose status is no
 * longer the filter's is refused (`status_changed`): a dead letter redriven and processed since is not
 * replayed by `--status dead-lettered`.
 */
async function replayCandidate(
  opened: ReplayTarget,
  listed: InboxRecord,
  filter: ReplayFilter,
  options: { by?: string; dryRun?: boolean },
): Promise<ReplayOutcome> {
  const record = await opened.inbox.get(listed.pk);
  if (record && filter.status !== undefined && record.status !== filter.status)
    return { kind: 'refused', reason: 'status_changed', record };
  return replayOne(opened, listed.provider, listed.dedupKey, { ...options, ...(record ? { record } : {}) });
}

/**
 * Replays every delivery the filter matches, at most `maxPerSecond` a second, each as replayOne does
 * (so each is judged on its record as it is when its turn comes, replayCandidate). Refusals are counted,
 * not thrown.
 */
export async function replayMany(
  opened: ReplayTarget,
  filter: ReplayFilter,
  options: {
    dryRun?: boolean;
    maxPerSecond?: number;
    by?: string;
    onProgress?(done: number, total: number): void;
  } = {},
): Promise<ReplaySummary> {
  const records = await matchingRecords(opened.inbox, filter);
  const summary: ReplaySummary = {
    matched: records.length,
    replayed: 0,
    refused: {},
    dryRun: options.dryRun === true,
    deliveries: [],
  };
  options.onProgress?.(0, records.length);
  const spacingMs = options.maxPerSecond ? 1000 / options.maxPerSecond : 0;
  let nextAt = Date.now();
  for (const [index, record] of records.entries()) {
    if (!options.dryRun) {
      const wait = nextAt - Date.now();
      if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
      nextAt = Math.max(nextAt, Date.now()) + spacingMs;
    }
    const outcome = await replayCandidate(opened, record, filter, {
      by: options.by,
      dryRun: options.dryRun,
    });
    if (outcome.kind === 'refused')
      summary.refused[outcome.reason] = (summary.refused[outcome.reason] ?? 0) + 1;
    else summary.replayed++;
    summary.deliveries.push({
      provider: record.provider,
      dedupKey: record.dedupKey,
      // The table's status as the replay found it, not the listing's.
      inboxStatus: outcome.record?.status ?? record.status,
      outcome: outcome.kind,
      ...(outcome.kind === 'refused' ? { reason: outcome.reason } : {}),
    });
    options.onProgress?.(index + 1, records.length);
  }
  return summary;
}
