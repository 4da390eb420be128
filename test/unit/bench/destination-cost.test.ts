import { describe, expect, it } from 'vitest';
import { type DestinationUsage, destinationLines } from '../../../bench/lib/destination-cost';
import { PRICE_KEYS, type PriceKey, type Prices } from '../../../bench/lib/prices';

/** USD per unit; the rest are 0, so each test sees only the items it prices. */
const UNIT: Partial<Record<PriceKey, number>> = {
  sqsStandardRequests: 0.4e-6,
  eventbridgePutEvents: 1e-6,
  lambdaRequests: 0.2e-6,
  lambdaArmGbSecond: 1.6e-5,
  dynamodbOnDemandRead: 0.125e-6,
  dynamodbOnDemandWrite: 0.625e-6,
  dataTransferOutGb: 0.09,
  s3StandardGet: 0.4e-6,
  s3StandardPut: 5e-6,
};

const prices: Prices = {
  file: { region: 'us-east-1', currency: 'USD', date: 'test', compiledOn: 'test', items: {} as never },
  unit: (key) => UNIT[key] ?? 0,
  item: (key) => ({
    usd: UNIT[key] ?? 0,
    per: 1,
    unit: key,
    label: key,
    source: 'test',
    confirmed: 'knowledge',
    ...(key === 'sqsStandardRequests' || key === 'eventbridgePutEvents' ? { chunkBytes: 65_536 } : {}),
  }),
};

function usage(overrides: Partial<DestinationUsage> = {}): DestinationUsage {
  return {
    type: 'http',
    batch: 5,
    forwarder: { memoryMb: 512, billedMsPerBatch: 100, logRetentionDays: 30 },
    processor: { memoryMb: 512, batch: 10, addedMsPerBatch: 0, addedWru: 0 },
    copyBytes: 1_900,
    receiveBytes: 9_500,
    reads: { history: 1, state: 1 },
    historyWru: 1,
    historyBytes: 0,
    ttlDays: 7,
    pitr: false,
    sendBytes: 2_000,
    s3: { gets: 0, puts: 0 },
    logBytesPerBatch: 0,
    ...overrides,
  };
}

const line = (u: DestinationUsage, key: string) => destinationLines(u, prices).find((l) => l.key === key);

describe('destinationLines', () => {
  it('counts the copy, and one receive and one delete per forwarder batch, in 64 KB chunks', () => {
    expect(line(usage(), 'fwd-sqs')).toMatchObject({ perWebhook: 1.4 });
    expect(line(usage(), 'fwd-sqs')?.usdPerMillion).toBeCloseTo(0.56, 9);
    // A 70 KB copy is two requests to send; five of them, six to receive.
    expect(line(usage({ copyBytes: 70_000, receiveBytes: 350_000 }), 'fwd-sqs')?.perWebhook).toBeCloseTo(
      3.4,
      9,
    );
  });

  it("spreads the forwarder's invocation and its billed time over the batch", () => {
    expect(line(usage(), 'fwd-req')?.usdPerMillion).toBeCloseTo(0.04, 9);
    // 0.1 s at 0.5 GB over 5 deliveries: 0.01 GB-s each.
    expect(line(usage(), 'fwd-gbs')?.usdPerMillion).toBeCloseTo(0.16, 9);
    expect(line(usage({ batch: 1 }), 'fwd-gbs')?.usdPerMillion).toBeCloseTo(0.8, 9);
  });

  it('prices the processor time the fan-out adds per batch of the processor, not of the forwarder', () => {
    const u = usage({ processor: { memoryMb: 1024, batch: 10, addedMsPerBatch: 50, addedWru: 0 } });
    expect(line(u, 'fwd-proc')?.usdPerMillion).toBeCloseTo(0.08, 9);
  });

  it('writes the history, the count once per batch and the fan-out mark; reads history and state', () => {
    const u = usage({ historyWru: 2, processor: { ...usage().processor, addedWru: 1 } });
    expect(line(u, 'fwd-ddb-w')?.perWebhook).toBeCloseTo(3.2, 9);
    expect(line(u, 'fwd-ddb-r')?.usdPerMillion).toBeCloseTo(0.25, 9);
  });

  it('prices what an HTTP destination is sent as data transfer out, by the byte', () => {
    expect(line(usage(), 'fwd-send')?.usdPerMillion).toBeCloseTo(0.18, 9);
  });

  it('bills an EventBridge entry per 64 KB started', () => {
    const bus = (sendBytes: number) => line(usage({ type: 'eventbridge', sendBytes }), 'fwd-send');
    expect(bus(1_500)?.usdPerMillion).toBeCloseTo(1, 9);
    expect(bus(100_000)?.usdPerMillion).toBeCloseTo(2, 9);
  });

  it("counts an SQS target's message in 64 KB requests", () => {
    expect(line(usage({ type: 'sqs', sendBytes: 140_000 }), 'fwd-send')?.usdPerMillion).toBeCloseTo(1.2, 9);
  });

  it('has an S3 line only when the forwarder makes S3 requests', () => {
    expect(line(usage(), 'fwd-s3')).toBeUndefined();
    expect(line(usage({ s3: { gets: 1, puts: 1 } }), 'fwd-s3')?.usdPerMillion).toBeCloseTo(5.4, 9);
  });

  it('covers every price key it reads with the price file', () => {
    for (const key of Object.keys(UNIT)) expect(PRICE_KEYS).toContain(key);
  });
});
