// Whether the account's Lambda concurrency leaves room for what the verify Lambda reserves. Behind a
// function URL the reservation is the only rate cap; Lambda lets functions reserve only while a floor of
// executions stays unreserved for every other function (the processor and the forwarder among them).
import { describeError } from '../../../shared/output';
import { isAccessDenied } from '../access-denied';
import { type CheckResult, cannotCheck, fail, pass } from '../checklist';
import type { DoctorContext } from '../ports';
import { type FrontDoor, frontDoorIn, verifyFunctionIn } from './front-door';

export const CONCURRENCY = 'concurrency';
const TITLE = "the account's unreserved Lambda concurrency leaves room for the verify Lambda's reservation";

/** Lambda's documented floor: reservations must leave this many executions unreserved. */
export const MIN_UNRESERVED = 100;

/**
 * The floor in an account whose quota is `limit`: 100, or the whole quota when it is lower (a new account's
 * quota can be 10 or 50). Lambda's refusal names it: "decreases account's UnreservedConcurrentExecution
 * below its minimum value of [10]". Such an account can reserve nothing until the quota is raised.
 */
export function minUnreserved(limit: number): number {
  return Math.min(MIN_UNRESERVED, limit);
}

export interface ConcurrencyFacts {
  frontDoor: FrontDoor | undefined;
  /** The verify Lambda's reserved concurrency; undefined when it reserves none. */
  reserved: number | undefined;
  account: { limit: number; unreserved: number };
}

/** The verdict on the facts: pass, or fail with its fix. */
export function judgeConcurrency(facts: ConcurrencyFacts): CheckResult {
  const { reserved, account, frontDoor } = facts;
  const floor = minUnreserved(account.limit);
  const quota = `request a higher "Concurrent executions" quota for Lambda in Service Quotas (the account has ${account.limit})`;
  if (reserved === 0) {
    return fail(
      CONCURRENCY,
      TITLE,
      'the verify Lambda reserves 0: every request is throttled (429)',
      'redeploy with `npx cdk deploy` to restore verifyReservedConcurrency',
    );
  }
  if (reserved === undefined) {
    if (frontDoor === 'function-url') {
      const room = account.unreserved - floor;
      return fail(
        CONCURRENCY,
        TITLE,
        `the verify Lambda reserves nothing, so its function URL has no rate cap; ${Math.max(0, room)} could be reserved (Lambda keeps at least ${floor} unreserved)`,
        room > 0 ? 'redeploy with `npx cdk deploy` to restore verifyReservedConcurrency' : quota,
      );
    }
    return pass(
      CONCURRENCY,
      TITLE,
      `the verify Lambda reserves none; it shares the ${account.unreserved} unreserved of ${account.limit}`,
    );
  }
  if (account.unreserved < floor) {
    return fail(
      CONCURRENCY,
      TITLE,
      `the verify Lambda reserves ${reserved}; ${account.unreserved} of ${account.limit} are left unreserved (Lambda keeps at least ${floor})`,
      `${quota}, or lower verifyReservedConcurrency`,
    );
  }
  return pass(
    CONCURRENCY,
    TITLE,
    `the verify Lambda reserves ${reserved}; ${account.unreserved} of ${account.limit} stay unreserved`,
  );
}

export async function checkConcurrency(ctx: DoctorContext): Promise<CheckResult[]> {
  let verifyFunction: string | undefined;
  let frontDoor: FrontDoor | undefined;
  try {
    const resources = await ctx.resources();
    verifyFunction = verifyFunctionIn(resources);
    frontDoor = frontDoorIn(resources);
  } catch (error) {
    return [cannotCheck(CONCURRENCY, TITLE, `cannot list the stack's resources: ${describeError(error)}`)];
  }
  if (verifyFunction === undefined) {
    return [cannotCheck(CONCURRENCY, TITLE, "the stack's resources name no verify Lambda")];
  }
  try {
    const [reserved, account] = await Promise.all([
      ctx.lambda.reservedConcurrency(verifyFunction),
      ctx.lambda.concurrency(),
    ]);
    return [judgeConcurrency({ frontDoor, reserved, account })];
  } catch (error) {
    const grant = isAccessDenied(error)
      ? ' (grant lambda:GetAccountSettings and lambda:GetFunctionConcurrency)'
      : '';
    return [
      cannotCheck(CONCURRENCY, TITLE, `cannot read Lambda's settings${grant}: ${describeError(error)}`),
    ];
  }
}
