// CloudWatchAlarms over a real CloudWatchClient whose calls are answered by a middleware (there is no
// CloudWatch emulator): what each call asks for, how the answers map, and a refusal kept as the cause.
import { CloudWatchClient } from '@aws-sdk/client-cloudwatch';
import { describe, expect, it } from 'vitest';
import { isAccessDenied } from '../../../../cli/commands/doctor/access-denied';
import { CloudWatchAlarms } from '../../../../lambdas/adapters/cloudwatch-alarms';
import { DependencyError } from '../../../../lambdas/core/errors';

type Answer = (command: string, input: Record<string, unknown>) => object;

function fakeCloudWatch(answer: Answer) {
  const asked: { command: string; input: Record<string, unknown> }[] = [];
  const client = new CloudWatchClient({
    region: 'eu-west-1',
    credentials: { accessKeyId: 'unit', secretAccessKey: 'unit' },
  });
  client.middlewareStack.add(
    (_next: unknown, context: { commandName?: string }) => async (args: { input: object }) => {
      const command = context.commandName ?? '';
      const input = args.input as Record<string, unknown>;
      asked.push({ command, input });
      return { output: { $metadata: {}, ...answer(command, input) }, response: {} };
    },
    { step: 'initialize', name: 'fakeCloudWatch' },
  );
  return { alarms: new CloudWatchAlarms(client), asked };
}

describe('CloudWatchAlarms', () => {
  it('describes metric alarms 100 names a call, mapping state and actions', async () => {
    const names = Array.from({ length: 150 }, (_, i) => `alarm-${i}`);
    const { alarms, asked } = fakeCloudWatch((_command, input) => ({
      MetricAlarms: (input.AlarmNames as string[]).slice(0, 1).map((name) => ({
        AlarmName: name,
        StateValue: 'OK',
        StateReason: 'Threshold Crossed',
        AlarmActions: ['arn:aws:sns:eu-west-1:1:topic'],
      })),
    }));
    expect(await alarms.describe(names)).toEqual([
      {
        name: 'alarm-0',
        state: 'OK',
        stateReason: 'Threshold Crossed',
        actionsEnabled: true,
        alarmActions: ['arn:aws:sns:eu-west-1:1:topic'],
        okActions: [],
      },
      {
        name: 'alarm-100',
        state: 'OK',
        stateReason: 'Threshold Crossed',
        actionsEnabled: true,
        alarmActions: ['arn:aws:sns:eu-west-1:1:topic'],
        okActions: [],
      },
    ]);
    expect(asked.map((a) => (a.input.AlarmNames as string[]).length)).toEqual([100, 50]);
    expect(asked[0]?.input.AlarmTypes).toEqual(['MetricAlarm']);
  });

  it('sets a state with its reason, and reads the Action history since a time', async () => {
    const { alarms, asked } = fakeCloudWatch((command) =>
      command === 'DescribeAlarmHistoryCommand'
        ? {
            AlarmHistoryItems: [
              {
                Timestamp: new Date(5_000),
                HistoryItemType: 'Action',
                HistorySummary: 'Successfully executed action arn:aws:sns:eu-west-1:1:topic',
                HistoryData: '{"actionState":"Succeeded"}',
              },
            ],
          }
        : {},
    );
    await alarms.setState('a', 'ALARM', 'why');
    expect(await alarms.actionsSince('a', 1_000)).toEqual([
      {
        timestampMs: 5_000,
        summary: 'Successfully executed action arn:aws:sns:eu-west-1:1:topic',
        data: '{"actionState":"Succeeded"}',
      },
    ]);
    expect(asked[0]).toEqual({
      command: 'SetAlarmStateCommand',
      input: { AlarmName: 'a', StateValue: 'ALARM', StateReason: 'why' },
    });
    expect(asked[1]?.input).toMatchObject({
      AlarmName: 'a',
      HistoryItemType: 'Action',
      StartDate: new Date(1_000),
    });
  });

  it("fails with DependencyError, keeping AWS's refusal as the cause", async () => {
    const { alarms } = fakeCloudWatch(() => {
      throw Object.assign(new Error('User is not authorized to perform: cloudwatch:SetAlarmState'), {
        name: 'AccessDenied',
      });
    });
    const error = await alarms.setState('a', 'ALARM', 'why').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(DependencyError);
    expect(isAccessDenied(error)).toBe(true);
  });
});
