// The stack's alarms, for `webhook-inbox doctor`: their state and actions (DescribeAlarms), a state set by
// hand (SetAlarmState) to make one notify, and the actions CloudWatch then ran (DescribeAlarmHistory).
import {
  type CloudWatchClient,
  DescribeAlarmHistoryCommand,
  DescribeAlarmsCommand,
  SetAlarmStateCommand,
} from '@aws-sdk/client-cloudwatch';
import { callDependency } from './dependency-call';

export type AlarmState = 'OK' | 'ALARM' | 'INSUFFICIENT_DATA';

export interface AlarmSummary {
  name: string;
  state: AlarmState;
  /** Why it is in that state: the doctor's own reason until the alarm's next evaluation replaces it. */
  stateReason: string;
  actionsEnabled: boolean;
  alarmActions: string[];
  okActions: string[];
}

/** One action CloudWatch ran for an alarm, as its history records it. */
export interface AlarmActionRecord {
  timestampMs: number;
  /** `Successfully executed action arn:...` or `Failed to execute action arn:...`. */
  summary: string;
  /** The history item's JSON data: `actionState`, `notificationResource`, `error`, where CloudWatch gives them. */
  data: string;
}

/** DescribeAlarms takes at most 100 names per call. */
const NAMES_PER_CALL = 100;

export class CloudWatchAlarms {
  constructor(private readonly client: CloudWatchClient) {}

  /** The metric alarms among `names`; a name CloudWatch does not know is left out. */
  async describe(names: readonly string[]): Promise<AlarmSummary[]> {
    const found: AlarmSummary[] = [];
    for (let start = 0; start < names.length; start += NAMES_PER_CALL) {
      const { MetricAlarms: alarms = [] } = await callDependency('cloudwatch', 'DescribeAlarms', () =>
        this.client.send(
          new DescribeAlarmsCommand({
            AlarmNames: names.slice(start, start + NAMES_PER_CALL),
            AlarmTypes: ['MetricAlarm'],
            MaxRecords: NAMES_PER_CALL,
          }),
        ),
      );
      for (const alarm of alarms) {
        if (!alarm.AlarmName) continue;
        found.push({
          name: alarm.AlarmName,
          state: (alarm.StateValue ?? 'INSUFFICIENT_DATA') as AlarmState,
          stateReason: alarm.StateReason ?? '',
          actionsEnabled: alarm.ActionsEnabled !== false,
          alarmActions: alarm.AlarmActions ?? [],
          okActions: alarm.OKActions ?? [],
        });
      }
    }
    return found;
  }

  /**
   * Sets the state until the alarm's next evaluation (for a metric alarm, often within seconds), running
   * the actions of the new state when it differs from the old.
   */
  async setState(name: string, state: AlarmState, reason: string): Promise<void> {
    await callDependency('cloudwatch', 'SetAlarmState', () =>
      this.client.send(new SetAlarmStateCommand({ AlarmName: name, StateValue: state, StateReason: reason })),
    );
  }

  /** The actions CloudWatch ran for the alarm since `sinceMs`, newest first. */
  async actionsSince(name: string, sinceMs: number): Promise<AlarmActionRecord[]> {
    const { AlarmHistoryItems: items = [] } = await callDependency('cloudwatch', 'DescribeAlarmHistory', () =>
      this.client.send(
        new DescribeAlarmHistoryCommand({
          AlarmName: name,
          HistoryItemType: 'Action',
          StartDate: new Date(sinceMs),
          ScanBy: 'TimestampDescending',
          MaxRecords: 10,
        }),
      ),
    );
    return items.map((item) => ({
      timestampMs: item.Timestamp?.getTime() ?? 0,
      summary: item.HistorySummary ?? '',
      data: item.HistoryData ?? '',
    }));
  }
}
