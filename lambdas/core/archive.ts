// Where the archive keeps a delivery's bytes (docs/archive-and-replay.md), decided from the envelope alone
// so the processor can write the small and the already-stored cases with the lease itself, at no extra
// write: inline in the record, the payload object verify wrote, or (large bodies that came inline) an
// object of its own under `archive/`, which the payload bucket's lifecycle expires after the retention.
import type { Config } from '../../config';
import type { Envelope } from './envelope';

/** What the lease writes onto the record (each only if the record does not hold it yet). */
export interface ArchiveFacts {
  archivedAt: string;
  archiveContentType: string;
  occurredAt?: string;
  /** base64 of the body: kept in the record. */
  archiveBody?: string;
  /** `s3://` reference: kept in the payload bucket. */
  archiveRef?: string;
}

export type ArchivePlan =
  /** Written with the lease. */
  | { kind: 'with_lease'; facts: ArchiveFacts }
  /** Written after the lease: the object first, then the record names it (core/process-record.ts). */
  | { kind: 'object'; key: string; facts: Omit<ArchiveFacts, 'archiveRef'> };

/** The archive's content-addressed key, per provider (as payloads/ is) so a provider's bytes share a prefix. */
export function archiveKey(provider: string, payloadSha256: string): string {
  return `archive/${provider}/${payloadSha256}`;
}

export const ARCHIVE_PREFIX = 'archive/';

/** How the delivery's bytes are archived, or undefined when the archive is off (retention 0). */
export function archivePlan(
  config: Pick<Config, 'archive'>,
  envelope: Envelope,
  nowMs: number,
): ArchivePlan | undefined {
  if (config.archive.retentionDays <= 0) return undefined;
  const common = {
    archivedAt: new Date(nowMs).toISOString(),
    archiveContentType: envelope.datacontenttype,
    ...(envelope.occurredat === undefined ? {} : { occurredAt: envelope.occurredat }),
  };
  // The object verify wrote lives at least as long as the archive (config/resources.ts payloadExpiryDays).
  if (envelope.dataref !== undefined)
    return { kind: 'with_lease', facts: { ...common, archiveRef: envelope.dataref } };
  const base64 = envelope.data_base64 ?? '';
  if (base64ByteLength(base64) <= config.archive.inlineMaxBytes)
    return { kind: 'with_lease', facts: { ...common, archiveBody: base64 } };
  return { kind: 'object', key: archiveKey(envelope.provider, envelope.payloadsha256), facts: common };
}

/** The decoded length of base64 text, without decoding it. */
function base64ByteLength(base64: string): number {
  const padding = base64.endsWith('==') ? 2 : base64.endsWith('=') ? 1 : 0;
  return Math.floor((base64.length * 3) / 4) - padding;
}
