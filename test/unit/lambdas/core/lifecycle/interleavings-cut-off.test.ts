// The cut-off excuse covers only what the cut-off handler causes: its own late effect beside another. A
// double effect between two workers that both hold a live lease is the protocol's to prevent, cut-off or
// not, and the search must still report it in the cut-off scenario.
import { describe, expect, it } from 'vitest';
import { all, any, exists, ne } from '../../../../../lambdas/core/lifecycle/expression';
import { TRANSITIONS } from '../../../../../lambdas/core/lifecycle/transitions';
import {
  check,
  describeCounterexample,
  NPM_TEST_SCENARIOS,
} from '../../../../../test/support/lifecycle-checker';

const CUT_OFF_SCENARIO = Object.entries(NPM_TEST_SCENARIOS).find(([, bound]) => bound.cutOffs > 0);

describe('lifecycle interleavings after a handler is cut off', () => {
  it('reports two live leases running the effect as effect_twice, not as the cut-off handler’s', () => {
    const lease = TRANSITIONS.lease;
    // A broken lease: a record that failed once may be leased over another worker's live lease. It is
    // reached in this scenario only through the cut-off's failure mark, but the cut-off handler takes no
    // part in the double effect it lets through.
    const overLiveLease = {
      ...lease,
      condition: (p: Parameters<typeof lease.condition>[0]) =>
        any(lease.condition(p), all(exists('lastErrorCode'), ne('status', 'processed'))),
    };
    expect(CUT_OFF_SCENARIO).toBeDefined();
    const [, bound] = CUT_OFF_SCENARIO as [string, (typeof NPM_TEST_SCENARIOS)[string]];
    const result = check(bound, { transitions: { lease: overLiveLease as typeof lease } });
    const twice = result.violations.filter((v) => v.kind === 'effect_twice');
    for (const example of result.excused) console.log(describeCounterexample(example));
    expect(twice.length).toBeGreaterThan(0);
    for (const example of twice)
      expect(example.steps.some((s) => s.startsWith('a cut-off handler resumes'))).toBe(false);
  }, 180_000);
});

describe('a cut-off handler that finishes before the retry leases', () => {
  it('leaves no double effect: its effect done, the retry could find the record processed', () => {
    const [, bound] = CUT_OFF_SCENARIO as [string, (typeof NPM_TEST_SCENARIOS)[string]];
    const result = check(bound, { maxCounterexamples: 100_000 });
    // The cut-off handler finished and marked its success late before any worker leased the record again:
    // the retry finds the delivery processed and runs nothing.
    const settledFirst = result.excused.filter((example) => {
      const marked = example.steps.findIndex((s) => s.includes('its late processed mark'));
      const failed = example.steps.findIndex((s) => s.endsWith('marks the failure'));
      const leasedAgain = example.steps.findIndex((s, i) => i > failed && s.endsWith(' lease'));
      return (
        example.kind === 'effect_twice_after_cut_off' &&
        marked >= 0 &&
        (leasedAgain < 0 || marked < leasedAgain)
      );
    });
    for (const example of settledFirst.slice(0, 2)) console.log(describeCounterexample(example));
    expect(settledFirst).toEqual([]);
  }, 180_000);
});
