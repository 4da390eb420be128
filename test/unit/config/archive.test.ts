// The archive's configuration (config/schema.ts) and what follows from it (config/retention.ts): the
// documented defaults as literals, the bounds, and the record's life against its dedup window.
import { describe, expect, it } from 'vitest';
import { ConfigError, parseConfig } from '../../../config';
import { archiveRetentionSeconds, dedupWindowSeconds, recordTtlSeconds } from '../../../config/retention';

const DAY = 86_400;
const stripe = { providers: { stripe: { scheme: 'stripe' } } };

describe('archive config', () => {
  it('keeps 30 days, bodies up to 3072 bytes inline, when nothing is set', () => {
    expect(parseConfig(stripe).archive).toEqual({ retentionDays: 30, inlineMaxBytes: 3072 });
  });

  it('fills in what a partial archive leaves out', () => {
    expect(parseConfig({ ...stripe, archive: { retentionDays: 0 } }).archive).toEqual({
      retentionDays: 0,
      inlineMaxBytes: 3072,
    });
  });

  it('refuses a retention over a year, a negative one, and inline bodies DynamoDB could not hold', () => {
    expect(() => parseConfig({ ...stripe, archive: { retentionDays: 366 } })).toThrow(
      /archive\.retentionDays: must be <= 365/,
    );
    expect(() => parseConfig({ ...stripe, archive: { retentionDays: -1 } })).toThrow(ConfigError);
    expect(() => parseConfig({ ...stripe, archive: { inlineMaxBytes: 400_000 } })).toThrow(
      /archive\.inlineMaxBytes: must be <= 262144/,
    );
    expect(() => parseConfig({ ...stripe, archive: { keep: true } })).toThrow(/unknown key keep/);
  });
});

describe('the record life and the dedup window', () => {
  it('lives as long as the archive, while the dedup window stays the provider’s', () => {
    const config = parseConfig(stripe);
    const provider = config.providers.stripe;
    expect(dedupWindowSeconds(config, provider)).toBe(7 * DAY);
    expect(recordTtlSeconds(config, provider)).toBe(30 * DAY);
  });

  it('lives its dedup window alone with the archive off, or when the window is longer', () => {
    const off = parseConfig({ ...stripe, archive: { retentionDays: 0 } });
    expect(archiveRetentionSeconds(off)).toBe(0);
    expect(recordTtlSeconds(off, off.providers.stripe)).toBe(7 * DAY);
    const github = parseConfig({ providers: { github: { scheme: 'github' } } });
    // GitHub signs no timestamp: its 35-day window outlasts the 30-day archive.
    expect(recordTtlSeconds(github, github.providers.github)).toBe(35 * DAY);
    expect(dedupWindowSeconds(github, github.providers.github)).toBe(35 * DAY);
  });
});
