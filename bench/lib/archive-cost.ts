// What the archive costs (docs/archive-and-replay.md), from the price file: per GB-month where the bytes
// live, per million deliveries at a body size, and the body size where keeping it inline in the record
// stops being cheaper than an S3 object (archive.inlineMaxBytes is chosen from it). Pure arithmetic.

import { GB, MONTH_DAYS } from './cost-lines';

const KB = 1024;

export interface ArchivePrices {
  /** USD per write request unit (1 KB of item, on-demand). */
  wru: number;
  /** USD per GB-month of table storage, PITR included when it is on. */
  dynamodbGbMonth: number;
  s3Put: number;
  s3GbMonth: number;
}

export interface ArchiveShape {
  retentionDays: number;
  /** The record's size without the body, bytes. */
  recordBytes: number;
  /**
   * Writes to the record from the lease on, each charged on the larger of the item before and after it:
   * the lease (which writes the body) and the processed mark, 2; a retry or a destination adds one each.
   */
  laterWrites: number;
  /** How long the record lived before the archive (its dedup window), days. */
  dedupDays: number;
}

function wruOf(bytes: number): number {
  return Math.max(1, Math.ceil(bytes / KB));
}

/** USD per delivery to keep a body of `bodyBytes` inline in the record, beyond the record itself. */
export function inlineCost(bodyBytes: number, shape: ArchiveShape, prices: ArchivePrices): number {
  const extraWru = shape.laterWrites * (wruOf(shape.recordBytes + bodyBytes) - wruOf(shape.recordBytes));
  return (
    extraWru * prices.wru + (bodyBytes / GB) * (shape.retentionDays / MONTH_DAYS) * prices.dynamodbGbMonth
  );
}

/** USD per delivery to keep it as an object of its own: a PUT, the write naming it, its storage. */
export function objectCost(bodyBytes: number, shape: ArchiveShape, prices: ArchivePrices): number {
  return (
    prices.s3Put +
    wruOf(shape.recordBytes) * prices.wru +
    (bodyBytes / GB) * (shape.retentionDays / MONTH_DAYS) * prices.s3GbMonth
  );
}

/** The largest body, in bytes, that is no dearer inline than as an object (searched by KB steps' edges). */
export function inlineCrossoverBytes(shape: ArchiveShape, prices: ArchivePrices): number {
  let bytes = 0;
  while (bytes < 400 * KB && inlineCost(bytes + 1, shape, prices) <= objectCost(bytes + 1, shape, prices))
    bytes++;
  return bytes;
}

/** USD per delivery for the record living the archive's retention rather than its dedup window. */
export function longerRecordCost(shape: ArchiveShape, prices: ArchivePrices): number {
  const extraDays = Math.max(0, shape.retentionDays - shape.dedupDays);
  return (shape.recordBytes / GB) * (extraDays / MONTH_DAYS) * prices.dynamodbGbMonth;
}

/** The cost model's line for the archive: per GB-month, per million deliveries, and the crossover. */
export function archiveNote(input: {
  archive: { retentionDays: number; inlineMaxBytes: number };
  recordBytes: number;
  dedupDays: number;
  pitr: boolean;
  prices: { wru: number; dynamodbStorage: number; dynamodbPitr: number; s3Put: number; s3GbMonth: number };
}): string {
  const { archive, prices } = input;
  const tableGbMonth = prices.dynamodbStorage + (input.pitr ? prices.dynamodbPitr : 0);
  const priced: ArchivePrices = {
    wru: prices.wru,
    dynamodbGbMonth: tableGbMonth,
    s3Put: prices.s3Put,
    s3GbMonth: prices.s3GbMonth,
  };
  const shape: ArchiveShape = {
    retentionDays: archive.retentionDays,
    recordBytes: input.recordBytes,
    laterWrites: 2,
    dedupDays: input.dedupDays,
  };
  if (archive.retentionDays === 0) return 'Archive: off (archive.retentionDays 0), nothing kept.';
  const perMillion = (usd: number) => `$${(usd * 1e6).toFixed(2)}`;
  const crossover = inlineCrossoverBytes(shape, priced);
  return (
    `Archive (archive.retentionDays ${archive.retentionDays} d, inlineMaxBytes ${archive.inlineMaxBytes} B): ` +
    `kept bytes cost $${tableGbMonth.toFixed(3)}/GB-month in the table${input.pitr ? ' (storage + PITR)' : ''} and ` +
    `$${prices.s3GbMonth.toFixed(3)}/GB-month in S3. Per million deliveries: every record living ` +
    `${archive.retentionDays} d instead of its ${input.dedupDays} d dedup window (${input.recordBytes} B) ` +
    `${perMillion(longerRecordCost(shape, priced))}; a 1 KiB body inline ${perMillion(inlineCost(1024, shape, priced))} ` +
    `(its WRU on the lease and the processed mark, and its storage; in the lines above); a 16 KiB body as an ` +
    `archive/ object ${perMillion(objectCost(16 * 1024, shape, priced))} (a PUT, the write naming it, storage); a body ` +
    `over the inline limit reuses verify's object (no request more; its lifecycle is the retention if longer). Inline is the cheaper side up to ${crossover} B with two writes to the record after the lease; ` +
    `${inlineCrossoverBytes({ ...shape, laterWrites: 3 }, priced)} B with three (a retry, a destination).`
  );
}
