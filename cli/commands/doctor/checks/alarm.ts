// Whether an alarm can notify: one of the stack's alarms is set (SetAlarmState) to the state whose actions
// publish to the SNS topic, CloudWatch's history is read for that action's success or failure, and the
// alarm is put back unless its own evaluation already has. A denied call makes this "cannot check": it
// says nothing about the topic.
import { describeError } from '../../../shared/output';
import { isAccessDenied } from '../access-denied';
import { type CheckResult, cannotCheck, fail, pass, skipped } from '../checklist';
import type { AlarmActionRecord, AlarmState, AlarmSummary, DoctorContext } from '../ports';
import { alarmNamesIn } from './front-door';

export const ALARM = 'alarm';
const TITLE = 'an alarm can notify its SNS topic';
const REASON = 'webhook-inbox doctor: checking that this alarm can notify (put back at once)';
const PUT_BACK_REASON = 'webhook-inbox doctor: put back after the notification check';

const isTopic = (arn: string) => /^arn:aws[a-z-]*:sns:/.test(arn);

export interface AlarmDrill {
  alarm: string;
  /** The state to set: its actions include the topic. */
  to: AlarmState;
  /** The state to put back. */
  from: AlarmState;
  topic: string;
}

/**
 * The alarm to drill and the state to set. Setting the state it is in runs no action, so an alarm not in
 * ALARM is set to ALARM (its alarm actions); failing that, one in ALARM is set to OK (its OK actions).
 */
export function chooseDrill(alarms: readonly AlarmSummary[]): AlarmDrill | undefined {
  const enabled = alarms.filter((a) => a.actionsEnabled);
  for (const alarm of enabled) {
    const topic = alarm.alarmActions.find(isTopic);
    if (alarm.state !== 'ALARM' && topic) return { alarm: alarm.name, to: 'ALARM', from: alarm.state, topic };
  }
  for (const alarm of enabled) {
    const topic = alarm.okActions.find(isTopic);
    if (alarm.state === 'ALARM' && topic) return { alarm: alarm.name, to: 'OK', from: 'ALARM', topic };
  }
  return undefined;
}

export type ActionOutcome = { ok: true } | { ok: false; error: string };

/**
 * The summary CloudWatch writes for an action: `Successfully executed action <arn>`, or `Failed to execute
 * action <arn>. Received error: "<what SNS said>"` (the form AWS's knowledge center quotes for a topic
 * policy that refuses the alarm). The ARN ends at a space, or at the full stop before one.
 */
const SUMMARY =
  /^(Successfully executed|Failed to execute) action (arn:\S+?)(?=\.?(?:\s|$))(?:\.\s*Received error:\s*(.*))?/s;

/** SNS's error without the quotes CloudWatch puts around it (the closing one is lost to a cut summary). */
const unquote = (text: string) => text.trim().replace(/^"/, '').replace(/"$/, '');

/**
 * The outcome of the topic's action among an alarm's history items, if CloudWatch has recorded one. The
 * summary is what AWS documents; HistoryData's JSON (`actionState`, `notificationResource`) is read as
 * well where it is there, its shape being undocumented. The topic must be the action's whole ARN: a
 * second topic on the same alarm whose ARN begins with this one's is another topic.
 */
export function actionOutcome(
  records: readonly AlarmActionRecord[],
  topic: string,
): ActionOutcome | undefined {
  for (const record of records) {
    let data: { actionState?: unknown; notificationResource?: unknown; error?: unknown } = {};
    try {
      data = JSON.parse(record.data) as typeof data;
    } catch {
      // Not JSON: the summary alone says what happened.
    }
    const summary = SUMMARY.exec(record.summary);
    const arn = typeof data.notificationResource === 'string' ? data.notificationResource : summary?.[2];
    if (arn !== topic) continue;
    if (data.actionState === 'Succeeded' || summary?.[1] === 'Successfully executed') return { ok: true };
    if (data.actionState === 'Failed' || summary?.[1] === 'Failed to execute') {
      const received = summary?.[3] ? unquote(summary[3]) : undefined;
      return {
        ok: false,
        error: typeof data.error === 'string' ? data.error : (received ?? record.summary),
      };
    }
  }
  return undefined;
}

export async function checkAlarm(ctx: DoctorContext): Promise<CheckResult[]> {
  if (!ctx.options.alarm) return [skipped(ALARM, TITLE, '--skip-alarm')];
  let alarms: AlarmSummary[];
  try {
    alarms = await ctx.alarms.describe(alarmNamesIn(await ctx.resources()));
  } catch (error) {
    return [cannotCheck(ALARM, TITLE, `cannot list the stack's alarms: ${describeError(error)}`)];
  }
  const drill = chooseDrill(alarms);
  if (drill === undefined) {
    return [
      fail(
        ALARM,
        TITLE,
        alarms.length === 0
          ? 'the stack has no alarms'
          : 'no alarm with actions enabled publishes to an SNS topic',
        'redeploy with `npx cdk deploy`; alarms notify the alarm topic (alarmTopic / alarmEmail)',
      ),
    ];
  }
  const sinceMs = ctx.clock.nowMs();
  try {
    await ctx.alarms.setState(drill.alarm, drill.to, REASON);
  } catch (error) {
    return [
      isAccessDenied(error)
        ? cannotCheck(
            ALARM,
            TITLE,
            `SetAlarmState refused (grant cloudwatch:SetAlarmState): ${describeError(error)}`,
          )
        : cannotCheck(ALARM, TITLE, `SetAlarmState failed: ${describeError(error)}`),
    ];
  }
  let outcome: ActionOutcome | undefined;
  let readError: unknown;
  let putBack: string;
  try {
    outcome = await waitForAction(ctx, drill, sinceMs);
  } catch (error) {
    readError = error;
  } finally {
    putBack = await putAlarmBack(ctx, drill);
  }
  const extra = {
    wrote: `set alarm ${drill.alarm} to ${drill.to} (its subscribers are notified), ${putBack}`,
  };
  if (readError !== undefined) {
    const denied = isAccessDenied(readError) ? ' (grant cloudwatch:DescribeAlarmHistory)' : '';
    return [
      cannotCheck(
        ALARM,
        TITLE,
        `cannot read the alarm's history${denied}: ${describeError(readError)}`,
        extra,
      ),
    ];
  }
  if (outcome === undefined) {
    return [
      cannotCheck(
        ALARM,
        TITLE,
        `CloudWatch recorded no action on ${drill.topic} within ${Math.round(ctx.timing.alarmWaitMs / 1000)}s`,
        extra,
      ),
    ];
  }
  if (!outcome.ok) {
    return [
      fail(
        ALARM,
        TITLE,
        `${drill.alarm}: publishing to ${drill.topic} failed: ${outcome.error}`,
        "let CloudWatch publish: the topic's access policy must allow cloudwatch.amazonaws.com sns:Publish, and a KMS-encrypted topic's key must let CloudWatch use it",
        extra,
      ),
    ];
  }
  // The action found may be the one of the alarm's own evaluation back to its real state, run seconds
  // after the drilled one: either is CloudWatch publishing to the topic, so neither is named.
  return [
    pass(ALARM, TITLE, `${drill.alarm}: CloudWatch published to ${drill.topic} (set to ${drill.to})`, extra),
  ];
}

async function waitForAction(
  ctx: DoctorContext,
  drill: AlarmDrill,
  sinceMs: number,
): Promise<ActionOutcome | undefined> {
  const deadline = ctx.clock.nowMs() + ctx.timing.alarmWaitMs;
  // A little slack for this machine's clock against CloudWatch's; not more, or an earlier run's action
  // on the same alarm would be taken for this one's.
  const from = sinceMs - 5_000;
  for (;;) {
    const outcome = actionOutcome(await ctx.alarms.actionsSince(drill.alarm, from), drill.topic);
    if (outcome !== undefined || ctx.clock.nowMs() >= deadline) return outcome;
    await ctx.clock.sleep(ctx.timing.alarmPollMs);
  }
}

/**
 * Puts the alarm back, unless its own evaluation already has: SetAlarmState holds only until the next one,
 * often seconds later, and an alarm no longer in the drilled state with the doctor's reason is in the state
 * its metric gives it now. Setting the old state over that would be a false notification (an OK over a
 * real ALARM). Says what happened, for the `wrote` line.
 */
async function putAlarmBack(ctx: DoctorContext, drill: AlarmDrill): Promise<string> {
  try {
    const [now] = await ctx.alarms.describe([drill.alarm]);
    if (now !== undefined && (now.state !== drill.to || now.stateReason !== REASON)) {
      return `then left it: its own evaluation had already set it to ${now.state}`;
    }
    await ctx.alarms.setState(drill.alarm, drill.from, PUT_BACK_REASON);
    return `then back to ${drill.from}`;
  } catch (error) {
    return `then could not put it back (${describeError(error)}); its next evaluation sets its real state`;
  }
}
