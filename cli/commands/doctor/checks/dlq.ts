// The dead-letter queue's redrive: the main queue sends its failures to the DLQ, the DLQ's redrive allow
// policy lets the main queue be a source (SQS's move task needs it), and the CLI can reach the move task
// API. SQS has no dry run for StartMessageMoveTask: ListMessageMoveTasks on the DLQ is the closest check
// that writes nothing, so the result says the start itself was not tried.
import { describeError } from '../../../shared/output';
import { isAccessDenied } from '../access-denied';
import { blockedBy, type CheckResult, cannotCheck, fail, pass } from '../checklist';
import type { DoctorContext } from '../ports';
import { OUTPUTS } from './outputs';

export const DLQ_POLICY = 'dlq:policy';
export const DLQ_MOVE = 'dlq:move';
const POLICY_TITLE = "the DLQ's redrive allow policy names the main queue";
const MOVE_TITLE = 'the CLI can list DLQ move tasks (the dry check for starting one)';
const REDEPLOY =
  'redeploy with `npx cdk deploy` (the stack sets both policies), or fix them in the SQS console';

interface AllowPolicy {
  redrivePermission?: unknown;
  sourceQueueArns?: unknown;
}

/** What the two policies mean for a redrive from `dlqArn` back to `queueArn`; undefined when they allow it. */
export function redriveProblem(
  policies: { redrivePolicy?: string; redriveAllowPolicy?: string },
  queues: { queueArn: string; dlqArn: string },
): string | undefined {
  let target: unknown;
  try {
    target = policies.redrivePolicy
      ? (JSON.parse(policies.redrivePolicy) as { deadLetterTargetArn?: unknown }).deadLetterTargetArn
      : undefined;
  } catch {
    return "the main queue's RedrivePolicy is not JSON";
  }
  if (target !== queues.dlqArn) {
    return target === undefined
      ? 'the main queue has no redrive policy: failures never reach the DLQ'
      : `the main queue dead-letters to ${String(target)}, not to ${queues.dlqArn}`;
  }
  // No allow policy at all is SQS's default: every queue may use the DLQ.
  if (policies.redriveAllowPolicy === undefined) return undefined;
  let allow: AllowPolicy;
  try {
    allow = JSON.parse(policies.redriveAllowPolicy) as AllowPolicy;
  } catch {
    return "the DLQ's RedriveAllowPolicy is not JSON";
  }
  if (allow.redrivePermission === 'allowAll') return undefined;
  if (allow.redrivePermission === 'denyAll') return "the DLQ's redrive allow policy is denyAll";
  const sources = Array.isArray(allow.sourceQueueArns) ? allow.sourceQueueArns : [];
  if (allow.redrivePermission === 'byQueue' && sources.includes(queues.queueArn)) return undefined;
  return `the DLQ's redrive allow policy does not name ${queues.queueArn}`;
}

export async function checkDlq(ctx: DoctorContext, done: readonly CheckResult[]): Promise<CheckResult[]> {
  const blocked = blockedBy(done, [OUTPUTS]);
  const target = ctx.target;
  if (blocked !== undefined || target === undefined) {
    const why = blocked ?? 'no target';
    return [cannotCheck(DLQ_POLICY, POLICY_TITLE, why), cannotCheck(DLQ_MOVE, MOVE_TITLE, why)];
  }
  return [await checkPolicy(ctx, target), await checkMove(ctx)];
}

async function checkPolicy(
  ctx: DoctorContext,
  target: NonNullable<DoctorContext['target']>,
): Promise<CheckResult> {
  let policies: Awaited<ReturnType<DoctorContext['redrive']['policies']>>;
  try {
    policies = await ctx.redrive.policies();
  } catch (error) {
    return cannotCheck(
      DLQ_POLICY,
      POLICY_TITLE,
      `cannot read the queues' attributes${isAccessDenied(error) ? ' (grant sqs:GetQueueAttributes)' : ''}: ${describeError(error)}`,
    );
  }
  const problem = redriveProblem(policies, target);
  if (problem !== undefined) return fail(DLQ_POLICY, POLICY_TITLE, problem, REDEPLOY);
  return pass(
    DLQ_POLICY,
    POLICY_TITLE,
    policies.redriveAllowPolicy === undefined
      ? 'the main queue dead-letters to the DLQ; the DLQ has no allow policy, so SQS allows every source'
      : 'the main queue dead-letters to the DLQ, and the DLQ allows the main queue as a source',
  );
}

async function checkMove(ctx: DoctorContext): Promise<CheckResult> {
  try {
    const latest = await ctx.redrive.latestMove();
    const running =
      latest?.status === 'RUNNING' ? '; a task is running now, so a new one is refused until it ends' : '';
    return pass(
      DLQ_MOVE,
      MOVE_TITLE,
      `ListMessageMoveTasks answered (latest task: ${latest?.status ?? 'none'})${running}. Not started: SQS has no dry run for StartMessageMoveTask`,
    );
  } catch (error) {
    if (isAccessDenied(error)) {
      return fail(
        DLQ_MOVE,
        MOVE_TITLE,
        `refused: ${describeError(error)}`,
        "grant this machine's credentials sqs:ListMessageMoveTasks and sqs:StartMessageMoveTask on the DLQ (and sqs:ReceiveMessage, sqs:DeleteMessage, sqs:GetQueueAttributes on it, sqs:SendMessage on the main queue)",
      );
    }
    return cannotCheck(DLQ_MOVE, MOVE_TITLE, `ListMessageMoveTasks failed: ${describeError(error)}`);
  }
}
