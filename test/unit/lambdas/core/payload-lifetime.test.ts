import { describe, expect, it } from 'vitest';
import { DLQ_RETENTION_SECONDS, payloadExpiryDays } from '../../../../config/resources';
import { PAYLOAD_REFRESH_AGE_MS, payloadNeedsRefresh } from '../../../../lambdas/core/payload-lifetime';

const DAY = 86_400_000;

describe('payloadNeedsRefresh', () => {
  it('rewrites an object older than a day, and leaves a younger one', () => {
    expect(payloadNeedsRefresh(0, DAY - 1)).toBe(false);
    expect(payloadNeedsRefresh(0, DAY + 1)).toBe(true);
  });

  it('rewrites when the store does not say when the object was written', () => {
    expect(payloadNeedsRefresh(undefined, 0)).toBe(true);
    expect(payloadNeedsRefresh(Number.NaN, 0)).toBe(true);
  });
});

describe('payload expiry against message lifetimes', () => {
  const dlqDays = DLQ_RETENTION_SECONDS / 86_400;
  const refreshDays = PAYLOAD_REFRESH_AGE_MS / DAY;

  it('outlives a message that spends its whole life in the queues, whatever the dedup TTL', () => {
    expect(payloadExpiryDays()).toBeGreaterThan(dlqDays);
  });

  it('outlives the message a redrive starts, even redriven at the last moment of the one before', () => {
    // The last receive of the previous message rewrote the object if it was older than refreshDays, so at
    // worst the object was written refreshDays before that receive; the previous message then lived at
    // most dlqDays more, and the redriven one lives at most dlqDays after its redrive.
    const worstCaseAgeAtLastNeed = refreshDays + dlqDays + dlqDays;
    expect(payloadExpiryDays()).toBeGreaterThanOrEqual(worstCaseAgeAtLastNeed);
  });
});
