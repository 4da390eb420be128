// Reading one of the inbox's own metrics back (GetMetricStatistics), for the console: how often the verify
// Lambda accepted a signature made with a previous secret, i.e. whether a provider still signs with it.
import { type CloudWatchClient, GetMetricStatisticsCommand } from '@aws-sdk/client-cloudwatch';
import { callDependency } from './dependency-call';

export interface MetricWindow {
  namespace: string;
  metric: string;
  dimensions: Record<string, string>;
  sinceMs: number;
  untilMs: number;
}

/** CloudWatch's periods are whole minutes; one period over the whole window gives one datapoint. */
function periodSeconds(window: MetricWindow): number {
  return Math.max(60, Math.ceil((window.untilMs - window.sinceMs) / 60_000) * 60);
}

export class CloudWatchMetrics {
  constructor(private readonly client: CloudWatchClient) {}

  /** The metric's Sum over the window; 0 when nothing was published (CloudWatch sends no datapoint). */
  async sum(window: MetricWindow): Promise<number> {
    const answer = await callDependency('cloudwatch', 'GetMetricStatistics', () =>
      this.client.send(
        new GetMetricStatisticsCommand({
          Namespace: window.namespace,
          MetricName: window.metric,
          Dimensions: Object.entries(window.dimensions).map(([Name, Value]) => ({ Name, Value })),
          StartTime: new Date(window.sinceMs),
          EndTime: new Date(window.untilMs),
          Period: periodSeconds(window),
          Statistics: ['Sum'],
        }),
      ),
    );
    return (answer.Datapoints ?? []).reduce((total, point) => total + (point.Sum ?? 0), 0);
  }
}
