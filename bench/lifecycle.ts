// Section: lifecycle. The interleaving checker (test/support/lifecycle-checker.ts) over the scenarios
// `npm test` runs, and deeper (BENCH_SCENARIOS: two crashes and two lease lapses each, two SDK retries
// where the operators do not take part). Counts states explored, and the counterexamples by kind:
// violations (none expected) and the
// double effects no protocol can avoid, which the handler's ctx.idempotencyKey exists for.
import { performance } from 'node:perf_hooks';
import {
  BENCH_SCENARIOS,
  check,
  describeCounterexample,
  NPM_TEST_SCENARIOS,
} from '../test/support/lifecycle-checker';
import { type Column, defineSection, SectionAbort } from './lib/section';

interface LifecycleRow extends Record<string, unknown> {
  scenario: string;
  states: number;
  steps: number;
  endStates: number;
  violations: number;
  counted: string;
  seconds: number;
}

const columns: Column<LifecycleRow>[] = [
  { header: 'scenario (bound)', cell: (r) => r.scenario },
  { header: 'states', cell: (r) => r.states.toLocaleString('en'), align: 'right' },
  { header: 'steps', cell: (r) => r.steps.toLocaleString('en'), align: 'right' },
  { header: 'end states', cell: (r) => r.endStates.toLocaleString('en'), align: 'right' },
  { header: 'violations', cell: (r) => String(r.violations), align: 'right' },
  { header: 'counted (unavoidable)', cell: (r) => r.counted },
  { header: 's', cell: (r) => r.seconds.toFixed(1), align: 'right' },
];

export default defineSection<LifecycleRow>({
  name: 'lifecycle',
  title: 'Lifecycle interleavings',
  async run(context) {
    const scenarios = context.quick ? NPM_TEST_SCENARIOS : { ...NPM_TEST_SCENARIOS, ...BENCH_SCENARIOS };
    const rows: LifecycleRow[] = [];
    const found: string[] = [];
    for (const [scenario, bound] of Object.entries(scenarios)) {
      context.log(`lifecycle: ${scenario}`);
      const started = performance.now();
      const result = check(bound);
      const counted = Object.entries(result.counts)
        .map(([kind, count]) => `${kind} ${count}`)
        .join(', ');
      rows.push({
        scenario,
        states: result.states,
        steps: result.transitionsTaken,
        endStates: result.terminalStates,
        violations: result.violations.length,
        counted,
        seconds: (performance.now() - started) / 1000,
      });
      found.push(...result.violations.map(describeCounterexample));
    }
    if (found.length > 0) throw new SectionAbort(`counterexamples found:\n${found.join('\n')}`);
    return {
      columns,
      rows,
      notes: [
        'Counted kinds are double effects after the effect ran and its processed mark never landed (a crash ' +
          'between them, or DynamoDB refusing the mark for a whole invocation): the next copy cannot tell the ' +
          'effect ran. After a refused mark the record also stays `processing`. A handler cut off at the deadline ' +
          'keeps running (Lambda resumes it when it reuses the environment), beyond any lease, so its effect may ' +
          "come beside the retry's. Handlers use ctx.idempotencyKey, and ctx.signal asks a cut-off one to stop.",
      ],
    };
  },
});
