// Each forward destination: its signed test event (what `destinations test` sends, judged by the
// forwarder's rules) is delivered, and an SQS or EventBridge target is in a region the forwarder reaches.
import { type ForwardDestination, forwardDestinations } from '../../../../config';
import { targetReach } from '../../../../lambdas/core/destinations/arn-region';
import { CLI } from '../../../shared/hint';
import { describeError } from '../../../shared/output';
import { isAccessDenied } from '../access-denied';
import { blockedBy, type CheckResult, cannotCheck, fail, pass, skipped } from '../checklist';
import type { DoctorContext } from '../ports';
import { isUnavailable } from '../unavailable';
import { OUTPUTS } from './outputs';

/** The ARN an SQS or EventBridge destination sends to: its queue, or its bus (the config's or the stack's). */
function targetArn(ctx: DoctorContext, destination: ForwardDestination): string | undefined {
  if (destination.type === 'sqs') return destination.queueArn;
  if (destination.type === 'eventbridge')
    return destination.busArn ?? ctx.target?.destinations[destination.id]?.busArn;
  return undefined;
}

export async function checkDestinations(
  ctx: DoctorContext,
  done: readonly CheckResult[],
): Promise<CheckResult[]> {
  const blocked = blockedBy(done, [OUTPUTS]);
  const results: CheckResult[] = [];
  for (const destination of forwardDestinations(ctx.config)) {
    const arn = targetArn(ctx, destination);
    if (arn !== undefined) results.push(regionResult(ctx, destination, arn));
    results.push(await testResult(ctx, destination, blocked));
  }
  return results;
}

/**
 * The forwarder reaches a queue or bus in any region of its own partition, through a client of that region
 * (its credentials work there); one in another partition, or a target that is not an ARN, it cannot.
 */
function regionResult(ctx: DoctorContext, destination: ForwardDestination, arn: string): CheckResult {
  const id = `destination-region:${destination.id}`;
  const kind = destination.type === 'sqs' ? 'queue' : 'bus';
  const title = `${destination.id}: its ${kind} is in a region the forwarder reaches`;
  const reach = targetReach(arn, ctx.stack.region);
  if (!reach.reachable) {
    const why =
      reach.reason === 'other_partition'
        ? `${arn} is in another partition than the stack's region ${ctx.stack.region}; the forwarder's credentials do not work there`
        : `${arn} is not an ARN with a region`;
    return fail(id, title, why, `name a ${kind} by its full ARN in the stack's partition`);
  }
  const where = reach.sameRegion
    ? `${reach.region}, the stack's region`
    : `${reach.region}; the forwarder sends from ${ctx.stack.region} with a client of ${reach.region}`;
  return pass(id, title, where);
}

async function testResult(
  ctx: DoctorContext,
  destination: ForwardDestination,
  blocked: string | undefined,
): Promise<CheckResult> {
  const id = `destination-test:${destination.id}`;
  const title = `${destination.id}: answers its signed test`;
  if (!ctx.options.delivery) return skipped(id, title, '--no-delivery');
  if (blocked !== undefined) return cannotCheck(id, title, blocked);
  if (ctx.target?.destinations[destination.id] === undefined) {
    return fail(id, title, 'the stack has no resources for it', 'deploy this cdk.json with `npx cdk deploy`');
  }
  const wrote = `one test event (type webhook-inbox.test) sent to ${destination.id}`;
  try {
    const outcome = await ctx.testDestination(destination);
    const answer =
      outcome.status === undefined
        ? (outcome.code ?? '')
        : `${outcome.status}${outcome.code ? ` ${outcome.code}` : ''}`;
    if (outcome.verdict === 'delivered')
      return pass(id, title, `delivered${answer ? ` (${answer})` : ''}`, { wrote });
    return fail(
      id,
      title,
      `${answer}: ${outcome.meaning}`,
      `see \`${CLI} destinations test ${destination.id} --stack ${ctx.stack.name}\` and docs/operations.md, "A destination is failing, or disabled"`,
      { wrote },
    );
  } catch (error) {
    if (isUnavailable(error)) {
      return cannotCheck(id, title, `the test was not answered this time: ${describeError(error)}`);
    }
    if (isAccessDenied(error)) {
      return cannotCheck(
        id,
        title,
        `this machine's credentials may not send to it (the forwarder's role may): ${describeError(error)}`,
      );
    }
    return fail(
      id,
      title,
      describeError(error),
      `see \`${CLI} destinations test ${destination.id} --stack ${ctx.stack.name}\``,
    );
  }
}
