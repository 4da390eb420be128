// The bounded interleaving search over one delivery's lifecycle (test/support/lifecycle-checker.ts): every
// order of the actors and faults each scenario names, checked after every step. `npm run bench -- --only
// lifecycle` runs the same scenarios with two faults of each kind.
import { describe, expect, it } from 'vitest';
import { all, eq } from '../../../../../lambdas/core/lifecycle/expression';
import { TRANSITIONS } from '../../../../../lambdas/core/lifecycle/transitions';
import {
  check,
  describeCounterexample,
  NPM_TEST_SCENARIOS,
} from '../../../../../test/support/lifecycle-checker';

/**
 * The double effects no protocol can avoid, counted rather than failed: the effect ran and the record
 * could not say so (a crash between the effect and its mark, or DynamoDB refusing the mark for the whole
 * invocation), so the next copy cannot tell it ran. The handler's `ctx.idempotencyKey` exists for these.
 * After a refused mark the record also stays `processing` (its lease lapsed) though the effect ran. And a
 * handler cut off at the deadline keeps running: no lease covers a promise that Lambda freezes with its
 * environment and resumes whenever it reuses it, so its effect may come beside the retry's (`ctx.signal`
 * asks it to stop).
 */
const EXCUSED = new Set([
  'effect_twice_after_crash',
  'effect_twice_after_cut_off',
  'effect_twice_after_mark_refused',
  'record_behind_after_mark_refused',
]);

describe('lifecycle interleavings: nothing answered 2xx is lost, no effect runs twice but after a crash, no conflict is 202, processed stays processed', () => {
  it.each(Object.entries(NPM_TEST_SCENARIOS))(
    '%s',
    (name, bound) => {
      const result = check(bound);
      console.log(
        `${name}: ${result.states} states, ${result.transitionsTaken} steps, ${result.terminalStates} end states; ` +
          `counted: ${JSON.stringify(result.counts)}`,
      );
      for (const example of result.violations) console.log(describeCounterexample(example));
      expect(result.violations.map(describeCounterexample)).toEqual([]);
      expect(Object.keys(result.counts).filter((kind) => !EXCUSED.has(kind))).toEqual([]);
      // The search went somewhere: every scenario reaches end states where the delivery was processed
      // (a kernel whose lease never applied would end every path in the DLQ, which is not "lost").
      expect(result.processedEndStates).toBeGreaterThan(0);
    },
    180_000,
  );

  it('finds the double effect when the lease stops respecting a live lease (the search can fail)', () => {
    const careless = {
      ...TRANSITIONS.lease,
      // Only the bytes are checked: a live worker's lease is taken away.
      condition: (p: Parameters<typeof TRANSITIONS.lease.condition>[0]) =>
        all(eq('payloadSha256', p.payloadSha256)),
    };
    const result = check(NPM_TEST_SCENARIOS[Object.keys(NPM_TEST_SCENARIOS)[1] as string] as never, {
      transitions: { lease: careless as typeof TRANSITIONS.lease },
    });
    const kinds = result.violations.map((v) => v.kind);
    expect(kinds).toContain('effect_twice');
    console.log(describeCounterexample(result.violations.find((v) => v.kind === 'effect_twice') as never));
  }, 180_000);
});
