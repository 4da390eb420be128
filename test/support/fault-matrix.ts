// The fault matrix of the delivery guarantees: for each dependency call of the verify and processor
// Lambdas, each way AWS fails it, and each kind of sender, run real deliveries through the real handlers
// against the emulators and count what happened. Every cell gets its own table, queues, bucket and SDK
// clients, so cells can run side by side and a fault never leaks into another cell.
//
// Time is real and short: a one-second retry schedule, a one-second claim lease, a three-second "Lambda
// timeout" and a four-second queue visibility, so an abandoned invocation's messages come back quickly.
import { randomUUID } from 'node:crypto';
import { Readable } from 'node:stream';
import { SetQueueAttributesCommand } from '@aws-sdk/client-sqs';
import type { HttpRequest, HttpResponse } from '@smithy/types';
import type { SQSBatchResponse } from 'aws-lambda';
import { z } from 'zod';
import { type Config, parseConfig } from '../../config';
import { type AwsClients, createAwsClients } from '../../lambdas/adapters/clients';
import { DynamoInbox } from '../../lambdas/adapters/dynamo-inbox';
import { DynamoResourceVersions } from '../../lambdas/adapters/dynamo-resource-versions';
import { S3PayloadWriter } from '../../lambdas/adapters/s3-payload-writer';
import { S3PayloadReader } from '../../lambdas/adapters/s3-payloads';
import { SqsMessageControl } from '../../lambdas/adapters/sqs-message-control';
import { SqsDeliveryQueue } from '../../lambdas/adapters/sqs-queue';
import { SqsQueueOps } from '../../lambdas/adapters/sqs-queue-ops';
import { type Clock, systemClock } from '../../lambdas/core/ports';
import { standardWebhooks } from '../../lambdas/core/schemes/standard-webhooks';
import { noMetrics } from '../../lambdas/core/telemetry';
import { defineEvent, PermanentError } from '../../lambdas/events';
import { processLambda } from '../../lambdas/process/middy-chain';
import { verifyLambda } from '../../lambdas/verify/middy-chain';
import type { VerifyResponse } from '../../lambdas/verify/verify-handler';
import { sqsRecordFrom } from '../../local/sqs-event-source';
import type { EmulatorContext } from './emulators';
import { type AttemptFault, type Fault, injectAttemptFault, injectFault, throttled } from './faults';
import { CapturingLogger, StaticSecrets, signedEvent } from './pipeline';
import { isDeadLetterMark, isLease, isProcessedMark } from './rendered-writes';
import type { StrictSqsStats } from './strict-sqs';

// Three writes a delivery (claim, lease, processed mark) and the calls between them: verify writes no
// mark after the send, so there is no fourth row to break.
export const VERIFY_OPS = ['claim', 's3 put', 'SendMessage'] as const;
export const PROCESSOR_OPS = ['payload load', 'lease', 'handler', 'mark', 'dead-letter'] as const;
export type Op = (typeof VERIFY_OPS)[number] | (typeof PROCESSOR_OPS)[number];

export const FAULTS = [
  'fails before the call',
  'applied, answer lost',
  'abandoned midway',
  'throttled',
] as const;
export type FaultKind = (typeof FAULTS)[number];

export const SENDERS = ['github', 'stripe'] as const;
/** GitHub does not retry a failed delivery; Stripe retries any non-2xx with backoff. */
export type Sender = (typeof SENDERS)[number];

export interface Cell {
  op: Op;
  fault: FaultKind;
  sender: Sender;
}

export interface CellResult extends Cell {
  sent: number;
  /** Answered 2xx at least once (202, or 200 duplicate). */
  accepted: number;
  /** Never answered 2xx: the sender gave up (GitHub on its first 5xx). Visible to the operator there. */
  refused: number;
  /** Whose effect ran (or, in the dead-letter row, that ended dead-lettered with the message in the DLQ). */
  processed: number;
  /** Answered 2xx, yet not processed by the end: must be 0. */
  lost: number;
  /** Deliveries whose effect ran more than once. */
  effectsTwice: number;
  /** A same-body retry answered 409: must be 0. */
  sameBody409: number;
  /** A different body under an accepted delivery's id answered 2xx: must be 0. */
  conflict202: number;
  /** Set where a second effect cannot be prevented by the inbox (it ran before a crash). */
  unavoidable?: string;
  /** The dead-letter row: deliveries whose record says dead-lettered and whose message is in the DLQ. */
  deadLettered?: number;
  /** How many calls (or attempts) the fault failed: a cell whose fault never fired proves nothing. */
  faultsInjected: number;
  /** What the SQS double did to the cell's receives, when the file runs through it. */
  sqs?: StrictSqsStats;
}

const DELIVERIES = 6;
const FUNCTION_TIMEOUT_MS = 3_000;
const VERIFY_TIMEOUT_MS = 2_000;
const VISIBILITY_SECONDS = 4;
const CELL_DEADLINE_MS = 45_000;

export const MATRIX_CONFIG: Config = parseConfig({
  providers: { 'standard-webhooks': { scheme: 'standard-webhooks' } },
  queue: { retrySchedule: [1, 1, 1, 1], batchSize: 10 },
  claimLeaseSeconds: 1,
  inlineLimitBytes: 1024,
});
const PROVIDER = 'standard-webhooks';

/** Where a second effect is the handler's to absorb (with ctx.idempotencyKey), not the inbox's. */
export function unavoidableDouble(cell: Cell): string | undefined {
  if (cell.op !== 'handler') return undefined;
  if (cell.fault === 'applied, answer lost')
    return 'the handler threw after its effect ran: the retry runs it again';
  if (cell.fault === 'abandoned midway')
    return 'a crash after the effect, before the mark: the retry runs it again';
  return undefined;
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
const never = () => new Promise<never>(() => undefined);
const str = (value: unknown): string => (typeof value === 'string' ? value : '');
const pkOf = (input: Record<string, unknown>): string =>
  str(
    (input.Key as { pk?: { S?: string } } | undefined)?.pk?.S ??
      (input.Item as { pk?: { S?: string } })?.pk?.S,
  );

/**
 * The first `times` calls (or SDK attempts) of each delivery fail: every delivery meets the fault once,
 * and its recovery, not a blanket outage, is what the cell measures.
 */
function firstPerKey(
  keyOf: (input: Record<string, unknown>) => string,
  times: number,
  only?: (input: Record<string, unknown>) => boolean,
) {
  const seen = new Map<string, number>();
  return (input: Record<string, unknown>): boolean => {
    if (only && !only(input)) return false;
    const key = keyOf(input);
    const count = seen.get(key) ?? 0;
    if (count >= times) return false;
    seen.set(key, count + 1);
    return true;
  };
}

const ATTEMPT_FAULT: Record<Exclude<FaultKind, 'fails before the call'>, AttemptFault> = {
  'applied, answer lost': 'lost-answer',
  'abandoned midway': 'hang-after',
  throttled: 'throttled',
};

/** The emulator clients retry once (maxAttempts 2): a throttle on both attempts reaches our code. */
const THROTTLED_ATTEMPTS = 2;

function injectOnClient(
  client: Parameters<typeof injectFault>[0],
  command: string,
  fault: FaultKind,
  keyOf: (input: Record<string, unknown>) => string,
  only?: (input: Record<string, unknown>) => boolean,
): Fault {
  if (fault === 'fails before the call') {
    return injectFault(client, { commands: command, match: firstPerKey(keyOf, 1, only) });
  }
  const times = fault === 'throttled' ? THROTTLED_ATTEMPTS : 1;
  return injectAttemptFault(client, {
    commands: command,
    fault: ATTEMPT_FAULT[fault],
    match: firstPerKey(keyOf, times, only),
  });
}

interface Injected {
  /** The S3 transport for the s3-put row. */
  transport?: RequestHandlerLike;
  failures(): number;
}

/** Installs the cell's fault on the SDK clients (the handler row's is in effectHandler). */
function installFault(cell: Cell, clients: AwsClients, handlerFaults: () => number): Injected {
  const { op, fault } = cell;
  const on = (injected: Fault): Injected => ({ failures: () => injected.failures });
  const onUpdate = (is: (input: Record<string, unknown>) => boolean) =>
    on(injectOnClient(clients.dynamodb, 'UpdateItemCommand', fault, pkOf, is));
  switch (op) {
    case 'claim':
      return on(injectOnClient(clients.dynamodb, 'PutItemCommand', fault, pkOf));
    case 'SendMessage':
      return on(
        injectOnClient(clients.sqs, 'SendMessageCommand', fault, (input) =>
          str(JSON.parse(str(input.MessageBody)).id),
        ),
      );
    case 's3 put':
      return faultyTransport(clients, fault);
    case 'payload load':
      return on(injectOnClient(clients.s3, 'GetObjectCommand', fault, (input) => str(input.Key)));
    case 'lease':
      return onUpdate(isLease);
    case 'mark':
      return onUpdate(isProcessedMark);
    case 'dead-letter':
      return onUpdate(isDeadLetterMark);
    case 'handler':
      return { failures: handlerFaults };
  }
}

interface RequestHandlerLike {
  handle(request: HttpRequest): Promise<{ response: HttpResponse }>;
}

/**
 * The verify Lambda writes large bodies with its own signed PUT, not an SDK command, so its faults go into
 * the transport it sends through. "Before" and "throttled" fail every attempt of the first call (the
 * writer retries transient failures itself); the other two hit its first attempt.
 */
function faultyTransport(clients: AwsClients, fault: FaultKind): Injected {
  const real = clients.s3.config.requestHandler as unknown as RequestHandlerLike;
  const attempts = fault === 'fails before the call' || fault === 'throttled' ? THROTTLED_ATTEMPTS : 1;
  const hit = firstPerKey((input) => str(input.path), attempts);
  let failures = 0;
  const transport: RequestHandlerLike = {
    handle: async (request) => {
      if (!hit({ path: request.path })) return real.handle(request);
      failures++;
      switch (fault) {
        case 'fails before the call':
          throw Object.assign(new Error('injected fault: connection refused'), { code: 'ECONNREFUSED' });
        case 'throttled':
          return {
            response: {
              statusCode: 503,
              headers: {},
              body: Readable.from([Buffer.from('<Error><Code>SlowDown</Code></Error>')]),
            } as HttpResponse,
          };
        case 'applied, answer lost': {
          const { response } = await real.handle(request);
          (response.body as Readable | undefined)?.resume?.();
          throw Object.assign(new Error('injected fault: socket hang up'), { code: 'ECONNRESET' });
        }
        case 'abandoned midway':
          await real.handle(request);
          return never();
      }
    },
  };
  return { transport, failures: () => failures };
}

/** A transient failure of the handler's own, on its first run per delivery, as the `handler` row needs. */
class DownstreamTimeout extends Error {
  override name = 'DownstreamTimeout';
}

function effectHandler(cell: Cell, effects: Map<string, number>, onFault: () => void) {
  const firstRun = new Set<string>();
  return defineEvent({
    provider: PROVIDER,
    type: '*',
    schema: z.object({ type: z.string() }),
    handle: async (_data, ctx) => {
      const key = ctx.dedupKey;
      const first = !firstRun.has(key);
      firstRun.add(key);
      const effect = () => effects.set(key, (effects.get(key) ?? 0) + 1);
      if (cell.op === 'dead-letter') {
        effect();
        throw new PermanentError('rejected_downstream');
      }
      if (cell.op !== 'handler' || !first) return void effect();
      onFault();
      switch (cell.fault) {
        case 'fails before the call':
          throw new DownstreamTimeout('downstream timed out');
        case 'throttled':
          throw throttled();
        case 'applied, answer lost':
          effect();
          throw new DownstreamTimeout('the answer of the downstream call was lost');
        case 'abandoned midway':
          effect();
          return never();
      }
    },
  });
}

interface Pipeline {
  verify(event: ReturnType<typeof signedEvent>): Promise<VerifyResponse | undefined>;
  processOnce(): Promise<number>;
  clients: AwsClients;
  inbox: DynamoInbox;
  ops: SqsQueueOps;
}

async function buildPipeline(ctx: EmulatorContext, cell: Cell, secret: string, effects: Map<string, number>) {
  const resources = await ctx.provision();
  const clients = createAwsClients(ctx.emulators.clientOptions);
  // The file's SQS double, when it has one: receives as SQS answers them (short, shuffled, twice).
  const double = ctx.strictSqs(clients.sqs);
  const ops = new SqsQueueOps(clients.sqs);
  await clients.sqs.send(
    new SetQueueAttributesCommand({
      QueueUrl: resources.queueUrl,
      Attributes: { VisibilityTimeout: String(VISIBILITY_SECONDS) },
    }),
  );
  let handlerFaults = 0;
  const injected = installFault(cell, clients, () => handlerFaults);
  const transport = injected.transport;
  const clock: Clock = systemClock;
  const inbox = new DynamoInbox(clients.dynamodb, resources.tableName);
  const verifyHandler = verifyLambda({
    config: MATRIX_CONFIG,
    inbox,
    queue: new SqsDeliveryQueue(clients.sqs, resources.queueUrl),
    payloads: new S3PayloadWriter({
      bucket: resources.bucketName,
      bucketUrl: `${ctx.emulators.endpoints.s3.replace(/\/+$/, '')}/${encodeURIComponent(resources.bucketName)}/`,
      signing: clients.s3.config,
      requestHandler: transport ?? (clients.s3.config.requestHandler as unknown as RequestHandlerLike),
    }),
    secrets: new StaticSecrets({ [PROVIDER]: [secret] }),
    clock,
    logger: new CapturingLogger(),
    metrics: noMetrics,
  });
  const processor = processLambda({
    config: MATRIX_CONFIG,
    inbox,
    payloads: new S3PayloadReader(clients.s3, resources.bucketName),
    messages: new SqsMessageControl(clients.sqs, resources.queueUrl),
    versions: new DynamoResourceVersions(clients.dynamodb, resources.tableName),
    handlers: [
      effectHandler(cell, effects, () => {
        handlerFaults++;
      }),
    ],
    clock,
    logger: new CapturingLogger(),
    metrics: noMetrics,
    defaultLeaseMs: FUNCTION_TIMEOUT_MS,
    leaseMarginMs: 500,
  });
  const timeout = <T>(promise: Promise<T>, ms: number) =>
    Promise.race([promise, sleep(ms).then(() => undefined)]);

  const pipeline: Pipeline = {
    clients,
    inbox,
    ops,
    // API Gateway gives up on a Lambda that does not answer in time: the sender sees a 5xx.
    verify: (event) => timeout(verifyHandler(event), VERIFY_TIMEOUT_MS),
    // Lambda's event source: a batch per invocation; a timed-out invocation deletes nothing, and its
    // messages come back when their visibility runs out.
    processOnce: async () => {
      const messages = await ops.receive(resources.queueUrl, { maxMessages: 10, waitSeconds: 1 });
      if (messages.length === 0) return 0;
      const started = Date.now();
      const response: SQSBatchResponse | undefined = await timeout(
        processor(
          { Records: messages.map((m) => sqsRecordFrom(m, resources.queueArn)) },
          { getRemainingTimeInMillis: () => FUNCTION_TIMEOUT_MS - (Date.now() - started) },
        ),
        FUNCTION_TIMEOUT_MS,
      );
      if (response === undefined) return messages.length;
      const failed = new Set(response.batchItemFailures.map((f) => f.itemIdentifier));
      await Promise.all(
        messages
          .filter((m) => !failed.has(m.messageId))
          .map((m) => ops.delete(resources.queueUrl, m.receiptHandle)),
      );
      return messages.length;
    },
  };
  return { pipeline, resources, injected, double };
}

interface Answers {
  statuses: number[];
}

/** One delivery as the sender sends it: once (GitHub), or until a 2xx with backoff and Retry-After (Stripe). */
async function send(
  pipeline: Pipeline,
  sender: Sender,
  event: ReturnType<typeof signedEvent>,
  maxAttempts: number,
) {
  const answers: Answers = { statuses: [] };
  for (let attempt = 1; attempt <= (sender === 'github' ? 1 : maxAttempts); attempt++) {
    const response = await pipeline.verify(event);
    const status = response?.statusCode ?? 504;
    answers.statuses.push(status);
    if (status >= 200 && status < 300) break;
    const retryAfter = Number(response?.headers['retry-after'] ?? 0) * 1000;
    await sleep(Math.min(2_000, Math.max(retryAfter, 250 * 2 ** (attempt - 1))));
  }
  return answers;
}

const bodyOf = (i: number, variant = 'a') =>
  JSON.stringify({
    type: 'order.paid',
    timestamp: '2026-12-01T09:00:00Z',
    // Even deliveries are over the inline limit, so they go through S3.
    data: { n: i, variant, pad: i % 2 === 0 ? 'x'.repeat(1500) : '' },
  });

export async function runCell(ctx: EmulatorContext, cell: Cell): Promise<CellResult> {
  const secret = standardWebhooks.generateSecret();
  const effects = new Map<string, number>();
  const { pipeline, resources, injected, double } = await buildPipeline(ctx, cell, secret, effects);
  const cellId = randomUUID().slice(0, 8);
  const eventFor = (i: number, variant = 'a') =>
    signedEvent(PROVIDER, MATRIX_CONFIG, {
      body: bodyOf(i, variant),
      secret,
      timestamp: Math.floor(Date.now() / 1000),
      id: `msg_${cellId}_${i}`,
    });
  const keys = Array.from({ length: DELIVERIES }, (_, i) => `msg_${cellId}_${i}`);

  let sendersDone = false;
  const sending = Promise.all(keys.map((_, i) => send(pipeline, cell.sender, eventFor(i), 10))).finally(
    () => {
      sendersDone = true;
    },
  );
  const accepted = (answers: Answers) => answers.statuses.some((s) => s >= 200 && s < 300);
  const settled = async (acceptedKeys: string[]) => {
    if (cell.op !== 'dead-letter') return acceptedKeys.every((key) => (effects.get(key) ?? 0) > 0);
    const records = await Promise.all(acceptedKeys.map((key) => pipeline.inbox.get(`${PROVIDER}#${key}`)));
    const dlq = await pipeline.ops.counts(resources.dlqUrl);
    return records.every((r) => r?.status === 'dead-lettered') && dlq.visible >= acceptedKeys.length;
  };

  const deadline = Date.now() + CELL_DEADLINE_MS;
  let answers: Answers[] = [];
  for (;;) {
    await pipeline.processOnce();
    if (!sendersDone) continue;
    answers = await sending;
    const acceptedKeys = keys.filter((_, i) => accepted(answers[i] as Answers));
    const counts = await pipeline.ops.counts(resources.queueUrl);
    const queueEmpty = counts.visible + counts.inFlight + counts.delayed === 0;
    if ((queueEmpty && (await settled(acceptedKeys))) || Date.now() > deadline) break;
  }

  // A different body under the id of a delivery that was accepted: never 202.
  const probeIndex = keys.findIndex((_, i) => accepted(answers[i] as Answers));
  let conflict202 = 0;
  if (probeIndex >= 0) {
    const probe = await send(pipeline, cell.sender, eventFor(probeIndex, 'b'), 3);
    conflict202 = probe.statuses.filter((s) => s === 202).length;
  }

  const acceptedKeys = keys.filter((_, i) => accepted(answers[i] as Answers));
  let processedKeys: string[];
  let deadLettered: number | undefined;
  if (cell.op === 'dead-letter') {
    const dlqBodies = (await ctx.receiveAll(resources.dlqUrl)).map((m) => str(JSON.parse(m.body).dedupkey));
    const records = await Promise.all(keys.map((key) => pipeline.inbox.get(`${PROVIDER}#${key}`)));
    processedKeys = keys.filter(
      (key, i) => records[i]?.status === 'dead-lettered' && dlqBodies.includes(key),
    );
    deadLettered = processedKeys.length;
  } else {
    processedKeys = keys.filter((key) => (effects.get(key) ?? 0) > 0);
  }
  for (const client of Object.values(pipeline.clients)) client.destroy();
  return {
    ...cell,
    sent: keys.length,
    accepted: acceptedKeys.length,
    refused: keys.length - acceptedKeys.length,
    processed: processedKeys.length,
    lost: acceptedKeys.filter((key) => !processedKeys.includes(key)).length,
    effectsTwice: [...effects.values()].filter((count) => count > 1).length,
    sameBody409: answers.reduce((sum, a) => sum + a.statuses.filter((s) => s === 409).length, 0),
    conflict202,
    unavoidable: unavoidableDouble(cell),
    faultsInjected: injected.failures(),
    ...(deadLettered === undefined ? {} : { deadLettered }),
    ...(double === undefined ? {} : { sqs: { ...double.stats } }),
  };
}

export function allCells(): Cell[] {
  const cells: Cell[] = [];
  for (const op of [...VERIFY_OPS, ...PROCESSOR_OPS])
    for (const fault of FAULTS) for (const sender of SENDERS) cells.push({ op, fault, sender });
  return cells;
}

/** The table bench/RESULTS.md shows: one row per cell. */
export function renderTable(results: readonly CellResult[]): string {
  const side = (op: Op) => ((VERIFY_OPS as readonly string[]).includes(op) ? 'verify' : 'processor');
  const columns = [
    'Lambda',
    'call',
    'fault',
    'sender',
    'faults injected',
    'sent',
    '2xx',
    'refused',
    'processed',
    'lost',
    'effect twice',
    'note',
  ];
  const header = `| ${columns.join(' | ')} |`;
  const rule = `|${columns.map(() => '---').join('|')}|`;
  const rows = results.map((r) => {
    const note = [
      r.op === 'dead-letter' ? `dead-lettered ${r.deadLettered ?? 0}, in the DLQ` : '',
      r.effectsTwice > 0 && r.unavoidable ? `unavoidable: ${r.unavoidable}` : '',
    ]
      .filter(Boolean)
      .join('; ');
    const cells = [
      side(r.op),
      r.op,
      r.fault,
      r.sender,
      r.faultsInjected,
      r.sent,
      r.accepted,
      r.refused,
      r.processed,
      r.lost,
      r.effectsTwice,
      note,
    ];
    return `| ${cells.join(' | ')} |`;
  });
  return [header, rule, ...rows].join('\n');
}

/** One line on what the SQS double did across the cells, for the table's heading in bench/RESULTS.md. */
export function renderSqsDoubleSummary(seed: number | undefined, results: readonly CellResult[]): string {
  const total = { receives: 0, emptied: 0, cut: 0, withheld: 0, duplicated: 0 };
  for (const r of results)
    for (const key of Object.keys(total) as (keyof StrictSqsStats)[]) total[key] += r.sqs?.[key] ?? 0;
  if (seed === undefined) return 'straight on fauxqs (no SQS double)';
  return (
    `through the SQS double, STRICT_SQS_SEED=${seed}: ${total.receives} receives, ${total.emptied} short polls ` +
    `answered empty, ${total.cut} answers cut short, ${total.withheld} messages withheld, ${total.duplicated} handed out twice`
  );
}
