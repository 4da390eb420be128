// The archive's cost arithmetic (bench/lib/archive-cost.ts), on the price file's figures: the crossover
// the default archive.inlineMaxBytes is chosen from, and that inline is the cheaper side below it.
import { describe, expect, it } from 'vitest';
import {
  type ArchivePrices,
  type ArchiveShape,
  inlineCost,
  inlineCrossoverBytes,
  objectCost,
} from '../../../bench/lib/archive-cost';
import { ARCHIVE_DEFAULTS } from '../../../config/schema';

// us-east-1 on-demand, as bench/data/aws-prices.json has them; PITR on (the stack's default).
const PRICES: ArchivePrices = {
  wru: 0.625 / 1e6,
  dynamodbGbMonth: 0.25 + 0.2,
  s3Put: 0.005 / 1000,
  s3GbMonth: 0.023,
};
const SHAPE: ArchiveShape = { retentionDays: 30, recordBytes: 600, laterWrites: 2, dedupDays: 7 };

describe('the archive cost', () => {
  it('keeps a body inline up to about 3.4 KB, and the default inlineMaxBytes is under it', () => {
    const crossover = inlineCrossoverBytes(SHAPE, PRICES);
    expect(crossover).toBeGreaterThan(3000);
    expect(crossover).toBeLessThan(3600);
    expect(ARCHIVE_DEFAULTS.inlineMaxBytes).toBeLessThanOrEqual(crossover);
  });

  it('makes inline cheaper below the crossover and dearer above it', () => {
    const crossover = inlineCrossoverBytes(SHAPE, PRICES);
    expect(inlineCost(crossover, SHAPE, PRICES)).toBeLessThanOrEqual(objectCost(crossover, SHAPE, PRICES));
    expect(inlineCost(crossover + 1024, SHAPE, PRICES)).toBeGreaterThan(
      objectCost(crossover + 1024, SHAPE, PRICES),
    );
  });

  it('moves the crossover down with every further write to the record (a retry, a destination)', () => {
    const more = inlineCrossoverBytes({ ...SHAPE, laterWrites: 3 }, PRICES);
    expect(more).toBeLessThan(inlineCrossoverBytes(SHAPE, PRICES));
  });
});
