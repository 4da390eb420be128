// CloudWatchMetrics over a real CloudWatchClient whose GetMetricStatistics is answered by a middleware
// (there is no CloudWatch emulator): what it asks for, how it adds the datapoints up or hands them back
// per period, and a failure as a DependencyError.
import { CloudWatchClient, type GetMetricStatisticsCommandInput } from '@aws-sdk/client-cloudwatch';
import { describe, expect, it } from 'vitest';
import { CloudWatchMetrics } from '../../../../lambdas/adapters/cloudwatch-metrics';
import { DependencyError } from '../../../../lambdas/core/errors';

function fakeCloudWatch(answer: () => { Datapoints?: { Sum?: number; Timestamp?: Date }[] }) {
  const asked: GetMetricStatisticsCommandInput[] = [];
  const client = new CloudWatchClient({
    region: 'us-east-1',
    credentials: { accessKeyId: 'unit', secretAccessKey: 'unit' },
  });
  client.middlewareStack.add(
    (_next: unknown, context: { commandName?: string }) => async (args: { input: object }) => {
      if (context.commandName !== 'GetMetricStatisticsCommand')
        throw new Error(`unexpected ${context.commandName}`);
      asked.push(args.input as GetMetricStatisticsCommandInput);
      return { output: { $metadata: {}, ...answer() }, response: {} };
    },
    { step: 'initialize', name: 'fakeCloudWatch' },
  );
  return { client, asked };
}

const DAY_MS = 86_400_000;
const window = {
  namespace: 'WebhookInbox',
  metric: 'PreviousSecretUsed',
  dimensions: { service: 'webhook-inbox-verify' },
  sinceMs: Date.parse('2026-12-01T00:00:00Z'),
  untilMs: Date.parse('2026-12-01T00:00:00Z') + DAY_MS,
};

describe('CloudWatchMetrics.sum', () => {
  it('asks for the Sum over the whole window, with the dimensions, and adds the datapoints up', async () => {
    const { client, asked } = fakeCloudWatch(() => ({ Datapoints: [{ Sum: 3 }, { Sum: 4 }, {}] }));
    expect(await new CloudWatchMetrics(client).sum(window)).toBe(7);
    expect(asked).toEqual([
      {
        Namespace: 'WebhookInbox',
        MetricName: 'PreviousSecretUsed',
        Dimensions: [{ Name: 'service', Value: 'webhook-inbox-verify' }],
        StartTime: new Date(window.sinceMs),
        EndTime: new Date(window.untilMs),
        Period: 86_400,
        Statistics: ['Sum'],
      },
    ]);
  });

  it('reads no datapoint as 0, and a window under a minute as one minute', async () => {
    const { client, asked } = fakeCloudWatch(() => ({}));
    expect(await new CloudWatchMetrics(client).sum({ ...window, untilMs: window.sinceMs + 10_000 })).toBe(0);
    expect(asked[0]?.Period).toBe(60);
  });

  it('turns a failure into DependencyError(cloudwatch, GetMetricStatistics)', async () => {
    const { client } = fakeCloudWatch(() => {
      throw Object.assign(new Error('Rate exceeded'), { name: 'Throttling' });
    });
    const failure = await new CloudWatchMetrics(client).sum(window).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(DependencyError);
    expect(failure).toMatchObject({ dependency: 'cloudwatch', operation: 'GetMetricStatistics' });
  });
});

describe('CloudWatchMetrics.sumsPerPeriod', () => {
  it('asks once for the Sum per period over the window, and hands back each datapoint by its time', async () => {
    const at = (hour: number) => new Date(window.sinceMs + hour * 3_600_000);
    const { client, asked } = fakeCloudWatch(() => ({
      // In no particular order, as CloudWatch sends them; one without a time is no use to a chart.
      Datapoints: [
        { Sum: 2, Timestamp: at(5) },
        { Sum: 1, Timestamp: at(0) },
        { Sum: 9 },
        { Timestamp: at(7) },
      ],
    }));
    const sums = await new CloudWatchMetrics(client).sumsPerPeriod(window, 3_600);
    expect(sums).toEqual([
      { atMs: at(5).getTime(), sum: 2 },
      { atMs: at(0).getTime(), sum: 1 },
      { atMs: at(7).getTime(), sum: 0 },
    ]);
    expect(asked).toEqual([
      {
        Namespace: 'WebhookInbox',
        MetricName: 'PreviousSecretUsed',
        Dimensions: [{ Name: 'service', Value: 'webhook-inbox-verify' }],
        StartTime: new Date(window.sinceMs),
        EndTime: new Date(window.untilMs),
        Period: 3_600,
        Statistics: ['Sum'],
      },
    ]);
  });

  it('turns a refusal into DependencyError(cloudwatch, GetMetricStatistics) with it as the cause', async () => {
    const { client } = fakeCloudWatch(() => {
      throw Object.assign(new Error('User is not authorized'), { name: 'AccessDenied' });
    });
    const failure = await new CloudWatchMetrics(client)
      .sumsPerPeriod(window, 3_600)
      .catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(DependencyError);
    expect((failure as Error).cause).toMatchObject({ name: 'AccessDenied' });
  });
});
