// The alarm item against a fake CloudWatch: it sets one alarm to the state whose actions publish to the
// topic, reads the history for that action's outcome, and always puts the alarm back; a denied call is
// "cannot check", never a failure of the inbox.
import { describe, expect, it } from 'vitest';
import { actionOutcome, checkAlarm, chooseDrill } from '../../../../../../cli/commands/doctor/checks/alarm';
import { accessDenied, FakeCloudWatch, fakeContext, okAlarm, publishRefused, TOPIC } from '../fake-context';

const NAME = 'WebhookInbox-DeadLetters-X';

function setup(options: { state?: 'OK' | 'ALARM' | 'INSUFFICIENT_DATA' } = {}) {
  const cloudwatch = new FakeCloudWatch([okAlarm(NAME, options.state)]);
  return { cloudwatch, ctx: fakeContext({ alarms: cloudwatch }) };
}

describe('checkAlarm', () => {
  it('passes when the SNS action succeeded, and puts the alarm back to OK', async () => {
    const { cloudwatch, ctx } = setup();
    const [result] = await checkAlarm(ctx);
    expect(result).toMatchObject({ id: 'alarm', status: 'pass' });
    expect(result?.detail).toContain(TOPIC);
    expect(result?.wrote).toContain(`set alarm ${NAME} to ALARM`);
    expect(cloudwatch.setCalls).toEqual([
      { name: NAME, state: 'ALARM' },
      { name: NAME, state: 'OK' },
    ]);
  });

  it("fails with the topic policy's fix when the SNS action failed, and still puts the alarm back", async () => {
    const { cloudwatch, ctx } = setup();
    cloudwatch.publish = 'Failed';
    const [result] = await checkAlarm(ctx);
    expect(result).toMatchObject({ status: 'fail' });
    expect(result?.detail).toContain('is not authorized to perform: SNS:Publish');
    expect(result?.fix).toContain('cloudwatch.amazonaws.com');
    expect(cloudwatch.setCalls.at(-1)).toEqual({ name: NAME, state: 'OK' });
  });

  it('puts back the state the alarm was in: INSUFFICIENT_DATA stays INSUFFICIENT_DATA', async () => {
    const { cloudwatch, ctx } = setup({ state: 'INSUFFICIENT_DATA' });
    await checkAlarm(ctx);
    expect(cloudwatch.setCalls).toEqual([
      { name: NAME, state: 'ALARM' },
      { name: NAME, state: 'INSUFFICIENT_DATA' },
    ]);
  });

  it('cannot check, rather than fail, when SetAlarmState is denied; nothing was written', async () => {
    const { cloudwatch, ctx } = setup();
    cloudwatch.failSet = accessDenied();
    const [result] = await checkAlarm(ctx);
    expect(result).toMatchObject({ status: 'cannot-check' });
    expect(result?.detail).toContain('cloudwatch:SetAlarmState');
    expect(result?.wrote).toBeUndefined();
  });

  it('puts the alarm back even when reading its history is denied, and says it cannot check', async () => {
    const { cloudwatch, ctx } = setup();
    cloudwatch.failHistory = accessDenied();
    const [result] = await checkAlarm(ctx);
    expect(result).toMatchObject({ status: 'cannot-check' });
    expect(result?.detail).toContain('cloudwatch:DescribeAlarmHistory');
    expect(cloudwatch.setCalls.at(-1)).toEqual({ name: NAME, state: 'OK' });
  });

  it('cannot check when CloudWatch records no action within the wait, and puts the alarm back', async () => {
    const { cloudwatch, ctx } = setup();
    cloudwatch.publish = 'none';
    const [result] = await checkAlarm(ctx);
    expect(result).toMatchObject({ status: 'cannot-check' });
    expect(result?.detail).toContain('recorded no action');
    expect(cloudwatch.setCalls.at(-1)).toEqual({ name: NAME, state: 'OK' });
  });

  it('says when it could not put the alarm back', async () => {
    const { cloudwatch, ctx } = setup();
    const setState = cloudwatch.setState.bind(cloudwatch);
    let calls = 0;
    cloudwatch.setState = async (name, state, reason) => {
      if (++calls > 1) throw new Error('Rate exceeded');
      return setState(name, state, reason);
    };
    const [result] = await checkAlarm(ctx);
    expect(result).toMatchObject({ status: 'pass' });
    expect(result?.wrote).toContain('could not put it back (Rate exceeded)');
  });

  it('leaves the alarm alone when its own evaluation has already moved it: no false OK over a real ALARM', async () => {
    const { cloudwatch, ctx } = setup();
    // SetAlarmState holds only until the alarm's next evaluation, often seconds later; here a real breach
    // is found meanwhile, so the alarm is in ALARM for its own reason, and setting OK would page a false all-clear.
    cloudwatch.afterSet = (alarm) => {
      alarm.state = 'ALARM';
      alarm.stateReason = 'Threshold Crossed: 1 datapoint [3.0] was greater than the threshold (0.0).';
    };
    const [result] = await checkAlarm(ctx);
    expect(result).toMatchObject({ status: 'pass' });
    expect(cloudwatch.setCalls).toEqual([{ name: NAME, state: 'ALARM' }]);
    expect(result?.wrote).toContain('its own evaluation had already set it to ALARM');
  });

  it('does not put back a state the alarm has already left by its own evaluation', async () => {
    const { cloudwatch, ctx } = setup({ state: 'INSUFFICIENT_DATA' });
    cloudwatch.afterSet = (alarm) => {
      alarm.state = 'OK';
      alarm.stateReason = 'Threshold Crossed: no datapoints were received for 1 period';
    };
    const [result] = await checkAlarm(ctx);
    expect(cloudwatch.setCalls).toEqual([{ name: NAME, state: 'ALARM' }]);
    expect(result?.wrote).toContain('its own evaluation had already set it to OK');
  });

  it('is skipped with --skip-alarm, setting nothing', async () => {
    const { cloudwatch, ctx } = setup();
    const [result] = await checkAlarm({ ...ctx, options: { delivery: true, alarm: false } });
    expect(result).toMatchObject({ status: 'skipped', detail: 'not checked (skipped: --skip-alarm)' });
    expect(cloudwatch.setCalls).toEqual([]);
  });

  it("cannot check when the stack's resources cannot be listed", async () => {
    const { ctx } = setup();
    const [result] = await checkAlarm({ ...ctx, resources: () => Promise.reject(accessDenied()) });
    expect(result).toMatchObject({ status: 'cannot-check' });
  });
});

describe('chooseDrill', () => {
  it('sets an alarm that is not in ALARM to ALARM', () => {
    expect(chooseDrill([okAlarm('a', 'ALARM'), okAlarm('b', 'OK')])).toEqual({
      alarm: 'b',
      to: 'ALARM',
      from: 'OK',
      topic: TOPIC,
    });
  });

  it('sets an alarm in ALARM to OK when every alarm is in ALARM', () => {
    expect(chooseDrill([okAlarm('a', 'ALARM')])).toMatchObject({ alarm: 'a', to: 'OK', from: 'ALARM' });
  });

  it('takes no alarm whose actions are disabled or that notifies no SNS topic', () => {
    expect(chooseDrill([{ ...okAlarm('a'), actionsEnabled: false }])).toBeUndefined();
    expect(chooseDrill([{ ...okAlarm('a'), alarmActions: ['arn:aws:lambda:x'] }])).toBeUndefined();
  });
});

describe('actionOutcome', () => {
  it('reads the summary when HistoryData is not JSON', () => {
    expect(
      actionOutcome([{ timestampMs: 0, summary: `Failed to execute action ${TOPIC}`, data: '' }], TOPIC),
    ).toEqual({
      ok: false,
      error: `Failed to execute action ${TOPIC}`,
    });
  });

  it('gives the error CloudWatch received, from the summary, when HistoryData names none', () => {
    const summary = publishRefused(NAME, TOPIC);
    expect(
      actionOutcome(
        [{ timestampMs: 0, summary, data: JSON.stringify({ notificationResource: TOPIC }) }],
        TOPIC,
      ),
    ).toEqual({
      ok: false,
      error: `Resource: arn:aws:cloudwatch:eu-west-1:123456789012:alarm:${NAME} is not authorized to perform: SNS:Publish on resource: ${TOPIC}`,
    });
  });

  it("does not take the action of a topic whose ARN only begins with the drilled topic's", () => {
    const pager = `${TOPIC}-Pager`;
    expect(
      actionOutcome(
        [
          { timestampMs: 2, summary: publishRefused(NAME, pager), data: '' },
          { timestampMs: 1, summary: `Successfully executed action ${TOPIC}`, data: '' },
        ],
        TOPIC,
      ),
    ).toEqual({ ok: true });
  });

  it("ignores another topic's action", () => {
    expect(
      actionOutcome(
        [{ timestampMs: 0, summary: 'Successfully executed action arn:aws:sns:x:1:other', data: '' }],
        TOPIC,
      ),
    ).toBeUndefined();
  });
});
