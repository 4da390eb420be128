// What one destination adds per delivery forwarded to it, on top of the pipeline's own cost: the copy the
// processor sends to the destination's queue, the forwarder's invocations and its reads and writes, and the
// send itself. The counts come from the cost model's measured run and the synthesized template
// (cost-model.ts); this prices them. Pure. The no-failure case: a retry would add a ChangeMessageVisibility,
// another receive, attempt and history write.
import { GB, type Line, lineList, logPriceLabel, logPricePerGb, MONTH_DAYS, num } from './cost-lines';
import type { Prices } from './prices';

/** One destination of each type, as a config names it; the cost model synthesizes a stack with each. */
export const BENCH_DESTINATIONS = {
  http: { type: 'http', url: 'https://hooks.example.com/webhooks' },
  eventbridge: { type: 'eventbridge' },
  sqs: { type: 'sqs', queueArn: 'arn:aws:sqs:us-east-1:123456789012:their-inbox' },
} as const;
export type ForwardType = keyof typeof BENCH_DESTINATIONS;
export const FORWARD_TYPES = Object.keys(BENCH_DESTINATIONS) as ForwardType[];
export const DESTINATION_NAME: Record<ForwardType, string> = {
  http: 'HTTP destination',
  eventbridge: 'EventBridge destination',
  sqs: 'SQS destination',
};
/** Row order of the destination lines. */
export const DESTINATION_LINE_ORDER = [
  'fwd-sqs',
  'fwd-proc',
  'fwd-req',
  'fwd-gbs',
  'fwd-ddb-r',
  'fwd-ddb-w',
  'fwd-ddb-s',
  'fwd-s3',
  'fwd-send',
  'fwd-logs',
];

export interface DestinationUsage {
  type: ForwardType;
  /** Deliveries per forwarder invocation. */
  batch: number;
  forwarder: { memoryMb: number; billedMsPerBatch: number; logRetentionDays: number | null };
  /**
   * What the fan-out adds to the processor: billed time per batch of `batch` records (the copy's
   * SendMessage, the mark that the copies are sent), and write units per delivery (that mark).
   */
  processor: { memoryMb: number; batch: number; addedMsPerBatch: number; addedWru: number };
  /** SendMessage payload (body and attributes) of the copy on the destination's queue. */
  copyBytes: number;
  /** ReceiveMessage payload of a full batch of copies. */
  receiveBytes: number;
  /** Consistent reads per delivery (items under 4 KB: one read unit each). */
  reads: { history: number; state: number };
  /** Write units of the history's UpdateItem; the batch's count UpdateItem is one more per batch. */
  historyWru: number;
  /** What the history adds to the delivery's record, kept as long as the record (the dedup TTL). */
  historyBytes: number;
  ttlDays: number;
  pitr: boolean;
  /** HTTP: the request on the wire (request line, headers, body). EventBridge: the entry. SQS: the message. */
  sendBytes: number;
  s3: { gets: number; puts: number };
  logBytesPerBatch: number;
}

/** Everything one destination adds per delivery forwarded to it. */
export function destinationLines(u: DestinationUsage, prices: Prices): Line[] {
  const p = (key: Parameters<Prices['unit']>[0]) => prices.unit(key);
  const label = (key: Parameters<Prices['unit']>[0]) => prices.item(key).label;
  const { lines, add } = lineList();
  const sqsChunk = prices.item('sqsStandardRequests').chunkBytes as number;
  const chunks = (bytes: number, size: number) => Math.max(1, Math.ceil(bytes / size));
  const copy = chunks(u.copyBytes, sqsChunk);
  const receive = chunks(u.receiveBytes, sqsChunk);
  add(
    'fwd-sqs',
    'Forwarding: SQS requests (the copy, its receive and delete)',
    label('sqsStandardRequests'),
    `${num(copy + (receive + 1) / u.batch, 3)}: copy ${copy} + (receive ${receive} + delete 1)/${u.batch}`,
    copy + (receive + 1) / u.batch,
    p('sqsStandardRequests'),
  );
  const gbSeconds = (ms: number, memoryMb: number) => (ms / 1000) * (memoryMb / 1024);
  add(
    'fwd-proc',
    `Forwarding: processor compute, the fan-out (${u.processor.memoryMb} MB)`,
    label('lambdaArmGbSecond'),
    `${num(u.processor.addedMsPerBatch, 1)} ms/batch of ${u.processor.batch}`,
    gbSeconds(u.processor.addedMsPerBatch, u.processor.memoryMb) / u.processor.batch,
    p('lambdaArmGbSecond'),
  );
  add(
    'fwd-req',
    'Forwarding: forwarder Lambda requests',
    label('lambdaRequests'),
    `1/${u.batch} invocation`,
    1 / u.batch,
    p('lambdaRequests'),
  );
  add(
    'fwd-gbs',
    `Forwarding: forwarder Lambda compute (${u.forwarder.memoryMb} MB arm64)`,
    label('lambdaArmGbSecond'),
    `${u.forwarder.billedMsPerBatch} ms/batch of ${u.batch}`,
    gbSeconds(u.forwarder.billedMsPerBatch, u.forwarder.memoryMb) / u.batch,
    p('lambdaArmGbSecond'),
  );
  add(
    'fwd-ddb-r',
    'Forwarding: DynamoDB reads (consistent)',
    label('dynamodbOnDemandRead'),
    `history ${num(u.reads.history)} + state ${num(u.reads.state)}`,
    u.reads.history + u.reads.state,
    p('dynamodbOnDemandRead'),
  );
  add(
    'fwd-ddb-w',
    'Forwarding: DynamoDB writes',
    label('dynamodbOnDemandWrite'),
    `history ${u.historyWru} + count 1/${u.batch} + fan-out mark ${num(u.processor.addedWru)} WRU`,
    u.historyWru + 1 / u.batch + u.processor.addedWru,
    p('dynamodbOnDemandWrite'),
  );
  add(
    'fwd-ddb-s',
    `Forwarding: DynamoDB storage of the history${u.pitr ? ' + PITR' : ''}`,
    u.pitr
      ? `${label('dynamodbStorageGbMonth')} + ${label('dynamodbPitrGbMonth')}`
      : label('dynamodbStorageGbMonth'),
    `+${u.historyBytes} B × ${num(u.ttlDays)} d`,
    (u.historyBytes / GB) * (u.ttlDays / MONTH_DAYS),
    p('dynamodbStorageGbMonth') + (u.pitr ? p('dynamodbPitrGbMonth') : 0),
  );
  if (u.s3.gets > 0 || u.s3.puts > 0) {
    add(
      'fwd-s3',
      'Forwarding: S3 requests (a body over the inline limit)',
      `${label('s3StandardPut')}, ${label('s3StandardGet')}`,
      `${num(u.s3.gets)} GET + ${num(u.s3.puts)} PUT`,
      1,
      u.s3.gets * p('s3StandardGet') + u.s3.puts * p('s3StandardPut'),
    );
  }
  if (u.type === 'http') {
    add(
      'fwd-send',
      'Forwarding: data transfer out (the POST, to the internet)',
      label('dataTransferOutGb'),
      `${u.sendBytes} B`,
      u.sendBytes / GB,
      p('dataTransferOutGb'),
    );
  } else if (u.type === 'eventbridge') {
    const events = chunks(u.sendBytes, prices.item('eventbridgePutEvents').chunkBytes as number);
    add(
      'fwd-send',
      'Forwarding: EventBridge PutEvents',
      label('eventbridgePutEvents'),
      `${events} event (${u.sendBytes} B entry)`,
      events,
      p('eventbridgePutEvents'),
    );
  } else {
    const sends = chunks(u.sendBytes, sqsChunk);
    add(
      'fwd-send',
      'Forwarding: SendMessage to the target queue',
      label('sqsStandardRequests'),
      `${sends} (${u.sendBytes} B message)`,
      sends,
      p('sqsStandardRequests'),
    );
  }
  add(
    'fwd-logs',
    'Forwarding: CloudWatch Logs, forwarder',
    logPriceLabel(prices, u.forwarder.logRetentionDays),
    `${Math.round(u.logBytesPerBatch / u.batch)} B`,
    u.logBytesPerBatch / u.batch / GB,
    logPricePerGb(prices, u.forwarder.logRetentionDays),
  );
  return lines;
}
