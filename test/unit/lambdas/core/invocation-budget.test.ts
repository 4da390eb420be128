// The processor invocation's time, split once: the order of its deadlines holds for every length of
// invocation Lambda may hand out, from a near-expired one to 15 minutes.
import { describe, expect, it } from 'vitest';
import { invocationBudget } from '../../../../lambdas/core/invocation-budget';

const T0 = 1_000_000;
const LENGTHS = [1_500, 2_000, 5_000, 30_000, 60_000, 900_000];

describe('invocationBudget', () => {
  it.each(LENGTHS)(
    'orders the deadlines of a %i ms invocation: handlers, then marks, then the early answer, then Lambda',
    (remainingMs) => {
      const budget = invocationBudget({ startedMs: T0, remainingMs });
      const lambdaEnds = T0 + remainingMs;
      expect(budget.handlerDeadlineMs).toBeGreaterThanOrEqual(T0);
      expect(budget.handlerDeadlineMs).toBeLessThan(budget.marksDeadlineMs);
      // The marks stop when the chain answers early: the hand-back then owns the remaining time.
      expect(budget.marksDeadlineMs).toBe(lambdaEnds - budget.earlyTimeoutMs);
      expect(budget.handBackMs).toBeLessThan(budget.graceMs);
      expect(budget.graceMs).toBeLessThan(budget.earlyTimeoutMs);
    },
  );

  it.each(LENGTHS)(
    'keeps the lease of a %i ms invocation past the end Lambda puts to it, so no live worker loses it',
    (remainingMs) => {
      const budget = invocationBudget({ startedMs: T0, remainingMs });
      expect(T0 + budget.leaseMs).toBeGreaterThan(T0 + remainingMs);
    },
  );

  it('leaves the marks two seconds after the handlers on a long invocation, half the span on a short one', () => {
    const long = invocationBudget({ startedMs: T0, remainingMs: 30_000 });
    expect(long.marksDeadlineMs - long.handlerDeadlineMs).toBe(2_000);
    const short = invocationBudget({ startedMs: T0, remainingMs: 2_000 });
    expect(short.marksDeadlineMs - short.handlerDeadlineMs).toBe((short.marksDeadlineMs - T0) / 2);
  });

  it('takes a lease margin where the composition root sets one', () => {
    expect(invocationBudget({ startedMs: T0, remainingMs: 10_000, leaseMarginMs: 1 }).leaseMs).toBe(10_001);
  });
});
