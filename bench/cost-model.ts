// Section: cost model. Cost per million webhooks from the AWS list prices in bench/data/aws-prices.json, for
// the configuration the CDK app synthesizes, with each front door (REST API with WAF, HTTP API, Lambda
// function URL), arm64.
//
// Where every figure comes from:
// - read from the template: synthesized offline in a child process (bench/lib/synth-child.ts) for every
//   front door: each Lambda's memory, architecture and log group, the SQS event source's batch size, the
//   table's billing mode, PITR and TTL, log retention, access log format, WAF rules, payload expiry and
//   that of its server access logs, and the config the Lambdas get (inline limit, secret cache, dedup TTL).
// - measured in this run: the real verify and processor handlers (built with their factories, no metrics,
//   a silent log sink) run in this process against dynalite and fauxqs in a child process, one delivery or
//   one batch at a time. Per invocation: this process's CPU time (process.cpuUsage), the AWS calls made
//   (counted at the SDK's transport), item sizes, message sizes. A separate small pass counts log bytes
//   from lambdas/adapters/json-telemetry.ts, the adapter both Lambda entries use, its lines counted
//   instead of printed.
// - assumed, and printed as such: the in-region time of each AWS call on Lambda, how Lambda's CPU share
//   stretches CPU time, the log lines Lambda, API Gateway and S3 server access logging add, the monthly
//   volume the amortized items are computed at.

import { randomUUID } from 'node:crypto';
import { loadavg } from 'node:os';
import { dirname, join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { GetItemCommand } from '@aws-sdk/client-dynamodb';
import type { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import type { SQSEvent } from 'aws-lambda';
import * as z from 'zod';
import type { Config } from '../config';
import { decodeLambdaConfig } from '../config/lambda-config';
import { ENV } from '../config/runtime';
import { METRICS_NAMESPACE, PROCESS_METRICS, SERVICE, VERIFY_METRICS } from '../config/telemetry';
import { type AwsClients, createAwsClients } from '../lambdas/adapters/clients';
import { DynamoInbox } from '../lambdas/adapters/dynamo-inbox';
import { DynamoResourceVersions } from '../lambdas/adapters/dynamo-resource-versions';
import { jsonTelemetry } from '../lambdas/adapters/json-telemetry';
import { emulatorPayloadWriter } from '../lambdas/adapters/s3-payload-writer';
import { S3PayloadReader } from '../lambdas/adapters/s3-payloads';
import { SecretsManagerSource } from '../lambdas/adapters/secrets';
import { SqsMessageControl } from '../lambdas/adapters/sqs-message-control';
import { SqsDeliveryQueue } from '../lambdas/adapters/sqs-queue';
import { type ReceivedMessage, SqsQueueOps } from '../lambdas/adapters/sqs-queue-ops';
import { payloadKey } from '../lambdas/core/envelope';
import { inboxKey, type NewClaim } from '../lambdas/core/inbox';
import { type Inbox, type SecretSource, systemClock } from '../lambdas/core/ports';
import { SCHEMES } from '../lambdas/core/schemes';
import { type LogSink, type MetricSink, noMetrics } from '../lambdas/core/telemetry';
import { defineEvent } from '../lambdas/events';
import type { ProcessHandler } from '../lambdas/process/create-handler';
import { processLambda } from '../lambdas/process/lambda';
import type { VerifyHandler } from '../lambdas/verify/create-handler';
import { verifyLambda } from '../lambdas/verify/lambda';
import { type ProvisionedResources, provisionResources } from '../local/resources';
import { restProxyEvent } from '../local/rest-proxy-event';
import { sqsRecordFrom } from '../local/sqs-event-source';
import { CallRecorder, callKey, dynamoItemBytes, type RecordedCall, sqsPayloadBytes } from './lib/aws-calls';
import { jsonBody } from './lib/bodies';
import { runTsChild, startTsChild } from './lib/child';
import { formatBytes } from './lib/format';
import { median, percentile } from './lib/measure';
import { loadPrices, PRICE_FILE, type PriceKey, type Prices } from './lib/prices';
import { type Column, defineSection, SectionAbort, type SectionContext } from './lib/section';
import type { FunctionFacts, TemplateFacts } from './lib/template-facts';

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
const FULL = { small: { warmup: 30, measured: 300, singles: 100 }, large: { warmup: 10, measured: 60 } };
const QUICK = { small: { warmup: 10, measured: 60, singles: 20 }, large: { warmup: 10, measured: 20 } };

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
};
const DEFAULT_NETWORK_MS = 10;
/** AWS: at 1,769 MB a function has the equivalent of one vCPU; CPU share is proportional to memory. */
const ONE_VCPU_MB = 1769;
const MILLION = 1_000_000;
const MONTH_DAYS = 30.4375;
const MONTH_SECONDS = MONTH_DAYS * 86_400;
/** Bytes in a billed GB: 10^9, the larger count of GBs (AWS may mean 2^30). */
const GB = 1e9;
/** The volume the per-month items (secret fetches) are spread over. */
const WEBHOOKS_PER_MONTH = 1_000_000;
const WARM_VERIFY_CONTAINERS = 1;
const PROVIDERS_IN_USE = 1;
/** Idle SQS event source: long polls in parallel, each waiting up to 20 s. AWS does not publish the count. */
const IDLE_POLLERS = 5;
const LONG_POLL_SECONDS = 20;
/** DynamoDB bills 100 bytes of overhead per item on top of its data (from knowledge). */
const DYNAMO_ITEM_OVERHEAD_BYTES = 100;
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
  const body = jsonBody(size, id, EVENT_TYPE, { timestamp: new Date().toISOString() });
  const signed = scheme.sign({
    body,
    secret: env.secret,
    timestamp: Math.floor(Date.now() / 1000),
    id,
    eventType: EVENT_TYPE,
    options: provider.options,
  });
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  for (const [name, value] of Object.entries(signed)) headers[name.toLowerCase()] = value;
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

async function processBatch(env: Env, phase: Phase, messages: ReceivedMessage[], time = true) {
  const { queueUrl, queueArn } = phase.resources;
  const event: SQSEvent = { Records: messages.map((m) => sqsRecordFrom(m, queueArn, REGION)) };
  const timeoutMs = env.facts.processor.timeoutSeconds * 1000;
  const started = Date.now();
  const call = () =>
    phase.processor(event, { getRemainingTimeInMillis: () => timeoutMs - (Date.now() - started) });
  const [response, invocation] = time ? await timed(env, messages.length, call) : [await call(), undefined];
  if (response.batchItemFailures.length > 0)
    throw new SectionAbort(
      `the processor failed ${response.batchItemFailures.length} of ${messages.length} records`,
    );
  // The event source deletes what succeeded; not part of the function's time.
  await Promise.all(messages.map((m) => env.queueOps.delete(queueUrl, m.receiptHandle)));
  return invocation;
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
  const sendPayloadBytes = Math.max(
    0,
    ...verify.flatMap((inv) =>
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

/** An Inbox that, after each write, reads the item back and records its size (0 when it is gone). */
function sizingInbox(
  inner: Inbox,
  sizeOf: (pk: string) => Promise<number>,
  sizes: Map<string, number[]>,
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
        sizes.set(pk, [...(sizes.get(pk) ?? []), await sizeOf(pk)]);
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
  const sizes = new Map<string, number[]>();
  const sizeOf = async (pk: string) => {
    const { Item: item } = await env.clients.dynamodb.send(
      new GetItemCommand({ TableName: resources.tableName, Key: { pk: { S: pk } }, ConsistentRead: true }),
    );
    return item ? dynamoItemBytes(item) : 0;
  };
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
    (inbox) => sizingInbox(inbox, sizeOf, sizes),
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
  for (const list of sizes.values()) {
    if (list.length > itemSizes.length || Math.max(...list) > Math.max(0, ...itemSizes)) itemSizes = list;
  }
  let wru = 0;
  let previous = 0;
  for (const after of itemSizes) {
    wru += Math.max(1, Math.ceil(Math.max(previous, after) / 1024));
    previous = after;
  }
  return { itemSizes, wru, verifyLogBytes, processorLogBytesFull, processorLogBytesSingle };
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

function invocationModel(list: Invocation[], memoryMb: number): InvocationModel {
  if (list.length === 0) throw new SectionAbort('no invocations were measured');
  const records = list.reduce((sum, i) => sum + i.records, 0);
  const perRecord: Record<string, number> = {};
  for (const invocation of list)
    for (const call of invocation.calls) perRecord[callKey(call)] = (perRecord[callKey(call)] ?? 0) + 1;
  for (const key of Object.keys(perRecord)) perRecord[key] = (perRecord[key] as number) / records;
  // Records of a batch run in parallel (Powertools' BatchProcessor), so the wait is one record's chain of calls.
  const networkMs = Object.entries(perRecord).reduce(
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

interface Line {
  key: string;
  item: string;
  unitPrice: string;
  basis: string;
  perWebhook: number;
  usdPerMillion: number;
}

function usd(value: number | null | undefined): string {
  if (value === null || value === undefined) return '-';
  if (value === 0) return '$0';
  if (value >= 100) return `$${value.toFixed(0)}`;
  if (value >= 0.095) return `$${value.toFixed(2)}`;
  return `$${value.toPrecision(2)}`;
}

function num(value: number, digits = 2): string {
  return Number.isInteger(value) ? String(value) : value.toFixed(digits).replace(/\.?0+$/, '');
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
  const out: Line[] = [];
  const add = (
    key: string,
    item: string,
    price: string,
    basis: string,
    perWebhook: number,
    usdEach: number,
  ) =>
    out.push({
      key,
      item,
      unitPrice: price,
      basis,
      perWebhook,
      usdPerMillion: perWebhook * usdEach * MILLION,
    });
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
  const ttlDays = m.ttlSeconds / 86_400;
  const storagePrice = p('dynamodbStorageGbMonth') + (facts.table.pitr ? p('dynamodbPitrGbMonth') : 0);
  add(
    'ddb-s',
    `DynamoDB storage${facts.table.pitr ? ' + PITR' : ''}`,
    facts.table.pitr
      ? `${label('dynamodbStorageGbMonth')} + ${label('dynamodbPitrGbMonth')}`
      : label('dynamodbStorageGbMonth'),
    `${itemBytes} B × ${num(ttlDays)} d`,
    (itemBytes / GB) * (ttlDays / MONTH_DAYS),
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

  const logLabel = (retentionDays: number | null) =>
    `${label('cloudwatchLogsIngestionGb')} + ${label('cloudwatchLogsStorageGbMonth')} for ${retentionDays ?? 'a month of'} d`;
  const logPrice = (retentionDays: number | null) =>
    p('cloudwatchLogsIngestionGb') +
    p('cloudwatchLogsStorageGbMonth') * ((retentionDays ?? MONTH_DAYS) / MONTH_DAYS);
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

interface Cell {
  basis: string;
  perWebhook: number;
  usdPerMillion: number;
}

interface CostRow extends Record<string, unknown> {
  kind: 'line' | 'total';
  item: string;
  /** Which front door the row applies to. */
  frontDoor: 'all' | FrontDoor;
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

function cell(line: Line | undefined): Cell | null {
  return line ? { basis: line.basis, perWebhook: line.perWebhook, usdPerMillion: line.usdPerMillion } : null;
}

function sameCell(a: Cell | null, b: Cell | null): boolean {
  if (a === null || b === null) return a === b;
  return a.basis === b.basis && Math.abs(a.usdPerMillion - b.usdPerMillion) < 1e-9;
}

/**
 * One row per line item; a row applies to all front doors when it is the same for all. A line only some
 * have is named for each that has it: "(REST API only)" for one, "(REST API)", "(HTTP API)" for several.
 */
function mergeRows(small: Record<FrontDoor, Line[]>, large: Record<FrontDoor, Line[]>): CostRow[] {
  const keys: string[] = [...LINE_ORDER];
  for (const door of FRONT_DOORS)
    for (const line of [...small[door], ...large[door]]) if (!keys.includes(line.key)) keys.push(line.key);
  const rows: CostRow[] = [];
  for (const key of keys) {
    const find = (list: Line[]) => list.find((l) => l.key === key);
    const per = Object.fromEntries(
      FRONT_DOORS.map((door) => {
        const s = find(small[door]);
        const l = find(large[door]);
        return [door, { s, l, any: s ?? l }];
      }),
    ) as Record<FrontDoor, { s?: Line; l?: Line; any?: Line }>;
    const present = FRONT_DOORS.filter((door) => per[door].any);
    const [first] = present;
    if (!first) continue;
    const shared =
      present.length === FRONT_DOORS.length &&
      present.every(
        (door) =>
          sameCell(cell(per[first].s), cell(per[door].s)) && sameCell(cell(per[first].l), cell(per[door].l)),
      );
    for (const door of shared ? [first] : present) {
      const { s, l, any } = per[door];
      const item = (any as Line).item;
      rows.push({
        kind: 'line',
        item: shared
          ? item
          : present.length > 1
            ? `${item} (${DOOR_NAME[door]})`
            : item.includes(DOOR_NAME[door])
              ? item
              : `${item} (${DOOR_NAME[door]} only)`,
        frontDoor: shared ? 'all' : door,
        unitPrice: (any as Line).unitPrice,
        small: cell(s),
        large: cell(l),
      });
    }
  }
  return rows;
}

function total(list: Line[]): number {
  return list.reduce((sum, line) => sum + line.usdPerMillion, 0);
}

function totalRow(item: string, door: FrontDoor, small: number | null, large: number | null): CostRow {
  const asCell = (value: number | null): Cell | null =>
    value === null ? null : { basis: '', perWebhook: 1, usdPerMillion: value };
  return { kind: 'total', item, frontDoor: door, unitPrice: '', small: asCell(small), large: asCell(large) };
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

// ---- The section ----

async function run(context: SectionContext) {
  const plan = context.quick ? QUICK : FULL;
  const loadAtStart = loadavg()
    .map((v) => v.toFixed(2))
    .join('/');
  const prices = loadPrices();

  context.log('cost-model: synthesizing the stack (REST API, HTTP API, function URL) in a child process');
  const facts = await runTsChild<Record<FrontDoor, TemplateFacts>>(join(HERE, 'lib/synth-child.ts'), 600_000);
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
  const emulators = await startTsChild<{ dynamodb: string; sqs: string; s3: string }>(
    join(HERE, 'lib/emulators-child.ts'),
    120_000,
  );
  const clients = createAwsClients({ ...emulators.value, region: REGION });
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

    const ttlSeconds = provider.dedupTtlSeconds;
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
    const rows = mergeRows(smallLines, largeLines);
    const batch = facts.rest.eventSource.batchSize;
    for (const door of FRONT_DOORS) {
      const name = `${DOOR_NAME[door]}${facts[door].waf.webAcls > 0 ? ' + WAF' : ''}`;
      rows.push(totalRow(`Total, ${name}`, door, total(smallLines[door]), total(largeLines[door])));
    }
    for (const door of FRONT_DOORS) {
      const name = `${DOOR_NAME[door]}${facts[door].waf.webAcls > 0 ? ' + WAF' : ''}`;
      rows.push(totalRow(`Total, ${name}, processor batches of 1`, door, total(singleLines[door]), null));
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
        `ceil(max(before, after) / 1 KB) per write; the items hold no body, so both sizes cost the same. Storage: ` +
        `the final item + ${DYNAMO_ITEM_OVERHEAD_BYTES} B overhead (assumed) for the dedup TTL; TTL deletion lag ` +
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
    return { columns, rows, notes };
  } finally {
    for (const client of Object.values(clients)) client.destroy();
    await emulators.stop();
  }
}

export default defineSection<CostRow>({ name: 'cost-model', title: 'Cost model', run });
