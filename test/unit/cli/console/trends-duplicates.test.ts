// Duplicates in the trends: the DeliveryDuplicate metric's per-period sums placed in the window's buckets
// (hour boundaries, 6-hour blocks, missing datapoints as 0), and ConsoleOperations reading it with one
// GetMetricStatistics request on a stack, nothing locally, and a refusal as one line with its reason code.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { CloudWatchClient, type GetMetricStatisticsCommandInput } from '@aws-sdk/client-cloudwatch';
import { describe, expect, it } from 'vitest';
import { ConsoleOperations } from '../../../../cli/console/console-operations';
import {
  costPerThousandViews,
  duplicateBuckets,
  duplicatePeriodSeconds,
  USD_PER_METRIC_REQUEST,
  windowBuckets,
} from '../../../../cli/console/trends';
import type { Target } from '../../../../cli/shared/target-types';
import { parseConfig } from '../../../../config';

const HOUR = 3_600_000;
/** 2026-12-01 12:30 UTC: the current hour's bucket starts at 12:00, the current 6-hour block's too. */
const NOW = Date.UTC(2026, 11, 1, 12, 30);
const at = (hour: number, minute = 0) => Date.UTC(2026, 11, 1, hour, minute);

describe('duplicates per bucket', () => {
  it('puts a datapoint stamped at an hour into that hour, the current one included', () => {
    const values = duplicateBuckets('24h', NOW, [
      { atMs: at(12), sum: 4 },
      { atMs: at(11), sum: 2 },
      // The window's first hour: 2026-11-30 13:00.
      { atMs: at(12) - 23 * HOUR, sum: 1 },
    ]);
    expect(values).toHaveLength(24);
    expect(values[23]).toBe(4);
    expect(values[22]).toBe(2);
    expect(values[0]).toBe(1);
    expect(values.reduce((a, b) => a + b, 0)).toBe(7);
  });

  it('reads an hour without a datapoint as 0, whatever order the datapoints come in', () => {
    const values = duplicateBuckets('24h', NOW, [
      { atMs: at(9), sum: 3 },
      { atMs: at(3), sum: 5 },
    ]);
    expect(values.filter((v) => v !== 0)).toEqual([5, 3]);
    expect(values[23 - 9]).toBe(5);
    expect(values[23 - 3]).toBe(3);
    expect(duplicateBuckets('24h', NOW, [])).toEqual(Array.from({ length: 24 }, () => 0));
  });

  it('drops datapoints outside the window: before its first hour, after now', () => {
    const { sinceMs } = windowBuckets('24h', NOW);
    const values = duplicateBuckets('24h', NOW, [
      { atMs: sinceMs - HOUR, sum: 8 },
      { atMs: sinceMs - 1, sum: 8 },
      { atMs: NOW + 1, sum: 8 },
      { atMs: sinceMs, sum: 1 },
    ]);
    expect(values.reduce((a, b) => a + b, 0)).toBe(1);
    expect(values[0]).toBe(1);
  });

  it('uses 6-hour buckets over 7 days, one CloudWatch period each', () => {
    expect(duplicatePeriodSeconds('24h')).toBe(3_600);
    expect(duplicatePeriodSeconds('7d')).toBe(21_600);
    const { sinceMs, bucketStarts } = windowBuckets('7d', NOW);
    // The window opens at a 6-hour boundary, 27 blocks before the current one (12:00 today).
    expect(sinceMs).toBe(at(12) - 27 * 6 * HOUR);
    const values = duplicateBuckets('7d', NOW, [
      { atMs: at(12), sum: 2 },
      { atMs: at(6), sum: 3 },
      { atMs: sinceMs, sum: 4 },
    ]);
    expect(values).toHaveLength(28);
    expect(bucketStarts[27]).toBe(at(12));
    expect([values[27], values[26], values[0]]).toEqual([2, 3, 4]);
  });

  it('prices one GetMetricStatistics request as the price file does: $0.01 per 1,000', () => {
    const prices = JSON.parse(
      readFileSync(join(__dirname, '../../../../bench/data/aws-prices.json'), 'utf8'),
    );
    const item = prices.items.cloudwatchApiRequests;
    expect(USD_PER_METRIC_REQUEST * item.per).toBeCloseTo(item.usd, 12);
    expect(costPerThousandViews(0, 1)).toBeCloseTo(0.01, 12);
    expect(costPerThousandViews(1000, 1)).toBeCloseTo(0.135, 12);
  });
});

/** A CloudWatch client whose GetMetricStatistics is answered here: what was asked, and the answer. */
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

function operations(kind: 'aws' | 'local', client: CloudWatchClient) {
  const config = parseConfig({});
  const target = { kind, region: 'us-east-1', tableName: 'inbox', config } as unknown as Target;
  const clients = { dynamodb: {}, sqs: {} } as unknown as Awaited<ReturnType<Target['clients']>>;
  return new ConsoleOperations(target, config, clients, undefined, () => client);
}

describe('reading duplicates for the trends', () => {
  it('on a stack, asks once for the verify function DeliveryDuplicate Sum per bucket, over the window', async () => {
    const { client, asked } = fakeCloudWatch(() => ({
      Datapoints: [
        { Sum: 3, Timestamp: new Date(at(11)) },
        { Sum: 1, Timestamp: new Date(at(12)) },
      ],
    }));
    const trend = await operations('aws', client).duplicateTrend('24h', NOW);
    expect(asked).toEqual([
      {
        Namespace: 'WebhookInbox',
        MetricName: 'DeliveryDuplicate',
        Dimensions: [{ Name: 'service', Value: 'webhook-inbox-verify' }],
        StartTime: new Date(windowBuckets('24h', NOW).sinceMs),
        EndTime: new Date(NOW),
        Period: 3_600,
        Statistics: ['Sum'],
      },
    ]);
    expect(trend).toMatchObject({ source: 'metric' });
    const values = (trend as { values: number[] }).values;
    expect(values.slice(-2)).toEqual([3, 1]);
    expect(values.slice(0, -2).every((v) => v === 0)).toBe(true);
  });

  it('over 7 days, asks for 6-hour periods from the first block', async () => {
    const { client, asked } = fakeCloudWatch(() => ({}));
    const trend = await operations('aws', client).duplicateTrend('7d', NOW);
    expect(asked[0]).toMatchObject({
      Period: 21_600,
      StartTime: new Date(windowBuckets('7d', NOW).sinceMs),
    });
    expect(trend).toEqual({ source: 'metric', values: Array.from({ length: 28 }, () => 0) });
  });

  it('locally, asks CloudWatch nothing: there are no metrics', async () => {
    const { client, asked } = fakeCloudWatch(() => ({}));
    expect(await operations('local', client).duplicateTrend('24h', NOW)).toEqual({ source: 'none' });
    expect(asked).toEqual([]);
  });

  it('turns a refusal into one line with its reason code, without AWS message naming the caller', async () => {
    const { client } = fakeCloudWatch(() => {
      throw Object.assign(
        new Error('User: arn:aws:sts::123456789012:assumed-role/op/x is not authorized to perform'),
        { name: 'AccessDenied' },
      );
    });
    const trend = await operations('aws', client).duplicateTrend('24h', NOW);
    expect(trend).toEqual({
      source: 'metric',
      error: 'cloudwatch GetMetricStatistics failed: AccessDenied',
    });
  });
});
