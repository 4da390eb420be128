// The checklist in order: each check sees the results before it, so one that depends on a failed item says
// "cannot check" naming it. A check that throws where it did not expect to is "cannot check" too, with
// the reason: the doctor reports what it could not see rather than stopping.
import { describeError } from '../../shared/output';
import { type CheckResult, cannotCheck } from './checklist';
import { checkAlarm } from './checks/alarm';
import { checkConcurrency } from './checks/concurrency';
import { checkDelivery } from './checks/delivery';
import { checkDestinations } from './checks/destinations';
import { checkDlq } from './checks/dlq';
import { checkOutputs } from './checks/outputs';
import { checkResources } from './checks/resources';
import { checkSecrets } from './checks/secrets';
import type { DoctorContext } from './ports';

type Check = (ctx: DoctorContext, done: readonly CheckResult[]) => CheckResult[] | Promise<CheckResult[]>;

const CHECKS: readonly (readonly [string, Check])[] = [
  ['outputs', checkOutputs],
  ['resources', checkResources],
  ['secrets', checkSecrets],
  ['delivery', checkDelivery],
  ['alarm', checkAlarm],
  ['dlq', checkDlq],
  ['destinations', checkDestinations],
  ['concurrency', checkConcurrency],
];

export async function runChecks(
  ctx: DoctorContext,
  onResult: (result: CheckResult) => void = () => undefined,
): Promise<CheckResult[]> {
  const done: CheckResult[] = [];
  for (const [name, check] of CHECKS) {
    let results: CheckResult[];
    try {
      results = await check(ctx, done);
    } catch (error) {
      results = [cannotCheck(name, name, `the check stopped: ${describeError(error)}`)];
    }
    for (const result of results) {
      done.push(result);
      onResult(result);
    }
  }
  return done;
}
