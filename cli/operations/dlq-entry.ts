// What the DLQ tools show of a dead-lettered message: its envelope facts and attributes, and the inbox
// record's error code and status, never the payload. Shared by `dlq list|show` and `dlq redrive`.
import pc from 'picocolors';
import type { DynamoInbox } from '../../lambdas/adapters/dynamo-inbox';
import type { ReceivedMessage } from '../../lambdas/adapters/sqs-queue-ops';
import { attemptEntries } from '../../lambdas/core/attempt-log';
import { forwardStatesOf } from '../../lambdas/core/destinations/forward-state';
import { dash, formatAge, table, truncate } from '../shared/output';

/** What the DLQ tools show of a message: its attributes and envelope facts, never the payload. */
export interface DlqEntry {
  messageId: string;
  provider?: string;
  eventType?: string;
  dedupKey?: string;
  deliveryId?: string;
  /**
   * Why the processor gave it up: the inbox record's last error code (a permanent error such as
   * `schema_mismatch`, or the transient one that failed the last receive). Older messages may carry it as
   * a message attribute instead.
   */
  errorCode?: string;
  /** The record's `lastErrorDetail` for that code: schema_mismatch's fields and zod issue codes, no values. */
  errorDetail?: string;
  /** The inbox record's status, when it was looked up. */
  inboxStatus?: string;
  /** SQS's ApproximateReceiveCount: every receive, on the main queue and in the DLQ (each peek adds one). */
  receiveCount: number;
  /** The receive on which the processor gave the delivery up (the record's attempt log), when known. */
  givenUpAtReceive?: number;
  sentAt?: string;
  ageSeconds?: number;
  payloadBytes?: number;
  payloadSha256?: string;
  /** `inline` or the S3 reference of a large body. */
  payloadLocation: string;
}

export const str = (value: unknown) => (typeof value === 'string' && value !== '' ? value : undefined);

export function envelopeOf(message: ReceivedMessage): Record<string, unknown> {
  try {
    const parsed = JSON.parse(message.body);
    return typeof parsed === 'object' && parsed !== null ? parsed : {};
  } catch {
    return {};
  }
}

export function describeMessage(message: ReceivedMessage, nowMs = Date.now()): DlqEntry {
  const envelope = envelopeOf(message);
  const attributes = message.attributes;
  return {
    messageId: message.messageId,
    provider: attributes.provider ?? str(envelope.provider),
    eventType: attributes.eventType ?? str(envelope.type),
    dedupKey: attributes.dedupKey ?? str(envelope.dedupkey),
    deliveryId: str(envelope.deliveryid),
    errorCode: attributes.errorCode,
    receiveCount: message.receiveCount,
    sentAt: message.sentAtMs ? new Date(message.sentAtMs).toISOString() : undefined,
    ageSeconds: message.sentAtMs ? Math.max(0, Math.round((nowMs - message.sentAtMs) / 1000)) : undefined,
    payloadBytes: typeof envelope.payloadbytes === 'number' ? envelope.payloadbytes : undefined,
    payloadSha256: str(envelope.payloadsha256),
    payloadLocation: str(envelope.dataref) ?? (str(envelope.data_base64) !== undefined ? 'inline' : 'none'),
  };
}

/** The entry's error code for a table cell: a record or an attribute may hold any text, so it is escaped. */
export const errorLabel = (entry: DlqEntry) => (entry.errorCode ? dash(entry.errorCode) : pc.dim('unknown'));

/**
 * Adds the inbox record's error code and status to each entry, a few lookups at a time; for a
 * destination's DLQ, those of the delivery's history at that destination.
 */
export async function withInboxFacts(
  inbox: DynamoInbox,
  entries: DlqEntry[],
  destination?: string,
): Promise<DlqEntry[]> {
  const out: DlqEntry[] = [];
  for (let start = 0; start < entries.length; start += 10) {
    const slice = entries.slice(start, start + 10);
    out.push(
      ...(await Promise.all(
        slice.map(async (entry) => {
          if (!entry.provider || !entry.dedupKey) return entry;
          const record = await inbox.get(`${entry.provider}#${entry.dedupKey}`);
          if (destination !== undefined) {
            const history = record
              ? forwardStatesOf(record).find((s) => s.destination === destination)
              : undefined;
            return { ...entry, errorCode: history?.lastErrorCode, inboxStatus: history?.state };
          }
          // The record's code first: the message attribute is what older versions wrote, and anyone who can
          // send to the queue can set one.
          const errorCode = record?.lastErrorCode ?? entry.errorCode;
          const givenUp = attemptEntries(record?.attemptLog)
            .filter((attempt) => attempt.outcome === 'dead-lettered')
            .at(-1)?.receiveCount;
          const errorDetail = errorCode === record?.lastErrorCode ? record?.lastErrorDetail : undefined;
          return {
            ...entry,
            errorCode,
            ...(errorDetail === undefined ? {} : { errorDetail }),
            ...(givenUp === undefined ? {} : { givenUpAtReceive: givenUp }),
            inboxStatus: record?.status,
          };
        }),
      )),
    );
  }
  return out;
}

/** Given up before the receive on which the redrive policy moves a message: it waited on the queue since. */
function givenUpEarly(entry: DlqEntry, maxReceives: number | undefined): boolean {
  return (
    maxReceives !== undefined && entry.givenUpAtReceive !== undefined && entry.givenUpAtReceive < maxReceives
  );
}

/** The receive count as `dlq show` prints it: with what it is made of, where the record tells. */
export function receivesText(entry: DlqEntry, maxReceives: number | undefined): string {
  const explained = `SQS moves a message to the DLQ after ${maxReceives} receives, and each look at the DLQ adds one`;
  if (givenUpEarly(entry, maxReceives))
    return `${entry.receiveCount} (dead-lettered at receive ${entry.givenUpAtReceive}; ${explained})`;
  return maxReceives === undefined ? String(entry.receiveCount) : `${entry.receiveCount} (${explained})`;
}

/**
 * Under `dlq list`'s table, once: why a delivery dead-lettered at once shows many receives. Nothing when
 * no entry was given up early.
 */
export function receivesNote(
  entries: readonly DlqEntry[],
  maxReceives: number | undefined,
): string | undefined {
  if (!entries.some((entry) => givenUpEarly(entry, maxReceives))) return undefined;
  return (
    `receives: SQS's count, on the main queue and here. A delivery given up early (a permanent error) stays ` +
    `on the main queue until receive ${maxReceives}, when the redrive policy moves it; each look at the DLQ ` +
    'adds one more.'
  );
}

export function entriesTable(entries: DlqEntry[], maxReceives?: number): string {
  return table(
    ['message id', 'provider', 'event', 'dedup key', 'error', 'receives', 'age'],
    entries.map((e) => [
      e.messageId,
      dash(e.provider),
      dash(e.eventType),
      e.dedupKey ? truncate(e.dedupKey, 36) : pc.dim('-'),
      errorLabel(e),
      givenUpEarly(e, maxReceives)
        ? `${e.receiveCount} (given up at ${e.givenUpAtReceive})`
        : String(e.receiveCount),
      e.ageSeconds === undefined ? pc.dim('-') : formatAge(e.ageSeconds * 1000),
    ]),
  );
}
