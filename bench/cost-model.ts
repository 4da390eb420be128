// Section: cost model. Cost per million webhooks from the AWS list prices in bench/data/aws-prices.json, for
// the configuration the CDK app synthesizes, with each front door (REST API with WAF, HTTP API, Lambda
// function URL), arm64; and what one destination of each type (http, eventbridge, sqs) adds per delivery
// forwarded to it, priced by bench/lib/destination-cost.ts.
//
// Where every figure comes from:
// - read from the template: synthesized offline in a child process (bench/lib/synth-child.ts) for every
//   front door: each Lambda's memory, architecture and log group, the SQS event source's batch size, the
//   table's billing mode, PITR and TTL, log retention, access log format, WAF rules, payload expiry and
//   that of its server access logs, and the config the Lambdas get (inline limit, secret cache, dedup TTL);
//   once more with each destination type, for the forwarder and what the destination adds to the month.
// - measured in this run: the real verify, processor and forwarder handlers (built with their factories, no
//   metrics, a silent log sink) run in this process against dynalite and fauxqs in a child process (and a
//   destination server in another), one delivery or one batch at a time. Per invocation: this process's
//   CPU time (process.cpuUsage), the AWS calls made (counted at the SDK's transport), item sizes, message
//   sizes. A separate small pass counts log bytes from lambdas/adapters/json-telemetry.ts, the adapter the
//   Lambda entries use, its lines counted instead of printed.
// - assumed, and printed as such: the in-region time of each AWS call on Lambda and an HTTP destination's
//   answer time, how Lambda's CPU share stretches CPU time, the log lines Lambda, API Gateway and S3 server
//   access logging add, the monthly volume the amortized items are computed at.

import { randomUUID } from 'node:crypto';
import { loadavg } from 'node:os';
import { dirname, join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { type AttributeValue, GetItemCommand } from '@aws-sdk/client-dynamodb';
import { EventBridgeClient } from '@aws-sdk/client-eventbridge';
import type { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import * as z from 'zod';
import type { Config } from '../config';
import { decodeLambdaConfig } from '../config/lambda-config';
import { LIST_INDEX } from '../config/list-index';
import { dedupWindowSeconds, recordTtlSeconds } from '../config/retention';
import { type DestinationResources, ENV } from '../config/runtime';
import {
  FORWARD_METRICS,
  METRICS_NAMESPACE,
  PROCESS_METRICS,
  SERVICE,
  VERIFY_METRICS,
} from '../config/telemetry';
import { type AwsClients, createAwsClients } from '../lambdas/adapters/clients';
import { DynamoDestinationStates } from '../lambdas/adapters/dynamo-destination-states';
import { DynamoForwardLog } from '../lambdas/adapters/dynamo-forward-log';
import { DynamoInbox } from '../lambdas/adapters/dynamo-inbox';
import { DynamoResourceVersions } from '../lambdas/adapters/dynamo-resource-versions';
import { jsonTelemetry } from '../lambdas/adapters/json-telemetry';
import { pollerIntake } from '../lambdas/adapters/lambda-destination-intake';
import { emulatorPayloadWriter } from '../lambdas/adapters/s3-payload-writer';
import { S3PayloadReader } from '../lambdas/adapters/s3-payloads';
import { SecretsManagerSource } from '../lambdas/adapters/secrets';
import { SqsForwardQueues } from '../lambdas/adapters/sqs-forward-queues';
import { SqsMessageControl } from '../lambdas/adapters/sqs-message-control';
import { SqsDeliveryQueue } from '../lambdas/adapters/sqs-queue';
import { type ReceivedMessage, SqsQueueOps } from '../lambdas/adapters/sqs-queue-ops';
import { entrySize } from '../lambdas/core/destinations/eventbridge-entry';
import type { ForwardQueues } from '../lambdas/core/destinations/ports';
import { newDestinationSecret } from '../lambdas/core/destinations/signing';
import { payloadKey } from '../lambdas/core/envelope';
import { inboxKey, type NewClaim } from '../lambdas/core/inbox';
import { type Inbox, type SecretSource, systemClock } from '../lambdas/core/ports';
import { SCHEMES } from '../lambdas/core/schemes';
import { type BatchMetricSink, type LogSink, type MetricSink, noMetrics } from '../lambdas/core/telemetry';
import { defineEvent } from '../lambdas/events';
import { forwardLambda } from '../lambdas/forward/middy-chain';
import { buildSenders } from '../lambdas/forward/senders';
import { processLambda } from '../lambdas/process/middy-chain';
import type { ProcessHandler } from '../lambdas/process/process-handler';
import { verifyLambda } from '../lambdas/verify/middy-chain';
import type { VerifyHandler } from '../lambdas/verify/verify-handler';
import type { Emulators } from '../local/emulators';
import { provisionDestinations } from '../local/forwarding';
import { type ProvisionedResources, provisionResources } from '../local/resources';
import { restProxyEvent } from '../local/rest-proxy-event';
import { sqsRecordFrom } from '../local/sqs-event-source';
import { archiveNote } from './lib/archive-cost';
import {
  CallRecorder,
  callKey,
  dynamoItemBytes,
  indexEntry,
  indexWrites,
  type RecordedCall,
  sqsPayloadBytes,
} from './lib/aws-calls';
import { signedDelivery } from './lib/bodies';
import { runTsChild, startTsChild, type TsChild } from './lib/child';
import {
  type Cell,
  GB,
  type Line,
  lineList,
  logPriceLabel,
  logPricePerGb,
  MILLION,
  MONTH_DAYS,
  mergeRows,
  num,
  total,
  usd,
} from './lib/cost-lines';
import {
  DESTINATION_LINE_ORDER,
  DESTINATION_NAME,
  type DestinationUsage,
  destinationLines,
  FORWARD_TYPES,
  type ForwardType,
} from './lib/destination-cost';
import { formatBytes } from './lib/format';
import { median, percentile } from './lib/measure';
import { loadPrices, PRICE_FILE, type PriceKey, type Prices } from './lib/prices';
import { type Column, defineSection, SectionAbort, type SectionContext } from './lib/section';
import type { ForwarderFacts, FunctionFacts, TemplateFacts } from './lib/template-facts';

const HERE = dirname(fileURLToPath(import.meta.url));
const ROOT = join(HERE, '..');
const PROVIDER = 'standard-webhooks';
const EVENT_TYPE = 'invoice.paid';
/**
 * Your handler's own work is not ours to price: a handler that parses the event and does nothing stands in
 * for it (the shipped examples log a line each, which would be counted as ours).
 */
const SILENT_HANDLERS = [
  defineEvent({ provider: PROVIDER, type: '*', schema: z.object({}).loose(), handle: () => undefined }),
];
const REGION = 'us-east-1';
const SMALL_BYTES = 1024;
const LARGE_BYTES = 256 * 1024;

/** Deliveries per body size. Processor batches are built from the same deliveries. */
const FULL = {
  small: { warmup: 30, measured: 300, singles: 100 },
  large: { warmup: 10, measured: 60 },
  forward: { small: { warmup: 10, measured: 100, singles: 20 }, large: { warmup: 5, measured: 20 } },
};
const QUICK = {
  small: { warmup: 10, measured: 60, singles: 20 },
  large: { warmup: 10, measured: 20 },
  forward: { small: { warmup: 5, measured: 20, singles: 5 }, large: { warmup: 5, measured: 10 } },
};

// ---- Stated assumptions (printed with the results) ----

/**
 * Time waiting on the network per AWS call from a Lambda in the same region, on top of the SDK's own CPU
 * work (which is measured). Not measured here: this machine has no AWS.
 */
const NETWORK_MS: Record<string, number> = {
  'dynamodb:PutItem': 5,
  'dynamodb:UpdateItem': 5,
  'dynamodb:GetItem': 5,
  'dynamodb:DeleteItem': 5,
  'sqs:SendMessage': 10,
  'sqs:ChangeMessageVisibility': 10,
  's3:PutObject': 40,
  's3:GetObject': 25,
  'secrets:GetSecretValue': 20,
  'eventbridge:PutEvents': 20,
};
const DEFAULT_NETWORK_MS = 10;
/** AWS: at 1,769 MB a function has the equivalent of one vCPU; CPU share is proportional to memory. */
const ONE_VCPU_MB = 1769;
const MONTH_SECONDS = MONTH_DAYS * 86_400;
/** The volume the per-month items (secret fetches) are spread over. */
const WEBHOOKS_PER_MONTH = 1_000_000;
const WARM_VERIFY_CONTAINERS = 1;
const PROVIDERS_IN_USE = 1;
/** Idle SQS event source: long polls in parallel, each waiting up to 20 s. AWS does not publish the count. */
const IDLE_POLLERS = 5;
const LONG_POLL_SECONDS = 20;
/** DynamoDB bills 100 bytes of overhead per item on top of its data (from knowledge). */
const DYNAMO_ITEM_OVERHEAD_BYTES = 100;
/** The listing index (config/list-index.ts); its entries carry the table's key too. */
const LIST_INDEX_SHAPE = { ...LIST_INDEX, tableKeys: ['pk'] };
/** Example values the log-size estimates put where AWS fills in per-request values. */
const EXAMPLE_REQUEST_ID = 'c0ffee00-1234-4abc-8def-0123456789ab';
const EXAMPLE_TRACE_HEADER = 'Root=1-6751a2b3-0123456789abcdef01234567;Parent=0123456789abcdef;Sampled=0';
const EXAMPLE_MAX_MEMORY_MB = 100;
const ACCESS_LOG_EXAMPLE: Record<string, string> = {
  requestId: EXAMPLE_REQUEST_ID,
  'identity.sourceIp': '203.0.113.10',
  requestTime: '30/Nov/2026:05:14:42 +0000',
  httpMethod: 'POST',
  resourcePath: '/webhooks/{provider}',
  routeKey: 'POST /webhooks/{provider}',
  status: '202',
  protocol: 'HTTP/1.1',
  integrationStatus: '200',
};
/**
 * One S3 server access log record for a payload object, in S3's documented field order, with example values
 * where S3 fills in its own (owner, request and host ids, the Lambda role's session ARN, timings).
 */
function s3AccessLogRecordBytes(bodyBytes: number): number {
  const bucket = 'webhookinbox-inboxpayloadbucket1a2b3c4d-abcdefghijkl';
  const key = payloadKey(PROVIDER, 'f'.repeat(64));
  const fields = [
    '79a59df900b949e55d96a1e698fbacedfd6e09d98eacf8f8d5218e7cd47ef2be',
    bucket,
    '[01/Dec/2026:10:28:00 +0000]',
    '203.0.113.10',
    'arn:aws:sts::123456789012:assumed-role/WebhookInbox-InboxVerifyRole1A2B3C4D-AbCdEfGhIjKl/WebhookInbox-InboxVerifyFunction1A2B3C4D-AbCdEfGhIjKl',
    '3E57427F33A59F07',
    'REST.PUT.OBJECT',
    key,
    `"PUT /${key} HTTP/1.1"`,
    '200',
    '-',
    '-',
    String(bodyBytes),
    '57',
    '21',
    '"-"',
    '"aws-sdk-js/3.1164.0 ua/2.1 os/linux lang/js md/nodejs#22.12.0 api/s3#3.1164.0"',
    '-',
    's9lzHYrFp76ZVxRcpX9+5cjAnEH2ROuNkd2BHfIa6UkFVdtjf5mKR3/eTPFvsiP/XV/VLi31234=',
    'SigV4',
    'TLS_AES_128_GCM_SHA256',
    'AuthHeader',
    `${bucket}.s3.us-east-1.amazonaws.com`,
    'TLSv1.3',
    '-',
    '-',
  ];
  return Buffer.byteLength(`${fields.join(' ')}\n`);
}

// ---- Measurement ----

interface Invocation {
  records: number;
  cpuMs: number;
  wallMs: number;
  transportMs: number;
  calls: RecordedCall[];
}

interface Env {
  clients: AwsClients;
  s3Endpoint: string;
  recorder: CallRecorder;
  config: Config;
  secret: string;
  facts: TemplateFacts;
  queueOps: SqsQueueOps;
}

interface Phase {
  resources: ProvisionedResources;
  verify: VerifyHandler;
  processor: ProcessHandler;
}

function signedEvent(env: Env, id: string, size: number) {
  const provider = env.config.providers[PROVIDER];
  const scheme = SCHEMES[provider?.scheme ?? PROVIDER];
  if (!provider || !scheme) throw new SectionAbort(`the synthesized config has no ${PROVIDER} provider`);
  const { body, headers } = signedDelivery(scheme, {
    secret: env.secret,
    id,
    size,
    eventType: EVENT_TYPE,
    options: provider.options,
  });
  const headerBytes = Object.entries(headers).reduce(
    (sum, [name, value]) => sum + Buffer.byteLength(`${name}: ${value}\r\n`),
    0,
  );
  const event = restProxyEvent({
    method: 'POST',
    path: `/webhooks/${PROVIDER}`,
    headers,
    body,
    sourceIp: '203.0.113.10',
    host: 'example.execute-api.us-east-1.amazonaws.com',
  });
  return { event, requestBytes: body.length + headerBytes };
}

/** Runs `fn` with the call recorder on; CPU time is this whole process's (the emulators live elsewhere). */
async function timed<T>(env: Env, records: number, fn: () => Promise<T>): Promise<[T, Invocation]> {
  env.recorder.begin();
  const cpu = process.cpuUsage();
  const started = performance.now();
  let result: T;
  try {
    result = await fn();
  } catch (error) {
    env.recorder.end();
    throw error;
  }
  const wallMs = performance.now() - started;
  const used = process.cpuUsage(cpu);
  const calls = env.recorder.end();
  return [
    result,
    {
      records,
      cpuMs: (used.user + used.system) / 1000,
      wallMs,
      transportMs: calls.reduce((sum, c) => sum + c.ms, 0),
      calls,
    },
  ];
}

async function provision(env: Env, tag: string): Promise<ProvisionedResources> {
  const id = `cost-${tag}-${randomUUID().slice(0, 8)}`;
  return provisionResources(env.clients, env.config, {
    tableName: `${id}-inbox`,
    queueName: `${id}-queue`,
    dlqName: `${id}-dlq`,
    bucketName: `${id}-payloads`,
  });
}

function buildPhase(
  env: Env,
  resources: ProvisionedResources,
  telemetry: {
    verify: { logger: LogSink; metrics: MetricSink };
    process: { logger: LogSink; metrics: MetricSink };
  },
  wrapInbox: (inbox: Inbox) => Inbox = (inbox) => inbox,
  forwards?: ForwardQueues,
): Phase {
  const { clients, config } = env;
  const inbox = wrapInbox(new DynamoInbox(clients.dynamodb, resources.tableName));
  const secrets: SecretSource = { get: async () => [env.secret] };
  return {
    resources,
    verify: verifyLambda({
      config,
      inbox,
      queue: new SqsDeliveryQueue(clients.sqs, resources.queueUrl),
      payloads: emulatorPayloadWriter(clients.s3, resources.bucketName, env.s3Endpoint),
      secrets,
      clock: systemClock,
      ...telemetry.verify,
    }),
    processor: processLambda({
      config,
      inbox,
      payloads: new S3PayloadReader(clients.s3, resources.bucketName),
      messages: new SqsMessageControl(clients.sqs, resources.queueUrl),
      versions: new DynamoResourceVersions(clients.dynamodb, resources.tableName),
      handlers: SILENT_HANDLERS,
      forwards,
      clock: systemClock,
      defaultLeaseMs: env.facts.processor.timeoutSeconds * 1000,
      ...telemetry.process,
    }),
  };
}

const silent: LogSink = { info: () => undefined, warn: () => undefined, error: () => undefined };
const quiet = { logger: silent, metrics: noMetrics };

async function deliver(env: Env, phase: Phase, id: string, size: number, time = true) {
  const { event, requestBytes } = signedEvent(env, id, size);
  const call = () => phase.verify(event, { awsRequestId: event.requestContext.requestId });
  const [answer, invocation] = time ? await timed(env, 1, call) : [await call(), undefined];
  if (answer.statusCode !== 202)
    throw new SectionAbort(`delivery ${id} (${size} bytes) answered ${answer.statusCode}: ${answer.body}`);
  return { invocation, requestBytes, answerBytes: Buffer.byteLength(answer.body) };
}

/** Receives exactly `count` messages, as the event source would gather a full batch. */
async function receive(env: Env, queueUrl: string, count: number): Promise<ReceivedMessage[]> {
  const messages: ReceivedMessage[] = [];
  let empty = 0;
  while (messages.length < count && empty < 5) {
    const got = await env.queueOps.receive(queueUrl, {
      maxMessages: count - messages.length,
      waitSeconds: 1,
    });
    if (got.length === 0) empty++;
    messages.push(...got);
  }
  if (messages.length < count)
    throw new SectionAbort(`the queue held ${messages.length} messages, ${count} were expected`);
  return messages;
}

type BatchHandler = (
  event: SQSEvent,
  context: { getRemainingTimeInMillis(): number },
) => Promise<SQSBatchResponse>;

/** One batch through a queue's handler as the event source calls it; then the deletes, untimed. */
async function invokeBatch(
  env: Env,
  handler: BatchHandler,
  queue: { queueUrl: string; queueArn: string },
  timeoutSeconds: number,
  messages: ReceivedMessage[],
  time = true,
) {
  const event: SQSEvent = { Records: messages.map((m) => sqsRecordFrom(m, queue.queueArn, REGION)) };
  const started = Date.now();
  const call = () =>
    handler(event, { getRemainingTimeInMillis: () => timeoutSeconds * 1000 - (Date.now() - started) });
  const [response, invocation] = time ? await timed(env, messages.length, call) : [await call(), undefined];
  if (response.batchItemFailures.length > 0)
    throw new SectionAbort(`${response.batchItemFailures.length} of ${messages.length} records failed`);
  // The event source deletes what succeeded; not part of the function's time.
  await Promise.all(messages.map((m) => env.queueOps.delete(queue.queueUrl, m.receiptHandle)));
  return invocation;
}

function processBatch(env: Env, phase: Phase, messages: ReceivedMessage[], time = true) {
  return invokeBatch(
    env,
    phase.processor,
    phase.resources,
    env.facts.processor.timeoutSeconds,
    messages,
    time,
  );
}

/** The largest SendMessage payload (body and attributes) the invocations sent. */
function largestSend(invocations: Invocation[]): number {
  return Math.max(
    0,
    ...invocations.flatMap((inv) =>
      inv.calls
        .filter((c) => callKey(c) === 'sqs:SendMessage' && c.body)
        .map((c) => {
          const input = JSON.parse(c.body as string) as {
            MessageBody: string;
            MessageAttributes?: Record<string, { StringValue?: string }>;
          };
          const attributes = Object.fromEntries(
            Object.entries(input.MessageAttributes ?? {}).map(([k, v]) => [k, v.StringValue ?? '']),
          );
          return sqsPayloadBytes(input.MessageBody, attributes);
        }),
    ),
  );
}

function receivePayloadBytes(messages: ReceivedMessage[]): number {
  return messages.reduce((sum, m) => sum + sqsPayloadBytes(m.body, m.attributes), 0);
}

interface Timings {
  verify: Invocation[];
  processorFull: Invocation[];
  processorSingle: Invocation[];
  requestBytes: number;
  answerBytes: number;
  /** Largest SendMessage payload seen (body plus attributes). */
  sendPayloadBytes: number;
  /** Largest ReceiveMessage payload of a full batch. */
  receivePayloadBytes: number;
}

async function measure(
  context: SectionContext,
  env: Env,
  tag: string,
  size: number,
  plan: { warmup: number; measured: number; singles?: number },
): Promise<Timings> {
  const batch = env.facts.eventSource.batchSize;
  const phase = buildPhase(env, await provision(env, tag), { verify: quiet, process: quiet });
  const total = plan.warmup + plan.measured + (plan.singles ?? 0);
  const run = randomUUID().slice(0, 8);
  const verify: Invocation[] = [];
  let requestBytes = 0;
  let answerBytes = 0;
  context.log(`cost-model: ${formatBytes(size)}: ${total} verify invocations (${plan.warmup} warm-up)`);
  for (let i = 0; i < total; i++) {
    const done = await deliver(env, phase, `cost_${run}_${tag}_${i}`, size);
    if (i >= plan.warmup && done.invocation) verify.push(done.invocation);
    requestBytes = Math.max(requestBytes, done.requestBytes);
    answerBytes = Math.max(answerBytes, done.answerBytes);
  }
  const sendPayloadBytes = largestSend(verify);

  // Processor: warm-up batches from the warm-up deliveries, then full batches, then batches of one.
  const warmBatches = Math.max(1, Math.floor(plan.warmup / batch));
  const fullBatches = Math.floor((total - warmBatches * batch - (plan.singles ?? 0)) / batch);
  context.log(
    `cost-model: ${formatBytes(size)}: processor ${warmBatches} warm-up + ${fullBatches} batches of ${batch}` +
      (plan.singles ? ` + ${plan.singles} batches of 1` : ''),
  );
  const processorFull: Invocation[] = [];
  const processorSingle: Invocation[] = [];
  let receiveBytes = 0;
  for (let b = 0; b < warmBatches + fullBatches; b++) {
    const messages = await receive(env, phase.resources.queueUrl, batch);
    receiveBytes = Math.max(receiveBytes, receivePayloadBytes(messages));
    const invocation = await processBatch(env, phase, messages);
    if (b >= warmBatches && invocation) processorFull.push(invocation);
  }
  const rest = total - (warmBatches + fullBatches) * batch;
  for (let s = 0; s < rest; s++) {
    const invocation = await processBatch(env, phase, await receive(env, phase.resources.queueUrl, 1));
    if (plan.singles && invocation) processorSingle.push(invocation);
  }
  return {
    verify,
    processorFull,
    processorSingle,
    requestBytes,
    answerBytes,
    sendPayloadBytes,
    receivePayloadBytes: receiveBytes,
  };
}

// ---- Log bytes and item sizes (a separate, untimed pass) ----

const WRITES: Record<string, (args: unknown[]) => string> = {
  claim: (args) => {
    const claim = args[0] as NewClaim;
    return inboxKey(claim.provider, claim.dedupKey);
  },
  release: (args) => args[0] as string,
  releaseLease: (args) => args[0] as string,
  beginProcessing: (args) => args[0] as string,
  markProcessed: (args) => args[0] as string,
  markFailed: (args) => args[0] as string,
  markDeadLettered: (args) => args[0] as string,
  markRequeued: (args) => args[0] as string,
};

type StoredItem = Record<string, AttributeValue> | undefined;

/** The item as stored, read back (undefined when it is gone). */
async function readItem(env: Env, tableName: string, pk: string): Promise<StoredItem> {
  const { Item: item } = await env.clients.dynamodb.send(
    new GetItemCommand({ TableName: tableName, Key: { pk: { S: pk } }, ConsistentRead: true }),
  );
  return item;
}

/** The item's size as DynamoDB counts it, read back (0 when it is gone). */
async function itemBytes(env: Env, tableName: string, pk: string): Promise<number> {
  const item = await readItem(env, tableName, pk);
  return item ? dynamoItemBytes(item) : 0;
}

/** An Inbox that, after each write, reads the item back and records it. */
function sizingInbox(
  inner: Inbox,
  readBack: (pk: string) => Promise<StoredItem>,
  sizes: Map<string, StoredItem[]>,
): Inbox {
  return new Proxy(inner, {
    get(target, prop, receiver) {
      const value = Reflect.get(target, prop, receiver) as unknown;
      if (typeof value !== 'function') return value;
      const pkOf = typeof prop === 'string' ? WRITES[prop] : undefined;
      if (!pkOf) return value.bind(target);
      return async (...args: unknown[]) => {
        const result = await value.apply(target, args);
        const pk = pkOf(args);
        sizes.set(pk, [...(sizes.get(pk) ?? []), await readBack(pk)]);
        return result;
      };
    },
  });
}

interface Sizing {
  /** Item size after each write, in order, for the largest record seen. */
  itemSizes: number[];
  /** Write units per webhook: each write costs ceil(max(before, after) / 1 KB). */
  wru: number;
  /** The listing index's writes and write units per webhook, and its entry's final size. */
  index: { writes: number; wru: number; entryBytes: number };
  verifyLogBytes: number;
  processorLogBytesFull: number;
  processorLogBytesSingle: number | null;
}

async function sizingPass(
  context: SectionContext,
  env: Env,
  tag: string,
  size: number,
  singles: boolean,
): Promise<Sizing> {
  const batch = env.facts.eventSource.batchSize;
  const resources = await provision(env, `${tag}-sizing`);
  const sizes = new Map<string, StoredItem[]>();
  const readBack = (pk: string) => readItem(env, resources.tableName, pk);
  const count = batch + (singles ? 1 : 0);
  context.log(`cost-model: ${formatBytes(size)}: sizing pass, ${count} deliveries with log bytes counted`);
  // The telemetry both Lambda entries build (lambdas/adapters/json-telemetry.ts), with each line counted
  // instead of written to stdout (+1 for the newline the adapter adds there). Lambda sets _X_AMZN_TRACE_ID
  // for every invocation; the adapter logs its root as xray_trace_id.
  let bytes = 0;
  const telemetry = (service: string) =>
    jsonTelemetry({
      service,
      namespace: METRICS_NAMESPACE,
      env: { _X_AMZN_TRACE_ID: EXAMPLE_TRACE_HEADER },
      write: (line) => {
        bytes += Buffer.byteLength(line) + 1;
      },
    });
  const phase = buildPhase(
    env,
    resources,
    { verify: telemetry(SERVICE.verify), process: telemetry(SERVICE.process) },
    (inbox) => sizingInbox(inbox, readBack, sizes),
  );
  const run = randomUUID().slice(0, 8);
  let mark = bytes;
  for (let i = 0; i < count; i++) await deliver(env, phase, `size_${run}_${tag}_${i}`, size, false);
  const verifyLogBytes = (bytes - mark) / count;
  mark = bytes;
  await processBatch(env, phase, await receive(env, resources.queueUrl, batch), false);
  const processorLogBytesFull = bytes - mark;
  let processorLogBytesSingle: number | null = null;
  if (singles) {
    mark = bytes;
    await processBatch(env, phase, await receive(env, resources.queueUrl, 1), false);
    processorLogBytesSingle = bytes - mark;
  }
  let itemSizes: number[] = [];
  let items: StoredItem[] = [];
  for (const list of sizes.values()) {
    const bytes = list.map((item) => (item ? dynamoItemBytes(item) : 0));
    if (bytes.length > itemSizes.length || Math.max(...bytes) > Math.max(0, ...itemSizes)) {
      itemSizes = bytes;
      items = list;
    }
  }
  const entry = indexEntry(items.at(-1), LIST_INDEX_SHAPE);
  const index = { ...indexWrites(items, LIST_INDEX_SHAPE), entryBytes: entry ? dynamoItemBytes(entry) : 0 };
  let wru = 0;
  let previous = 0;
  for (const after of itemSizes) {
    wru += Math.max(1, Math.ceil(Math.max(previous, after) / 1024));
    previous = after;
  }
  return { itemSizes, wru, index, verifyLogBytes, processorLogBytesFull, processorLogBytesSingle };
}

/** Secrets Manager calls per hour, from the real SecretsManagerSource on a simulated clock, one request a second. */
async function secretCallsPerHour(cacheSeconds: number): Promise<number> {
  let calls = 0;
  const client = {
    send: async () => {
      calls++;
      return { SecretString: 'x' };
    },
  } as unknown as SecretsManagerClient;
  let now = 0;
  const source = new SecretsManagerSource(
    client,
    { [PROVIDER]: 'arn:aws:secretsmanager:us-east-1:000000000000:secret:x-AbCdEf' },
    { clock: { now: () => now }, cacheSeconds },
  );
  for (let second = 0; second < 3600; second++) {
    now = second * 1000;
    await source.get(PROVIDER);
  }
  return calls;
}

// ---- Destinations: the fan-out's copy and the forwarder, per destination type ----

/** Assumed: how long an HTTP destination takes to answer. Its own work, but the forwarder waits for it. */
const HTTP_ANSWER_MS = 100;
const DESTINATION_PATH = '/hooks';
const LOCAL_BUS = 'webhook-inbox-bench';

/** The destination server (a child process), and what it reported: one line per request. */
interface DestinationServer {
  url: string;
  secret: string;
  lines: string[];
  eventbridge: EventBridgeClient;
}

interface ForwardTimings {
  /** The processor's full batches, fanning out. */
  processor: Invocation[];
  full: Invocation[];
  single: Invocation[];
  copyBytes: number;
  receiveBytes: number;
  sendBytes: number;
  /** The delivery's record before and after its history was written. */
  itemBytes: { before: number; after: number };
  logBytes: { full: number; single: number };
}

/** What one send put on the wire: the HTTP request, the largest PutEvents entry, or the target message. */
function sendBytesOf(type: ForwardType, server: DestinationServer, invocations: Invocation[]): number {
  if (type === 'sqs') return largestSend(invocations);
  if (type === 'eventbridge') {
    const entries = invocations.flatMap((inv) =>
      inv.calls
        .filter((c) => callKey(c) === 'eventbridge:PutEvents' && c.body)
        .flatMap(
          (c) => (JSON.parse(c.body as string) as { Entries: Parameters<typeof entrySize>[0][] }).Entries,
        ),
    );
    return Math.max(
      0,
      ...entries.map((e) => entrySize({ ...e, Time: e.Time === undefined ? undefined : new Date() })),
    );
  }
  const requests = server.lines.filter((line) => line.startsWith(`${DESTINATION_PATH} `));
  if (requests.some((line) => !line.endsWith(' ok')))
    throw new SectionAbort('a forwarded request did not verify under the destination secret');
  return Math.max(0, ...requests.map((line) => Number(line.split(' ')[1]) + Number(line.split(' ')[2])));
}

/**
 * Deliveries through verify (untimed) and the processor (timed, full batches), whose fan-out puts a copy
 * on the destination's queue; then the forwarder as its event source calls it: warm-up batches, timed full
 * batches and batches of 1, and one of each with the log lines counted.
 */
async function measureForwarding(
  context: SectionContext,
  base: Env,
  stack: { facts: TemplateFacts; config: Config },
  type: ForwardType,
  size: number,
  plan: { warmup: number; measured: number; singles?: number },
  server: DestinationServer,
): Promise<ForwardTimings> {
  const env: Env = { ...base, config: stack.config, facts: stack.facts };
  const fwd = stack.facts.forwarder as ForwarderFacts;
  const resources = await provision(env, `${type}-${size}`);
  const made = await provisionDestinations(
    env.clients,
    env.config,
    resources.queueUrl.split('/').at(-1) ?? '',
  );
  const [id, queue] = Object.entries(made)[0] as [string, DestinationResources];
  const phase = buildPhase(
    env,
    resources,
    { verify: quiet, process: quiet },
    undefined,
    new SqsForwardQueues(env.clients.sqs, { [id]: queue }),
  );
  const history = new DynamoForwardLog(env.clients.dynamodb, resources.tableName);
  const payloads = new S3PayloadReader(env.clients.s3, resources.bucketName);
  // The forwarder's own builder; the bus is the bench server's stand-in, whatever the name.
  const senders = buildSenders({
    secrets: { get: async () => [server.secret] },
    eventbridge: () => server.eventbridge,
    sqs: () => env.clients.sqs,
    payloads,
    destinations: { [id]: { ...queue, busArn: LOCAL_BUS } },
    allowLoopback: true,
  });
  const forwarder = (telemetry: { logger: LogSink; metrics: BatchMetricSink }) =>
    forwardLambda({
      config: env.config,
      senders,
      history,
      states: new DynamoDestinationStates(env.clients.dynamodb, resources.tableName),
      intake: pollerIntake,
      payloads,
      messagesFor: () => new SqsMessageControl(env.clients.sqs, queue.queueUrl),
      queues: new SqsForwardQueues(env.clients.sqs, { [id]: queue }),
      clock: systemClock,
      ...telemetry,
    });
  const batch = fwd.batchSize;
  const warmBatches = Math.max(1, Math.floor(plan.warmup / batch));
  const fullBatches = Math.floor(plan.measured / batch);
  const singles = plan.singles ?? 0;
  const total = (warmBatches + fullBatches) * batch + singles + batch + 1;
  context.log(`cost-model: ${type} destination, ${formatBytes(size)}: ${total} deliveries forwarded`);
  const run = randomUUID().slice(0, 8);
  for (let i = 0; i < total; i++) await deliver(env, phase, `fwd_${run}_${i}`, size, false);
  const processor: Invocation[] = [];
  const processorBatch = env.facts.eventSource.batchSize;
  for (let left = total; left > 0; left -= processorBatch) {
    const n = Math.min(processorBatch, left);
    const invocation = await processBatch(
      env,
      phase,
      await receive(env, resources.queueUrl, n),
      n === processorBatch,
    );
    if (invocation) processor.push(invocation);
  }
  const last = inboxKey(PROVIDER, `fwd_${run}_${total - 1}`);
  const before = await itemBytes(env, resources.tableName, last);

  const timedForwarder = forwarder(quiet);
  const forward = (handler: BatchHandler, messages: ReceivedMessage[], time = true) =>
    invokeBatch(env, handler, queue, fwd.timeoutSeconds, messages, time);
  const full: Invocation[] = [];
  const single: Invocation[] = [];
  let receiveBytes = 0;
  for (let b = 0; b < warmBatches + fullBatches; b++) {
    const messages = await receive(env, queue.queueUrl, batch);
    receiveBytes = Math.max(receiveBytes, receivePayloadBytes(messages));
    const invocation = await forward(timedForwarder, messages);
    if (b >= warmBatches && invocation) full.push(invocation);
  }
  for (let s = 0; s < singles; s++) {
    const invocation = await forward(timedForwarder, await receive(env, queue.queueUrl, 1));
    if (invocation) single.push(invocation);
  }
  let bytes = 0;
  const counted = forwarder(
    jsonTelemetry({
      service: SERVICE.forward,
      namespace: METRICS_NAMESPACE,
      env: { _X_AMZN_TRACE_ID: EXAMPLE_TRACE_HEADER },
      write: (line) => {
        bytes += Buffer.byteLength(line) + 1;
      },
    }),
  );
  await forward(counted, await receive(env, queue.queueUrl, batch), false);
  const logFull = bytes;
  await forward(counted, await receive(env, queue.queueUrl, 1), false);
  if ((await history.get(last, id))?.state !== 'delivered')
    throw new SectionAbort(`the ${type} destination's last delivery is not recorded delivered`);
  return {
    processor,
    full,
    single,
    copyBytes: largestSend(processor),
    receiveBytes,
    sendBytes: sendBytesOf(type, server, [...full, ...single]),
    itemBytes: { before, after: await itemBytes(env, resources.tableName, last) },
    logBytes: { full: logFull, single: bytes - logFull },
  };
}

/** One record's chain of waits in a forwarder batch (records run in parallel), then the batch's count. */
function forwarderWaitMs(type: ForwardType, callsPerRecord: Record<string, number>): number {
  const send = { http: [], eventbridge: ['eventbridge:PutEvents'], sqs: ['sqs:SendMessage'] }[type];
  const s3 = ['s3:GetObject', 's3:PutObject'].filter((key) => (callsPerRecord[key] ?? 0) > 0);
  // The destination state (a read when the 5 s cache is cold), the history, the body, the send, the
  // history write; then the count.
  const chain = [
    'dynamodb:GetItem',
    'dynamodb:GetItem',
    ...s3,
    ...send,
    'dynamodb:UpdateItem',
    'dynamodb:UpdateItem',
  ];
  return (
    chain.reduce((sum, key) => sum + (NETWORK_MS[key] ?? DEFAULT_NETWORK_MS), 0) +
    (type === 'http' ? HTTP_ANSWER_MS : 0)
  );
}

interface ForwardModel {
  type: ForwardType;
  timings: ForwardTimings;
  full: InvocationModel;
  single: InvocationModel | null;
  usage: DestinationUsage;
  /** The same at low traffic: every batch one delivery. */
  usageSingle: DestinationUsage | null;
}

/**
 * `fanOut`: the processor's batches with the fan-out, pooled over the destination types (its work does not
 * depend on the type), against `base`, the pipeline's processor.
 */
function forwardModel(
  type: ForwardType,
  t: ForwardTimings,
  facts: TemplateFacts,
  base: SizeModel,
  fanOut: InvocationModel,
): ForwardModel {
  const fwd = facts.forwarder as ForwarderFacts;
  const perRecord = invocationModel(t.full, fwd.memoryMb).callsPerRecord;
  const waitMs = forwarderWaitMs(type, perRecord);
  const full = invocationModel(t.full, fwd.memoryMb, waitMs);
  const single = t.single.length ? invocationModel(t.single, fwd.memoryMb, waitMs) : null;
  const updates = (m: InvocationModel) => m.callsPerRecord['dynamodb:UpdateItem'] ?? 0;
  const usage: DestinationUsage = {
    type,
    batch: fwd.batchSize,
    forwarder: {
      memoryMb: fwd.memoryMb,
      billedMsPerBatch: full.billedMs,
      logRetentionDays: fwd.logRetentionDays,
    },
    processor: {
      memoryMb: facts.processor.memoryMb,
      batch: facts.eventSource.batchSize,
      // The waits it adds, and its CPU: a negative difference of the two noisy medians counts as none.
      addedMsPerBatch: Math.ceil(
        fanOut.networkMs -
          base.full.networkMs +
          Math.max(0, fanOut.cpuMedianMs - base.full.cpuMedianMs) * fanOut.cpuFactor,
      ),
      // On an item of under 1 KB (the sizing pass's), one write unit each.
      addedWru: updates(fanOut) - updates(base.full),
    },
    copyBytes: t.copyBytes,
    receiveBytes: t.receiveBytes,
    // The state's read is priced per delivery: an upper bound (see the notes).
    reads: { history: 1, state: 1 },
    historyWru: Math.max(1, Math.ceil(Math.max(t.itemBytes.before, t.itemBytes.after) / 1024)),
    historyBytes: t.itemBytes.after - t.itemBytes.before,
    ttlDays: base.ttlSeconds / 86_400,
    pitr: facts.table.pitr,
    sendBytes: t.sendBytes,
    s3: { gets: perRecord['s3:GetObject'] ?? 0, puts: perRecord['s3:PutObject'] ?? 0 },
    logBytesPerBatch: t.logBytes.full + platformLogBytes(full, fwd),
  };
  const usageSingle: DestinationUsage | null = single && {
    ...usage,
    batch: 1,
    forwarder: { ...usage.forwarder, billedMsPerBatch: single.billedMs },
    // A batch of one waits for its own send and mark; the CPU difference is left out.
    processor: { ...usage.processor, batch: 1, addedMsPerBatch: fanOut.networkMs - base.full.networkMs },
    receiveBytes: t.copyBytes,
    logBytesPerBatch: t.logBytes.single + platformLogBytes(single, fwd),
  };
  return { type, timings: t, full, single, usage, usageSingle };
}

// ---- The model ----

interface InvocationModel {
  invocations: number;
  records: number;
  cpuMedianMs: number;
  cpuP95Ms: number;
  ownWallMedianMs: number;
  emulatorCallMedianMs: number;
  /** Calls per record (per invocation for verify), by `service:Operation`. */
  callsPerRecord: Record<string, number>;
  networkMs: number;
  cpuFactor: number;
  modelMs: number;
  billedMs: number;
  billedMsP95: number;
  billedMsNoStretch: number;
}

/** `networkMs` replaces the wait modelled from the calls per record (records of a batch in parallel). */
function invocationModel(list: Invocation[], memoryMb: number, waitMs?: number): InvocationModel {
  if (list.length === 0) throw new SectionAbort('no invocations were measured');
  const records = list.reduce((sum, i) => sum + i.records, 0);
  const perRecord: Record<string, number> = {};
  for (const invocation of list)
    for (const call of invocation.calls) perRecord[callKey(call)] = (perRecord[callKey(call)] ?? 0) + 1;
  for (const key of Object.keys(perRecord)) perRecord[key] = (perRecord[key] as number) / records;
  // Records of a batch run in parallel (Powertools' BatchProcessor), so the wait is one record's chain of calls.
  const networkMs =
    waitMs ??
    Object.entries(perRecord).reduce(
      (sum, [key, count]) => sum + count * (NETWORK_MS[key] ?? DEFAULT_NETWORK_MS),
      0,
    );
  const cpuFactor = Math.max(1, ONE_VCPU_MB / memoryMb);
  const cpu = list.map((i) => i.cpuMs);
  const cpuMedianMs = median(cpu);
  const cpuP95Ms = percentile(cpu, 95);
  const modelMs = cpuMedianMs * cpuFactor + networkMs;
  return {
    invocations: list.length,
    records,
    cpuMedianMs,
    cpuP95Ms,
    ownWallMedianMs: median(list.map((i) => i.wallMs - i.transportMs)),
    emulatorCallMedianMs: median(list.flatMap((i) => i.calls.map((c) => c.ms))),
    callsPerRecord: perRecord,
    networkMs,
    cpuFactor,
    modelMs,
    billedMs: Math.ceil(modelMs),
    billedMsP95: Math.ceil(cpuP95Ms * cpuFactor + networkMs),
    billedMsNoStretch: Math.ceil(cpuMedianMs + networkMs),
  };
}

/**
 * Lambda's own lines for one invocation, as the function's logging config has them: text START, END and
 * REPORT; in JSON format, platform.start and platform.report at the INFO system level, and none at WARN.
 */
function platformLogBytes(model: InvocationModel, fn: FunctionFacts): number {
  let lines: string[];
  if (fn.logFormat !== 'JSON') {
    lines = [
      `START RequestId: ${EXAMPLE_REQUEST_ID} Version: $LATEST`,
      `END RequestId: ${EXAMPLE_REQUEST_ID}`,
      `REPORT RequestId: ${EXAMPLE_REQUEST_ID}\tDuration: ${model.modelMs.toFixed(2)} ms\tBilled Duration: ${model.billedMs} ms\tMemory Size: ${fn.memoryMb} MB\tMax Memory Used: ${EXAMPLE_MAX_MEMORY_MB} MB\t`,
    ];
  } else if (fn.systemLogLevel === 'WARN') {
    lines = [];
  } else {
    const time = '2026-12-01T12:00:00.000Z';
    lines = [
      JSON.stringify({
        time,
        type: 'platform.start',
        record: { requestId: EXAMPLE_REQUEST_ID, version: '$LATEST' },
      }),
      JSON.stringify({
        time,
        type: 'platform.report',
        record: {
          requestId: EXAMPLE_REQUEST_ID,
          metrics: {
            durationMs: Number(model.modelMs.toFixed(3)),
            billedDurationMs: model.billedMs,
            memorySizeMB: fn.memoryMb,
            maxMemoryUsedMB: EXAMPLE_MAX_MEMORY_MB,
          },
          status: 'success',
        },
      }),
    ];
  }
  return lines.reduce((sum, line) => sum + Buffer.byteLength(`${line}\n`), 0);
}

/** One access log line: the template's format with example values (measured ones where we have them). */
function accessLogBytes(
  facts: TemplateFacts,
  format: string,
  answerBytes: number,
  latencyMs: number,
): number {
  const values: Record<string, string> = {
    ...ACCESS_LOG_EXAMPLE,
    path: facts.api === 'rest' ? `/prod/webhooks/${PROVIDER}` : `/webhooks/${PROVIDER}`,
    responseLength: String(answerBytes),
    responseLatency: String(latencyMs),
    integrationLatency: String(latencyMs),
  };
  const line = format.replace(/\$context\.([A-Za-z.]+)/g, (_, name: string) => values[name] ?? '-');
  return Buffer.byteLength(`${line}\n`);
}

interface SizeModel {
  label: string;
  bodyBytes: number;
  /** The provider's dedup TTL: how long an inbox item lives. */
  ttlSeconds: number;
  timings: Timings;
  sizing: Sizing;
  verify: InvocationModel;
  full: InvocationModel;
  single: InvocationModel | null;
}

function lines(
  facts: TemplateFacts,
  m: SizeModel,
  scenario: 'full' | 'single',
  prices: Prices,
  secretsPerMonth: number,
): Line[] {
  const p = (key: PriceKey) => prices.unit(key);
  const label = (key: PriceKey) => prices.item(key).label;
  const { lines: out, add } = lineList();
  const processor = scenario === 'full' ? m.full : m.single;
  if (!processor) return [];
  const batch = scenario === 'full' ? facts.eventSource.batchSize : 1;

  if (facts.api === 'rest') {
    add(
      'api',
      'API Gateway REST API requests',
      label('apiGatewayRestRequests'),
      '1 request',
      1,
      p('apiGatewayRestRequests'),
    );
  } else if (facts.api === 'http') {
    const metered = prices.item('apiGatewayHttpRequests').meteredBytes as number;
    const units = Math.ceil(m.timings.requestBytes / metered);
    add(
      'api-http',
      'API Gateway HTTP API requests',
      label('apiGatewayHttpRequests'),
      `${units} (${formatBytes(m.timings.requestBytes)} request)`,
      units,
      p('apiGatewayHttpRequests'),
    );
  }
  // A function URL has no charge of its own: its requests are the verify Lambda's, priced below.
  if (facts.waf.webAcls > 0)
    add('waf', 'WAF requests', label('wafRequests'), '1 request', 1, p('wafRequests'));

  const gb = (mb: number) => mb / 1024;
  add(
    'verify-req',
    'Verify Lambda requests',
    label('lambdaRequests'),
    '1 invocation',
    1,
    p('lambdaRequests'),
  );
  const verifyGbs = (m.verify.billedMs / 1000) * gb(facts.verify.memoryMb);
  add(
    'verify-gbs',
    `Verify Lambda compute (${facts.verify.memoryMb} MB ${facts.verify.architectures.join(',')})`,
    label('lambdaArmGbSecond'),
    `${m.verify.billedMs} ms billed`,
    verifyGbs,
    p('lambdaArmGbSecond'),
  );
  add(
    'proc-req',
    'Processor Lambda requests',
    label('lambdaRequests'),
    `1/${batch} invocation`,
    1 / batch,
    p('lambdaRequests'),
  );
  add(
    'proc-gbs',
    `Processor Lambda compute (${facts.processor.memoryMb} MB ${facts.processor.architectures.join(',')})`,
    label('lambdaArmGbSecond'),
    `${processor.billedMs} ms/batch of ${batch}`,
    ((processor.billedMs / 1000) * gb(facts.processor.memoryMb)) / batch,
    p('lambdaArmGbSecond'),
  );

  const chunk = prices.item('sqsStandardRequests').chunkBytes as number;
  const send =
    Math.ceil(m.timings.sendPayloadBytes / chunk) * (m.verify.callsPerRecord['sqs:SendMessage'] ?? 0);
  const receivePayload = scenario === 'full' ? m.timings.receivePayloadBytes : m.timings.sendPayloadBytes;
  const receive = Math.max(1, Math.ceil(receivePayload / chunk));
  const sqsPerWebhook = send + (receive + 1) / batch;
  add(
    'sqs',
    'SQS requests',
    label('sqsStandardRequests'),
    `${num(sqsPerWebhook, 3)}: send ${send} + (receive ${receive} + delete 1)/${batch}`,
    sqsPerWebhook,
    p('sqsStandardRequests'),
  );

  const writes = ['PutItem', 'UpdateItem', 'DeleteItem'].reduce(
    (sum, op) =>
      sum +
      (m.verify.callsPerRecord[`dynamodb:${op}`] ?? 0) +
      (processor.callsPerRecord[`dynamodb:${op}`] ?? 0),
    0,
  );
  add(
    'ddb-w',
    `DynamoDB writes (${facts.table.billingMode})`,
    label('dynamodbOnDemandWrite'),
    `${num(writes)} writes, ${m.sizing.wru} WRU (items ≤ ${Math.max(...m.sizing.itemSizes)} B)`,
    m.sizing.wru,
    p('dynamodbOnDemandWrite'),
  );
  add(
    'ddb-gsi',
    `DynamoDB index writes (${LIST_INDEX.name})`,
    label('dynamodbOnDemandWrite'),
    `${num(m.sizing.index.writes)} write${m.sizing.index.writes === 1 ? '' : 's'}, ${m.sizing.index.wru} WRU (entry ${m.sizing.index.entryBytes} B)`,
    m.sizing.index.wru,
    p('dynamodbOnDemandWrite'),
  );
  const reads =
    (m.verify.callsPerRecord['dynamodb:GetItem'] ?? 0) + (processor.callsPerRecord['dynamodb:GetItem'] ?? 0);
  add(
    'ddb-r',
    'DynamoDB reads',
    label('dynamodbOnDemandRead'),
    `${num(reads)} reads`,
    reads,
    p('dynamodbOnDemandRead'),
  );

  const itemBytes = (m.sizing.itemSizes.at(-1) ?? 0) + DYNAMO_ITEM_OVERHEAD_BYTES;
  const entryBytes = m.sizing.index.entryBytes + DYNAMO_ITEM_OVERHEAD_BYTES;
  const ttlDays = m.ttlSeconds / 86_400;
  const storagePrice = p('dynamodbStorageGbMonth') + (facts.table.pitr ? p('dynamodbPitrGbMonth') : 0);
  add(
    'ddb-s',
    `DynamoDB storage${facts.table.pitr ? ' + PITR' : ''}`,
    facts.table.pitr
      ? `${label('dynamodbStorageGbMonth')} + ${label('dynamodbPitrGbMonth')}`
      : label('dynamodbStorageGbMonth'),
    `(${itemBytes} B + index ${entryBytes} B) × ${num(ttlDays)} d`,
    ((itemBytes + entryBytes) / GB) * (ttlDays / MONTH_DAYS),
    storagePrice,
  );

  const puts = m.verify.callsPerRecord['s3:PutObject'] ?? 0;
  const gets = processor.callsPerRecord['s3:GetObject'] ?? 0;
  if (puts > 0 || gets > 0) {
    add(
      's3-req',
      'S3 requests',
      `${label('s3StandardPut')}, ${label('s3StandardGet')}`,
      `${num(puts)} PUT + ${num(gets)} GET`,
      1,
      puts * p('s3StandardPut') + gets * p('s3StandardGet'),
    );
    const days = facts.payloadExpirationDays ?? 0;
    add(
      's3-s',
      'S3 storage (until the lifecycle expiry)',
      label('s3StandardStorageGbMonth'),
      `${formatBytes(m.bodyBytes)} × ${days} d`,
      puts * (m.bodyBytes / GB) * (days / MONTH_DAYS),
      p('s3StandardStorageGbMonth'),
    );
    const logDays = facts.payloadAccessLogs?.expirationDays;
    if (logDays !== undefined && logDays !== null) {
      // One record per request on the payload bucket, stored until the log bucket's expiry.
      const records = puts + gets + (processor.callsPerRecord['s3:PutObject'] ?? 0);
      const recordBytes = s3AccessLogRecordBytes(m.bodyBytes);
      add(
        's3-logs',
        'S3 server access logs (storage until their expiry)',
        label('s3StandardStorageGbMonth'),
        `${num(records)} × ${recordBytes} B × ${logDays} d`,
        records * (recordBytes / GB) * (logDays / MONTH_DAYS),
        p('s3StandardStorageGbMonth'),
      );
    }
  }

  add(
    'secrets',
    'Secrets Manager API calls (cache misses)',
    label('secretsManagerApiCalls'),
    `${num(secretsPerMonth / WEBHOOKS_PER_MONTH, 4)} (at ${WEBHOOKS_PER_MONTH / MILLION} M/month)`,
    secretsPerMonth / WEBHOOKS_PER_MONTH,
    p('secretsManagerApiCalls'),
  );

  const logLabel = (retentionDays: number | null) => logPriceLabel(prices, retentionDays);
  const logPrice = (retentionDays: number | null) => logPricePerGb(prices, retentionDays);
  const processorLog =
    scenario === 'full' ? m.sizing.processorLogBytesFull : (m.sizing.processorLogBytesSingle ?? 0);
  // One line prices both functions' logs at one retention; a template where they differ would be mispriced.
  if (facts.verify.logRetentionDays !== facts.processor.logRetentionDays)
    throw new SectionAbort('the verify and processor log groups have different retentions: price them apart');
  const lambdaLogBytes =
    m.sizing.verifyLogBytes +
    platformLogBytes(m.verify, facts.verify) +
    (processorLog + platformLogBytes(processor, facts.processor)) / batch;
  add(
    'logs-lambda',
    'CloudWatch Logs: Lambda logs',
    logLabel(facts.verify.logRetentionDays),
    `${Math.round(lambdaLogBytes)} B`,
    lambdaLogBytes / GB,
    logPrice(facts.verify.logRetentionDays),
  );
  if (facts.accessLog) {
    const access = accessLogBytes(facts, facts.accessLog.format, m.timings.answerBytes, m.verify.billedMs);
    add(
      facts.api === 'rest' ? 'logs-access-rest' : 'logs-access-http',
      `CloudWatch Logs: ${DOOR_NAME[facts.api]} access log`,
      logLabel(facts.accessLog.retentionDays),
      `${access} B`,
      access / GB,
      logPrice(facts.accessLog.retentionDays),
    );
  }
  return out;
}

// ---- Rows ----

interface CostRow extends Record<string, unknown> {
  kind: 'line' | 'total';
  item: string;
  /** Which front door the row applies to. */
  frontDoor: 'all' | FrontDoor;
  /** Destination rows: what one destination of a type adds per delivery forwarded to it. */
  destination?: 'all' | ForwardType;
  unitPrice: string;
  small: Cell | null;
  large: Cell | null;
}

const FRONT_DOORS = ['rest', 'http', 'function-url'] as const;
/** Row order: the front doors' own lines first. */
const LINE_ORDER = [
  'api',
  'api-http',
  'waf',
  'verify-req',
  'verify-gbs',
  'proc-req',
  'proc-gbs',
  'sqs',
  'ddb-w',
  'ddb-gsi',
  'ddb-r',
  'ddb-s',
  's3-req',
  's3-s',
  's3-logs',
  'secrets',
  'logs-lambda',
  'logs-access-rest',
  'logs-access-http',
];
type FrontDoor = (typeof FRONT_DOORS)[number];
const DOOR_NAME: Record<FrontDoor, string> = {
  rest: 'REST API',
  http: 'HTTP API',
  'function-url': 'Function URL',
};

/** The line items as rows; one that is the same for every front door is one row. */
function doorRows(small: Record<FrontDoor, Line[]>, large: Record<FrontDoor, Line[]>): CostRow[] {
  return mergeRows(FRONT_DOORS, DOOR_NAME, LINE_ORDER, small, large).map(({ group, ...row }) => ({
    kind: 'line',
    ...row,
    frontDoor: group,
  }));
}

function totalRow(
  item: string,
  scope: FrontDoor | ForwardType,
  small: number | null,
  large: number | null,
): CostRow {
  const asCell = (value: number | null): Cell | null =>
    value === null ? null : { basis: '', perWebhook: 1, usdPerMillion: value };
  const applies = (FRONT_DOORS as readonly string[]).includes(scope)
    ? { frontDoor: scope as FrontDoor }
    : { frontDoor: 'all' as const, destination: scope as ForwardType };
  return { kind: 'total', item, ...applies, unitPrice: '', small: asCell(small), large: asCell(large) };
}

/** What one destination of each type adds per delivery: a row per item, shared where the types agree. */
function destinationRows(small: Record<ForwardType, Line[]>, large: Record<ForwardType, Line[]>): CostRow[] {
  const rows: CostRow[] = mergeRows(
    FORWARD_TYPES,
    DESTINATION_NAME,
    DESTINATION_LINE_ORDER,
    small,
    large,
  ).map(({ group, ...row }) => ({ kind: 'line', ...row, frontDoor: 'all', destination: group }));
  for (const type of FORWARD_TYPES)
    rows.push(
      totalRow(`Total added, ${DESTINATION_NAME[type]}`, type, total(small[type]), total(large[type])),
    );
  return rows;
}

/** What one destination of a type adds to the month: its alarms, secret, metrics and idle queue polling. */
function destinationMonthly(
  type: ForwardType,
  facts: TemplateFacts,
  base: TemplateFacts,
  prices: Prices,
  secretCallsHourly: number,
): MonthlyItem[] {
  const p = (key: PriceKey) => prices.unit(key);
  const metricNames = Object.keys(FORWARD_METRICS).length;
  const idleRequests = IDLE_POLLERS * (MONTH_SECONDS / LONG_POLL_SECONDS);
  const secrets = facts.monthly.secrets - base.monthly.secrets;
  const alarmMetrics = facts.monthly.alarmMetrics - base.monthly.alarmMetrics;
  const items: MonthlyItem[] = [
    {
      item: `${alarmMetrics} alarm metrics (${facts.monthly.alarms - base.monthly.alarms} alarms; one, the forwarder's errors, is shared by every destination)`,
      usd: alarmMetrics * p('cloudwatchAlarmMetricMonth'),
    },
    {
      item: `custom metrics, ${metricNames} names with its destination dimension, if every one receives data`,
      usd: metricNames * p('cloudwatchCustomMetricMonth'),
    },
    {
      item: `idle SQS polling of its queue, ~${Math.round(idleRequests / 1000)}k requests (assumed as the inbox queue's)`,
      usd: idleRequests * p('sqsStandardRequests'),
    },
  ];
  if (secrets > 0) {
    items.push(
      { item: `${secrets} secret`, usd: secrets * p('secretsManagerSecretMonth') },
      {
        item: `its secret's reads, ${Math.round(secretCallsHourly * (MONTH_SECONDS / 3600))} a month (1 warm forwarder)`,
        usd: secretCallsHourly * (MONTH_SECONDS / 3600) * p('secretsManagerApiCalls'),
      },
    );
  }
  if (type === 'eventbridge') items.push({ item: 'the created bus (no charge of its own)', usd: 0 });
  return items;
}

interface MonthlyItem {
  item: string;
  usd: number;
}

function monthlyItems(facts: TemplateFacts, prices: Prices): MonthlyItem[] {
  const p = (key: PriceKey) => prices.unit(key);
  const metricNames = Object.keys(VERIFY_METRICS).length + Object.keys(PROCESS_METRICS).length;
  const idleRequests = IDLE_POLLERS * (MONTH_SECONDS / LONG_POLL_SECONDS);
  const items: MonthlyItem[] = [];
  if (facts.waf.webAcls > 0)
    items.push({
      item: `WAF ${facts.waf.webAcls} web ACL + ${facts.waf.rules} rules`,
      usd: facts.waf.webAcls * p('wafWebAclMonth') + facts.waf.rules * p('wafRuleMonth'),
    });
  items.push(
    {
      item: `${facts.monthly.secrets} secrets × ${prices.item('secretsManagerSecretMonth').label}`,
      usd: facts.monthly.secrets * p('secretsManagerSecretMonth'),
    },
    {
      item: `custom metrics (EMF), up to ${metricNames} names with the service dimension, if every one receives data`,
      usd: metricNames * p('cloudwatchCustomMetricMonth'),
    },
    {
      item: `${facts.monthly.alarmMetrics} alarm metrics (${facts.monthly.alarms} alarms)`,
      usd: facts.monthly.alarmMetrics * p('cloudwatchAlarmMetricMonth'),
    },
    {
      item: `${facts.monthly.dashboards} dashboard (free while the account has 3 or fewer)`,
      usd: facts.monthly.dashboards * p('cloudwatchDashboardMonth'),
    },
    {
      item: `idle SQS polling, ~${Math.round(idleRequests / 1000)}k requests (assumed ${IDLE_POLLERS} pollers × ${LONG_POLL_SECONDS} s long polls)`,
      usd: idleRequests * p('sqsStandardRequests'),
    },
  );
  return items;
}

function describeCalls(callsPerRecord: Record<string, number>): string {
  const entries = Object.entries(callsPerRecord).sort();
  return entries.length
    ? entries.map(([key, count]) => `${key.split(':')[1]} ${num(count)}`).join(', ')
    : 'none';
}

function ms(value: number): string {
  return `${value.toFixed(value < 10 ? 2 : 1)} ms`;
}

/** The destination rows' notes: where each figure comes from, what is assumed, what is left out. */
function forwardingNotes(input: {
  facts: { rest: TemplateFacts; destinations: Record<ForwardType, TemplateFacts> };
  models: Record<ForwardType, { small: ForwardModel; large: ForwardModel }>;
  fanOut: { small: InvocationModel; large: InvocationModel };
  base: { small: SizeModel; large: SizeModel };
  prices: Prices;
  monthly: Record<ForwardType, MonthlyItem[]>;
  singles: Record<ForwardType, number | null>;
}): string[] {
  const { facts, models, fanOut, base, prices } = input;
  const fwd = facts.destinations.http.forwarder as ForwarderFacts;
  const perWait100 = MILLION * 0.1 * (fwd.memoryMb / 1024) * prices.unit('lambdaArmGbSecond');
  const measured = (type: ForwardType, size: 'small' | 'large') => {
    const m = models[type][size];
    const t = m.timings;
    const single = m.single
      ? `; batches of 1 (${m.single.invocations}): CPU ${ms(m.single.cpuMedianMs)} median`
      : '';
    return (
      `  ${DESTINATION_NAME[type]}, ${base[size].label}: forwarder, ${m.full.invocations} batches of ${fwd.batchSize}: ` +
      `CPU ${ms(m.full.cpuMedianMs)} median, ${ms(m.full.cpuP95Ms)} p95 per batch${single}; AWS calls per record: ` +
      `${describeCalls(m.full.callsPerRecord)}; modelled ${ms(m.full.cpuMedianMs)} × ${m.full.cpuFactor.toFixed(2)} + ` +
      `${num(m.full.networkMs)} ms waiting = ${m.full.billedMs} ms billed per batch. Sizes: copy ${t.copyBytes} B, ` +
      `a batch's receive ${t.receiveBytes} B, send ${t.sendBytes} B, the record ${t.itemBytes.before} B before its ` +
      `history and ${t.itemBytes.after} B after; log bytes ${t.logBytes.full} B per batch of ${fwd.batchSize}, ` +
      `${t.logBytes.single} B for a batch of 1.`
    );
  };
  const result = (size: 'small' | 'large') =>
    FORWARD_TYPES.map(
      (type) => `${DESTINATION_NAME[type]} ${usd(total(destinationLines(models[type][size].usage, prices)))}`,
    ).join(', ');
  return [
    `Destinations (the "Forwarding:" rows): what one destination adds per delivery forwarded to it, on top of ` +
      'the pipeline above, the handlers kept. Read from the template, synthesized once per type with the ' +
      `handlers and one destination: the forwarder ${fwd.memoryMb} MB ${fwd.architectures.join(',')}, timeout ` +
      `${fwd.timeoutSeconds} s, one event source mapping per destination queue with BatchSize ${fwd.batchSize}, ` +
      `log retention ${fwd.logRetentionDays} d, log format ${fwd.logFormat}; the config the Lambdas get, the HTTP ` +
      "destination's URL replaced by the local server's.",
    'Measured in this run, as for the processor (the real forwarder, its middy chain over the real senders and ' +
      'adapters, a silent log sink, one batch at a time, CPU of this process): the HTTP destination a node:http ' +
      'server in a child process (bench/lib/destination-child.ts, each request verified there with the ' +
      "standardwebhooks library), EventBridge the SDK's EventBridgeClient against the same server answering " +
      'PutEvents, SQS a target queue in fauxqs:',
    ...FORWARD_TYPES.flatMap((type) => [measured(type, 'small'), measured(type, 'large')]),
    `  The processor with the fan-out (${fanOut.small.invocations} batches of ${facts.rest.eventSource.batchSize} ` +
      `pooled over the three types, 1 KiB): CPU ${ms(fanOut.small.cpuMedianMs)} median, calls per record ` +
      `${describeCalls(fanOut.small.callsPerRecord)}, against ${ms(base.small.full.cpuMedianMs)} and ` +
      `${describeCalls(base.small.full.callsPerRecord)} without destinations (256 KiB: CPU ` +
      `${ms(fanOut.large.cpuMedianMs)} against ${ms(base.large.full.cpuMedianMs)}). Priced: the waits of the calls ` +
      'it adds (records in parallel) and the CPU difference stretched, a negative one (noise: the fan-out only ' +
      'adds work) as none.',
    `Assumed: an HTTP destination answers in ${HTTP_ANSWER_MS} ms (each 100 ms more adds ${usd(perWait100 / fwd.batchSize)} ` +
      `per million in full batches, ${usd(perWait100)} in batches of 1); PutEvents waits ` +
      `${NETWORK_MS['eventbridge:PutEvents']} ms, and the other calls as above. A batch waits for one record's ` +
      'chain (the destination state, the history, the body from S3 if it is there, the send, the history write), ' +
      'then the count: records run in parallel. The EventBridge sender puts the entries that reach it in one turn ' +
      `in one request (here ${num((models.eventbridge.small.full.callsPerRecord['eventbridge:PutEvents'] ?? 0) * fwd.batchSize, 1)} ` +
      'PutEvents per batch of 5); PutEvents is billed per entry either way.',
    'Priced: the no-failure case. A retry adds a ChangeMessageVisibility (the backoff), a receive, another ' +
      'attempt with its calls and a history write. The destination state is read consistently before each ' +
      'attempt unless the container read it in the last 5 s: priced at one read per delivery, the upper bound ' +
      '(deliveries more than 5 s apart; and the records of a batch that find the cache cold each read it). A ' +
      `busy container reads it every 5 s: ${Math.round(MONTH_SECONDS / 5 / 1000)}k reads a month, ` +
      `${usd((MONTH_SECONDS / 5) * prices.unit('dynamodbOnDemandRead'))}. History reads and writes are ` +
      'consistent, on a record under 4 KB (one read unit) and 1 KB (one write unit). The fan-out mark is written ' +
      'once per delivery whatever the number of destinations, and only when the handlers run too.',
    'Data transfer out: the HTTP request as the server received it (request line, headers, body), to the ' +
      "internet at the first tier; TCP and TLS framing, and a new connection's handshake, are not counted, nor " +
      'the answer (inbound is free). A destination inside AWS is billed at AWS-internal rates instead. The ' +
      'forwarder is not in a VPC: no NAT gateway. EventBridge: delivery to rule targets in the same account is ' +
      'free; to a bus in another account, $1.00 per million more; an entry over 256 KB carries a reference to ' +
      "the body, which the forwarder writes again under the payload's own key (a PUT, no storage added). SQS: a " +
      'target encrypted with a customer managed key adds KMS requests, not counted.',
    'Forwarder log lines: per delivery a `forward delivered` line and two EMF documents (ForwardDelivered, ' +
      'ForwardLatency: json-telemetry writes each dimensioned metric at once), counted from ' +
      `lambdas/adapters/json-telemetry.ts as for the other Lambdas; Lambda's own: ${platformLogBytes(models.http.small.full, fwd)} B.`,
    ...FORWARD_TYPES.map(
      (type) =>
        `Fixed per month, each ${DESTINATION_NAME[type]} (the template against the one without destinations): ` +
        `${input.monthly[type].map((m) => `${m.item} ${usd(m.usd)}`).join('; ')}; total ` +
        `${usd(input.monthly[type].reduce((sum, m) => sum + m.usd, 0))}.`,
    ),
    `Result: forwarding to one destination adds, per million 1 KiB deliveries, ${result('small')}; at 256 KiB ` +
      `(bodies in S3) ${result('large')}; at low traffic (batches of 1) ` +
      `${FORWARD_TYPES.map((type) => `${DESTINATION_NAME[type]} ${usd(input.singles[type])}`).join(', ')} at 1 KiB. ` +
      'Plus the fixed monthly costs above.',
  ];
}

// ---- The section ----

async function run(context: SectionContext) {
  const plan = context.quick ? QUICK : FULL;
  const loadAtStart = loadavg()
    .map((v) => v.toFixed(2))
    .join('/');
  const prices = loadPrices();

  context.log('cost-model: synthesizing the stack (REST API, HTTP API, function URL) in a child process');
  const facts = await runTsChild<
    Record<FrontDoor, TemplateFacts> & { destinations: Record<ForwardType, TemplateFacts> }
  >(join(HERE, 'lib/synth-child.ts'), 600_000);
  for (const type of FORWARD_TYPES) {
    const fwd = facts.destinations[type].forwarder;
    if (!fwd?.architectures.includes('arm64'))
      throw new SectionAbort(`the ${type} destination's stack has no arm64 forwarder`);
  }
  for (const door of FRONT_DOORS) {
    for (const fn of [facts[door].verify, facts[door].processor]) {
      if (!fn.architectures.includes('arm64'))
        throw new SectionAbort(
          `${fn.logicalId} is ${fn.architectures.join(',')}; the price file has arm64 only`,
        );
    }
    if (facts[door].table.billingMode !== 'PAY_PER_REQUEST')
      throw new SectionAbort(
        `the table is ${facts[door].table.billingMode}; the model prices on-demand only`,
      );
    if (facts[door].table.tableClass !== 'STANDARD')
      throw new SectionAbort(
        `the table class is ${facts[door].table.tableClass}; the price file has Standard prices only`,
      );
  }
  const configEnv = facts.rest.verify.configEnv;
  if (configEnv === null) throw new SectionAbort(`the verify Lambda has no literal ${ENV.config}`);
  if (FRONT_DOORS.some((door) => facts[door].verify.configEnv !== configEnv))
    throw new SectionAbort("the front doors' stacks give the Lambdas different configs");
  // Decoded by the Lambdas' own reader.
  const config = decodeLambdaConfig(configEnv, ENV.config);
  const provider = config.providers[PROVIDER];
  const scheme = SCHEMES[provider?.scheme ?? PROVIDER];
  if (!provider || !scheme) throw new SectionAbort(`the synthesized config has no ${PROVIDER} provider`);
  if (FRONT_DOORS.some((door) => facts[door].eventSource.batchSize !== facts.rest.eventSource.batchSize))
    throw new SectionAbort('the front doors synthesize different batch sizes');

  context.log('cost-model: starting dynalite and fauxqs in a child process');
  const emulators = await startTsChild<Emulators['clientOptions']>(
    join(HERE, 'lib/emulators-child.ts'),
    120_000,
  );
  const clients = createAwsClients({ ...emulators.value, region: REGION });
  let destinationChild: TsChild<{ port: number }> | undefined;
  let eventbridge: EventBridgeClient | undefined;
  try {
    const recorder = new CallRecorder();
    recorder.instrument(clients);
    const env: Env = {
      clients,
      s3Endpoint: emulators.value.s3,
      recorder,
      config,
      secret: scheme.generateSecret(),
      facts: facts.rest,
      queueOps: new SqsQueueOps(clients.sqs),
    };

    const smallTimings = await measure(context, env, 'small', SMALL_BYTES, plan.small);
    const largeTimings = await measure(context, env, 'large', LARGE_BYTES, plan.large);
    const smallSizing = await sizingPass(context, env, 'small', SMALL_BYTES, true);
    const largeSizing = await sizingPass(context, env, 'large', LARGE_BYTES, false);
    const secretCalls = await secretCallsPerHour(config.secretCacheSeconds);
    const secretsPerMonth = secretCalls * (MONTH_SECONDS / 3600) * WARM_VERIFY_CONTAINERS * PROVIDERS_IN_USE;

    // The record's whole life: the dedup window, or the archive's retention if longer.
    const ttlSeconds = recordTtlSeconds(config, provider);
    const model = (label: string, bodyBytes: number, timings: Timings, sizing: Sizing): SizeModel => ({
      label,
      bodyBytes,
      ttlSeconds,
      timings,
      sizing,
      verify: invocationModel(timings.verify, facts.rest.verify.memoryMb),
      full: invocationModel(timings.processorFull, facts.rest.processor.memoryMb),
      single: timings.processorSingle.length
        ? invocationModel(timings.processorSingle, facts.rest.processor.memoryMb)
        : null,
    });
    const small = model('1 KiB', SMALL_BYTES, smallTimings, smallSizing);
    const large = model('256 KiB', LARGE_BYTES, largeTimings, largeSizing);

    context.log('cost-model: starting the destination server (HTTP, and PutEvents) in a child process');
    const serverLines: string[] = [];
    destinationChild = await startTsChild<{ port: number }>(
      join(HERE, 'lib/destination-child.ts'),
      60_000,
      (line) => void serverLines.push(line),
    );
    const server: DestinationServer = {
      url: `http://127.0.0.1:${destinationChild.value.port}`,
      secret: newDestinationSecret(),
      lines: serverLines,
      eventbridge: new EventBridgeClient({
        endpoint: `http://127.0.0.1:${destinationChild.value.port}`,
        region: REGION,
        credentials: { accessKeyId: 'bench', secretAccessKey: 'bench' },
        maxAttempts: 2,
      }),
    };
    eventbridge = server.eventbridge;
    destinationChild.send(`secret ${server.secret}`);
    recorder.instrument({ eventbridge });
    /** The destination stack's config, decoded by the Lambdas' reader; the HTTP destination posts here. */
    const stackConfig = (type: ForwardType): Config => {
      const configText = facts.destinations[type].forwarder?.configEnv;
      if (!configText)
        throw new SectionAbort(`the ${type} destination's forwarder has no literal ${ENV.config}`);
      const decoded = decodeLambdaConfig(configText, ENV.config);
      const destinations = Object.fromEntries(
        Object.entries(decoded.destinations).map(([id, d]) => [
          id,
          d.type === 'http' ? { ...d, url: `${server.url}${DESTINATION_PATH}` } : d,
        ]),
      ) as Config['destinations'];
      return { ...decoded, destinations };
    };
    const forwardTimings = {} as Record<ForwardType, { small: ForwardTimings; large: ForwardTimings }>;
    for (const type of FORWARD_TYPES) {
      const stack = { facts: facts.destinations[type], config: stackConfig(type) };
      const measured = (size: number, sizePlan: { warmup: number; measured: number; singles?: number }) =>
        measureForwarding(context, env, stack, type, size, sizePlan, server);
      forwardTimings[type] = {
        small: await measured(SMALL_BYTES, plan.forward.small),
        large: await measured(LARGE_BYTES, plan.forward.large),
      };
    }
    const fanOutAt = (size: 'small' | 'large') =>
      invocationModel(
        FORWARD_TYPES.flatMap((type) => forwardTimings[type][size].processor),
        facts.rest.processor.memoryMb,
      );
    const fanOut = { small: fanOutAt('small'), large: fanOutAt('large') };
    const forwardModels = Object.fromEntries(
      FORWARD_TYPES.map((type) => {
        const at = (size: 'small' | 'large', base: SizeModel) =>
          forwardModel(type, forwardTimings[type][size], facts.destinations[type], base, fanOut[size]);
        return [type, { small: at('small', small), large: at('large', large) }];
      }),
    ) as Record<ForwardType, { small: ForwardModel; large: ForwardModel }>;
    const destinationLinesAt = (size: 'small' | 'large') =>
      Object.fromEntries(
        FORWARD_TYPES.map((type) => [type, destinationLines(forwardModels[type][size].usage, prices)]),
      ) as Record<ForwardType, Line[]>;
    const destinationSmall = destinationLinesAt('small');
    const destinationLarge = destinationLinesAt('large');
    const destinationSingle = Object.fromEntries(
      FORWARD_TYPES.map((type) => {
        const single = forwardModels[type].small.usageSingle;
        return [type, single ? total(destinationLines(single, prices)) : null];
      }),
    ) as Record<ForwardType, number | null>;
    // The same, with Lambda running the measured CPU work at full core speed (no stretch).
    const unstretched = (m: SizeModel): SizeModel => {
      const at = (i: InvocationModel): InvocationModel => ({ ...i, billedMs: i.billedMsNoStretch });
      return { ...m, verify: at(m.verify), full: at(m.full), single: m.single ? at(m.single) : null };
    };
    const largeToS3 = LARGE_BYTES > config.inlineLimitBytes;

    const linesFor = (m: SizeModel, scenario: 'full' | 'single') =>
      Object.fromEntries(
        FRONT_DOORS.map((door) => [door, lines(facts[door], m, scenario, prices, secretsPerMonth)]),
      ) as Record<FrontDoor, Line[]>;
    const smallLines = linesFor(small, 'full');
    const largeLines = linesFor(large, 'full');
    const singleLines = linesFor(small, 'single');
    const rows = doorRows(smallLines, largeLines);
    const batch = facts.rest.eventSource.batchSize;
    for (const door of FRONT_DOORS) {
      const name = `${DOOR_NAME[door]}${facts[door].waf.webAcls > 0 ? ' + WAF' : ''}`;
      rows.push(totalRow(`Total, ${name}`, door, total(smallLines[door]), total(largeLines[door])));
    }
    for (const door of FRONT_DOORS) {
      const name = `${DOOR_NAME[door]}${facts[door].waf.webAcls > 0 ? ' + WAF' : ''}`;
      rows.push(totalRow(`Total, ${name}, processor batches of 1`, door, total(singleLines[door]), null));
    }
    rows.push(...destinationRows(destinationSmall, destinationLarge));
    for (const type of FORWARD_TYPES) {
      const single = destinationSingle[type];
      if (single !== null)
        rows.push(totalRow(`Total added, ${DESTINATION_NAME[type]}, batches of 1`, type, single, null));
    }

    const columns: Column<CostRow>[] = [
      { header: 'Item', cell: (r) => (r.kind === 'total' ? r.item.toUpperCase() : r.item) },
      { header: 'Unit price', cell: (r) => r.unitPrice },
      { header: 'Per webhook\n1 KiB body', cell: (r) => r.small?.basis ?? '-' },
      { header: '$ per 1M\n1 KiB', cell: (r) => usd(r.small?.usdPerMillion), align: 'right' },
      {
        header: `Per webhook\n256 KiB body${largeToS3 ? ' (S3)' : ''}`,
        cell: (r) => r.large?.basis ?? '-',
      },
      { header: '$ per 1M\n256 KiB', cell: (r) => usd(r.large?.usdPerMillion), align: 'right' },
    ];

    const f = facts.rest;
    const items = prices.file.items;
    const knowledge = (Object.keys(items) as PriceKey[]).filter((k) => items[k].confirmed === 'knowledge');
    const restTotal = total(smallLines.rest);
    const httpTotal = total(smallLines.http);
    const urlTotal = total(smallLines['function-url']);
    const chunk = prices.item('sqsStandardRequests').chunkBytes as number;
    const base64 = (n: number) => Math.ceil(n / 3) * 4;
    const envelopeOverhead = smallTimings.sendPayloadBytes - base64(SMALL_BYTES);
    const inlineEnvelope = base64(config.inlineLimitBytes) + envelopeOverhead;
    const initPer100ms = MILLION * 0.01 * 0.1 * (f.verify.memoryMb / 1024) * prices.unit('lambdaArmGbSecond');
    const verifyP95Extra = (m: SizeModel) =>
      MILLION *
      ((m.verify.billedMsP95 - m.verify.billedMs) / 1000) *
      (f.verify.memoryMb / 1024) *
      prices.unit('lambdaArmGbSecond');
    const monthly = Object.fromEntries(
      FRONT_DOORS.map((door) => [door, monthlyItems(facts[door], prices)]),
    ) as Record<FrontDoor, MonthlyItem[]>;
    const networkList = Object.entries(NETWORK_MS)
      .map(([key, value]) => `${key.split(':')[1]} ${value} ms`)
      .join(', ');
    const measured = (m: SizeModel) => {
      const single = m.single
        ? ` Batches of 1 (${m.single.invocations}): CPU ${ms(m.single.cpuMedianMs)} median, ${ms(m.single.cpuP95Ms)} p95.`
        : '';
      return (
        `  ${m.label}: verify, ${m.verify.invocations} invocations: CPU ${ms(m.verify.cpuMedianMs)} median, ` +
        `${ms(m.verify.cpuP95Ms)} p95; own wall time (minus emulator calls) ${ms(m.verify.ownWallMedianMs)} median; ` +
        `AWS calls per invocation: ${describeCalls(m.verify.callsPerRecord)} (emulator round trip ` +
        `${ms(m.verify.emulatorCallMedianMs)} median, replaced by the assumption below). Processor, ` +
        `${m.full.invocations} batches of ${batch}: CPU ${ms(m.full.cpuMedianMs)} median per batch, ` +
        `${ms(m.full.cpuP95Ms)} p95; calls per record: ${describeCalls(m.full.callsPerRecord)}.${single} ` +
        `Sizes: request ${m.timings.requestBytes} B, SendMessage payload ${m.timings.sendPayloadBytes} B, ` +
        `full-batch receive ${m.timings.receivePayloadBytes} B, item after each write ` +
        `${m.sizing.itemSizes.join('/')} B. Log bytes (app lines + EMF): verify ` +
        `${Math.round(m.sizing.verifyLogBytes)} B per invocation, processor ${m.sizing.processorLogBytesFull} B ` +
        `per batch of ${batch}${m.sizing.processorLogBytesSingle === null ? '' : ` (${m.sizing.processorLogBytesSingle} B for a batch of 1)`}.`
      );
    };
    const modelled = (m: SizeModel) => {
      const single = m.single ? `; batch of 1 ${m.single.billedMs} ms` : '';
      return (
        `  ${m.label}: verify ${ms(m.verify.cpuMedianMs)} × ${m.verify.cpuFactor.toFixed(2)} + ` +
        `${num(m.verify.networkMs)} ms network = ${m.verify.billedMs} ms billed (at p95 CPU ` +
        `${m.verify.billedMsP95} ms: +${usd(verifyP95Extra(m))} per million; without the CPU stretch ` +
        `${m.verify.billedMsNoStretch} ms). Processor batch of ${batch}: ${ms(m.full.cpuMedianMs)} × ` +
        `${m.full.cpuFactor.toFixed(2)} + ${num(m.full.networkMs)} ms = ${m.full.billedMs} ms billed${single}.`
      );
    };

    const notes = [
      `Prices: ${PRICE_FILE.slice(ROOT.length + 1)}, ${prices.file.region}, ${prices.file.currency}, date ` +
        `"${prices.file.date}" (compiled ${prices.file.compiledOn}). ${Object.keys(items).length - knowledge.length} ` +
        `of ${Object.keys(items).length} figures were found in stored copies of public pages (mostly third-party ` +
        `pages quoting AWS; AWS's own pages render their tables client-side), ${knowledge.length} are from ` +
        `knowledge only (${knowledge.join(', ')}). First tiers, no free tier. Check current prices before relying on a total.`,
      `Read from the template (synthesized offline for each front door, bundling skipped): verify ` +
        `${f.verify.memoryMb} MB ${f.verify.architectures.join(',')} ${f.verify.runtime}, processor ` +
        `${f.processor.memoryMb} MB ${f.processor.architectures.join(',')}; SQS event source BatchSize ` +
        `${f.eventSource.batchSize}, batching window ${f.eventSource.maxBatchingWindowSeconds} s, ` +
        `${f.eventSource.functionResponseTypes.join(',') || 'no partial batch responses'}; table ` +
        `${f.table.billingMode}, PITR ${f.table.pitr ? 'on' : 'off'}, TTL on ${f.table.ttlAttribute ?? 'nothing'}; ` +
        `log retention ${f.verify.logRetentionDays}/${f.processor.logRetentionDays}/${f.accessLog?.retentionDays} days ` +
        `(verify/processor/access; the function URL has no access log), Lambda log format ${f.verify.logFormat}, ` +
        `REST execution logging ${f.executionLogLevel}; WAF ${facts.rest.waf.webAcls} web ACL with ` +
        `${facts.rest.waf.rules} rules on REST, ${facts.http.waf.webAcls} on the HTTP API, ` +
        `${facts['function-url'].waf.webAcls} on the function URL; payload objects expire after ` +
        `${f.payloadExpirationDays} days, their server access logs ` +
        `${f.payloadAccessLogs ? `after ${f.payloadAccessLogs.expirationDays ?? 'never'} days` : 'are off'}; ` +
        `Lambda tracing ${f.verify.tracing}. The Lambdas' config (${ENV.config}, decoded by config/runtime.ts): inline limit ` +
        `${config.inlineLimitBytes} B (so 256 KiB ${largeToS3 ? 'goes to S3' : 'stays inline'}), secret cache ` +
        `${config.secretCacheSeconds} s, dedup TTL ${ttlSeconds / 86_400} d.`,
      "Measured in this run (the Lambdas' middy chains over the real handlers, no metrics and a silent log sink, one " +
        'delivery or one batch at a time, against dynalite and fauxqs in a child process; CPU is this ' +
        "process's user+system time, so the emulators' work is not in it):",
      measured(small),
      measured(large),
      `Assumed, per AWS call, the in-region network wait on Lambda (not measured: no AWS here): ${networkList}, ` +
        `others ${DEFAULT_NETWORK_MS} ms; the SDK's CPU work for each call is in the measured CPU. The records of ` +
        "a batch run in parallel (Powertools BatchProcessor), so a batch waits for one record's chain of calls.",
      `Assumed, Lambda CPU: the CPU share is proportional to memory (1,769 MB = 1 vCPU), so measured CPU time is ` +
        `stretched × ${small.verify.cpuFactor.toFixed(2)} at ${f.verify.memoryMb} MB, on a core as fast as this ` +
        "machine's; CPU and waits are not overlapped (an upper bound). Duration = CPU × stretch + network, billed " +
        'per 1 ms, at the median CPU:',
      modelled(small),
      modelled(large),
      `SQS: billed per ${chunk / 1024} KB of body + attributes: one SendMessage per delivery, and per batch one ` +
        'ReceiveMessage by the event source plus one DeleteMessageBatch (assumed: Lambda deletes the successful ' +
        `messages in one call). Bodies near the inline limit go base64 in the message: at ${config.inlineLimitBytes} B ` +
        `the envelope is ~${inlineEnvelope} B (the 1 KiB envelope's measured overhead), ` +
        `${Math.ceil(inlineEnvelope / chunk)} requests per send and ${Math.ceil((inlineEnvelope * batch) / chunk)} ` +
        `per full receive.`,
      `DynamoDB: write units from the item size read back after each write (DynamoDB's size rules), ` +
        `ceil(max(before, after) / 1 KB) per write; a body up to archive.inlineMaxBytes is in the item from the lease on. ` +
        `Index writes (${LIST_INDEX.name}): from the same read-backs, by DynamoDB's GSI rule (an entry put or ` +
        'deleted 1, an index key changed 2, a projected attribute alone changed 1, else 0; ceil(entry / 1 KB) ' +
        `WRU each): ${num(small.sizing.index.writes)} per webhook here (no failures); a failure or dead letter ` +
        'moves the entry to an attention partition (2 more), a redrive moves it back (2). Storage: ' +
        `the final item and its ${LIST_INDEX.name} entry, each + ${DYNAMO_ITEM_OVERHEAD_BYTES} B overhead (assumed), for the record's life (${num(ttlSeconds / 86_400)} d); TTL deletion lag ` +
        `not counted. ${largeToS3 ? `S3: the body is stored until the lifecycle expiry (${f.payloadExpirationDays} d); each request on it leaves a server access log record (${s3AccessLogRecordBytes(LARGE_BYTES)} B: S3's format with example values), stored until the log bucket's expiry; log delivery itself is free.` : ''}`,
      `Secrets Manager: the real SecretsManagerSource on a simulated clock (cache ${config.secretCacheSeconds} s, ` +
        `one request a second) made ${secretCalls} GetSecretValue calls an hour (AWSCURRENT and AWSPREVIOUS per ` +
        `refresh). Assumed: ${WARM_VERIFY_CONTAINERS} warm verify container and ${PROVIDERS_IN_USE} provider in ` +
        `use all month, ${WEBHOOKS_PER_MONTH.toLocaleString('en-US')} webhooks a month: ` +
        `${Math.round(secretsPerMonth).toLocaleString('en-US')} calls a month, whatever the volume.`,
      'Logs: app lines and EMF metric lines counted from lambdas/adapters/json-telemetry.ts, the adapter both ' +
        'Lambda entries use, in an untimed pass, with _X_AMZN_TRACE_ID set as Lambda sets it (one verify pass ' +
        'serves every front door: it is fed the REST proxy event, and a function URL event reaches the same ' +
        'code after lambdas/verify/front-door-event.ts); ' +
        `Lambda's own lines (log format ${f.verify.logFormat}, system log level ${f.verify.systemLogLevel}: ` +
        `${f.verify.logFormat === 'JSON' && f.verify.systemLogLevel === 'WARN' ? 'none for a successful invocation' : 'START and REPORT'}) and the ` +
        'access log line are the formats with example values (request id, IP, time) and the modelled durations. ' +
        'Storage over the retention is an upper bound (AWS bills it compressed). GB = 10^9 bytes.',
      `Processor batches: BatchSize ${batch} with a ${f.eventSource.maxBatchingWindowSeconds} s window fills ` +
        'batches only when messages wait; at low traffic most batches hold one message: the "batches of 1" ' +
        'totals are that case, measured.',
      ...FRONT_DOORS.map(
        (door) =>
          `Fixed per month, ${DOOR_NAME[door]} (template counts × price file): ` +
          `${monthly[door].map((m) => `${m.item} ${usd(m.usd)}`).join('; ')}; total ` +
          `${usd(monthly[door].reduce((sum, m) => sum + m.usd, 0))}.`,
      ),
      `Without the CPU stretch (this CPU work at full core speed on Lambda): verify ` +
        `${small.verify.billedMsNoStretch}/${large.verify.billedMsNoStretch} ms, processor ` +
        `${small.full.billedMsNoStretch}/${large.full.billedMsNoStretch} ms per batch (1 KiB/256 KiB) billed; totals ` +
        FRONT_DOORS.map(
          (door) =>
            `${DOOR_NAME[door]} ${usd(total(lines(facts[door], unstretched(small), 'full', prices, secretsPerMonth)))} ` +
            `(1 KiB), ${usd(total(lines(facts[door], unstretched(large), 'full', prices, secretsPerMonth)))} (256 KiB)`,
        ).join(', ') +
        '.',
      `Result, 1 KiB bodies: ${usd(restTotal)} per million on the REST API with WAF, ${usd(httpTotal)} on the ` +
        `HTTP API (${(restTotal / httpTotal).toFixed(2)}x), ${usd(urlTotal)} on the function URL (no API ` +
        `Gateway, WAF or access log lines); 256 KiB bodies: ${usd(total(largeLines.rest))}, ` +
        `${usd(total(largeLines.http))} and ${usd(total(largeLines['function-url']))}. Plus the fixed monthly costs above.`,
      `Not included: free tiers; Lambda INIT time, billed since 2025-08-01 for on-demand ZIP functions (each 100 ms ` +
        `of INIT at 1% cold starts adds ${usd(initPer100ms)} per million); KMS requests for the table's AWS ` +
        'managed key; data transfer out for the answers; retries, duplicates and rejected requests; X-Ray; ' +
        "your event handlers' own work (a handler that does nothing stands in for it).",
      `Noise: a shared, loaded 2-core machine (load average ${loadAtStart} at the start, ` +
        `${loadavg()
          .map((v) => v.toFixed(2))
          .join('/')} at the end). CPU times on it are inflated by the load and move from run to run, and ` +
        `stretched they are most of each modelled Lambda duration (1 KiB verify: ` +
        `${num(small.verify.cpuMedianMs * small.verify.cpuFactor, 1)} ms of CPU against ${num(small.verify.networkMs)} ms ` +
        'of network), so read the Lambda compute lines as an upper bound and the request-priced lines as firm.',
    ];
    notes.push(
      ...forwardingNotes({
        facts,
        models: forwardModels,
        fanOut,
        base: { small, large },
        prices,
        monthly: Object.fromEntries(
          FORWARD_TYPES.map((type) => [
            type,
            destinationMonthly(type, facts.destinations[type], facts.rest, prices, secretCalls),
          ]),
        ) as Record<ForwardType, MonthlyItem[]>,
        singles: destinationSingle,
      }),
    );
    notes.push(
      archiveNote({
        archive: config.archive,
        // Without a body in it: the 256 KiB record names the payload object verify wrote.
        recordBytes: (large.sizing.itemSizes.at(-1) ?? 0) + DYNAMO_ITEM_OVERHEAD_BYTES,
        dedupDays: dedupWindowSeconds(config, provider) / 86_400,
        pitr: facts.rest.table.pitr,
        prices: {
          wru: prices.unit('dynamodbOnDemandWrite'),
          dynamodbStorage: prices.unit('dynamodbStorageGbMonth'),
          dynamodbPitr: prices.unit('dynamodbPitrGbMonth'),
          s3Put: prices.unit('s3StandardPut'),
          s3GbMonth: prices.unit('s3StandardStorageGbMonth'),
        },
      }),
    );
    return { columns, rows, notes };
  } finally {
    for (const client of Object.values(clients)) client.destroy();
    eventbridge?.destroy();
    await destinationChild?.stop();
    await emulators.stop();
  }
}

export default defineSection<CostRow>({ name: 'cost-model', title: 'Cost model', run });
