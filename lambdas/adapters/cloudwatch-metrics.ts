// Reading the inbox's own metrics back (GetMetricStatistics), for the console: how often the verify Lambda
// accepted a signature made with a previous secret, i.e. whether a provider still signs with it, and how
// many provider retries it answered as duplicates, per period.
import {
  type CloudWatchClient,
  type Datapoint,
  GetMetricStatisticsCommand,
} from '@aws-sdk/client-cloudwatch';
import { callDependency } from './dependency-call';

export interface MetricWindow {
  namespace: string;
  metric: string;
  dimensions: Record<string, string>;
  sinceMs: number;
  untilMs: number;
}

/** One period's Sum; `atMs` is the period's start, as CloudWatch stamps a datapoint. */
export interface MetricSum {
  atMs: number;
  sum: number;
}

/** CloudWatch's periods are whole minutes; one period over the whole window gives one datapoint. */
function wholeWindowSeconds(window: MetricWindow): number {
  return Math.max(60, Math.ceil((window.untilMs - window.sinceMs) / 60_000) * 60);
}

export class CloudWatchMetrics {
  constructor(private readonly client: CloudWatchClient) {}

  /** The metric's Sum over the window; 0 when nothing was published (CloudWatch sends no datapoint). */
  async sum(window: MetricWindow): Promise<number> {
    const points = await this.statistics(window, wholeWindowSeconds(window));
    return points.reduce((total, point) => total + (point.Sum ?? 0), 0);
  }

  /**
   * The metric's Sum per period, in one request. A period with nothing published has no datapoint, and
   * CloudWatch returns them in no particular order: the caller places each by its time.
   */
  async sumsPerPeriod(window: MetricWindow, periodSeconds: number): Promise<MetricSum[]> {
    const points = await this.statistics(window, periodSeconds);
    return points.flatMap((point) =>
      point.Timestamp === undefined ? [] : [{ atMs: point.Timestamp.getTime(), sum: point.Sum ?? 0 }],
    );
  }

  private async statistics(window: MetricWindow, periodSeconds: number): Promise<Datapoint[]> {
    const answer = await callDependency('cloudwatch', 'GetMetricStatistics', () =>
      this.client.send(
        new GetMetricStatisticsCommand({
          Namespace: window.namespace,
          MetricName: window.metric,
          Dimensions: Object.entries(window.dimensions).map(([Name, Value]) => ({ Name, Value })),
          StartTime: new Date(window.sinceMs),
          EndTime: new Date(window.untilMs),
          Period: periodSeconds,
          Statistics: ['Sum'],
        }),
      ),
    );
    return answer.Datapoints ?? [];
  }
}
