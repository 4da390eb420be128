// Builds the real verify and processor handlers over emulator-backed adapters, with a clock and secrets the
// test controls. Only the secret source is in-memory: Secrets Manager has no emulator.
import type { APIGatewayProxyEvent } from 'aws-lambda';
import { z } from 'zod';
import type { Config } from '../../config';
import { DynamoInbox } from '../../lambdas/adapters/dynamo-inbox';
import { DynamoResourceVersions } from '../../lambdas/adapters/dynamo-resource-versions';
import { emulatorPayloadWriter } from '../../lambdas/adapters/s3-payload-writer';
import { S3PayloadReader } from '../../lambdas/adapters/s3-payloads';
import { SqsMessageControl } from '../../lambdas/adapters/sqs-message-control';
import { SqsDeliveryQueue } from '../../lambdas/adapters/sqs-queue';
import type { Clock, SecretSource } from '../../lambdas/core/ports';
import { SCHEMES } from '../../lambdas/core/schemes';
import type { LogAttributes, LogSink } from '../../lambdas/core/telemetry';
import { type MetricSink, noMetrics } from '../../lambdas/core/telemetry';
import { defineEvent, type EventContext, type EventDefinition } from '../../lambdas/events';
import { processLambda } from '../../lambdas/process/middy-chain';
import { verifyLambda } from '../../lambdas/verify/middy-chain';
import type { VerifyHandlerDeps } from '../../lambdas/verify/verify-handler';
import { restProxyEvent } from '../../local/rest-proxy-event';
import { SqsEventSource } from '../../local/sqs-event-source';
import type { EmulatorContext } from './emulators';

export class TestClock implements Clock {
  constructor(public ms = Date.UTC(2026, 10, 30, 12, 0, 0)) {}
  now(): number {
    return this.ms;
  }
  seconds(): number {
    return Math.floor(this.ms / 1000);
  }
  advance(seconds: number): void {
    this.ms += seconds * 1000;
  }
}

export class StaticSecrets implements SecretSource {
  constructor(public secrets: Record<string, string[]>) {}
  async get(provider: string): Promise<readonly string[]> {
    return this.secrets[provider] ?? [];
  }
}

export interface LogLine {
  level: 'info' | 'warn' | 'error';
  message: string;
  attributes: LogAttributes;
}

/** Keeps every log line so tests can check what was (and was not) logged. */
export class CapturingLogger implements LogSink {
  readonly lines: LogLine[] = [];
  private context: LogAttributes = {};
  info(message: string, attributes: LogAttributes) {
    this.lines.push({ level: 'info', message, attributes: { ...this.context, ...attributes } });
  }
  warn(message: string, attributes: LogAttributes) {
    this.lines.push({ level: 'warn', message, attributes: { ...this.context, ...attributes } });
  }
  error(message: string, attributes: LogAttributes) {
    this.lines.push({ level: 'error', message, attributes: { ...this.context, ...attributes } });
  }
  /** As the JSON logger does: keys on every line until the next call (the middy layer's log context). */
  setContext(keys: LogAttributes) {
    this.context = keys;
  }
  last(): LogLine | undefined {
    return this.lines[this.lines.length - 1];
  }
}

export function verifyHandlerFor(
  ctx: EmulatorContext,
  resources: EmulatorContext['resources'],
  overrides: Partial<VerifyHandlerDeps> & { config?: Config } = {},
) {
  const logger = new CapturingLogger();
  const deps: VerifyHandlerDeps = {
    config: ctx.config,
    inbox: new DynamoInbox(ctx.clients.dynamodb, resources.tableName),
    queue: new SqsDeliveryQueue(ctx.clients.sqs, resources.queueUrl),
    payloads: emulatorPayloadWriter(ctx.clients.s3, resources.bucketName, ctx.emulators.endpoints.s3),
    secrets: new StaticSecrets({}),
    clock: new TestClock(),
    logger,
    metrics: noMetrics,
    ...overrides,
  };
  return { handler: verifyLambda(deps), deps, logger };
}

/** Fresh resources, a test clock, and the verify handler over them with these secrets: one test's setup. */
export async function freshVerifyPipeline(
  ctx: EmulatorContext,
  secrets: SecretSource | Record<string, string[]>,
) {
  const resources = await ctx.provision();
  const clock = new TestClock();
  const source =
    'get' in secrets && typeof secrets.get === 'function' ? (secrets as SecretSource) : undefined;
  const pipeline = verifyHandlerFor(ctx, resources, {
    secrets: source ?? new StaticSecrets(secrets as Record<string, string[]>),
    clock,
  });
  return { resources, clock, pipeline };
}

export type VerifySetup = Awaited<ReturnType<typeof freshVerifyPipeline>>;

export function processHandlerFor(
  ctx: EmulatorContext,
  resources: EmulatorContext['resources'],
  handlers: readonly EventDefinition[],
  overrides: {
    clock?: Clock;
    config?: Config;
    random?: () => number;
    sleep?: (ms: number) => Promise<void>;
    /** Added to the invocation's remaining time to make the lease. @default the handler's (5 s) */
    leaseMarginMs?: number;
    /** @default noMetrics */
    metrics?: MetricSink;
  } = {},
) {
  const logger = new CapturingLogger();
  const handler = processLambda({
    config: overrides.config ?? ctx.config,
    inbox: new DynamoInbox(ctx.clients.dynamodb, resources.tableName),
    payloads: new S3PayloadReader(ctx.clients.s3, resources.bucketName),
    messages: new SqsMessageControl(ctx.clients.sqs, resources.queueUrl),
    versions: new DynamoResourceVersions(ctx.clients.dynamodb, resources.tableName),
    handlers,
    clock: overrides.clock ?? { now: () => Date.now() },
    random: overrides.random,
    sleep: overrides.sleep,
    logger,
    metrics: overrides.metrics ?? noMetrics,
    defaultLeaseMs: 30_000,
    leaseMarginMs: overrides.leaseMarginMs,
  });
  return { handler, logger };
}

/**
 * One delivery signed as `provider` signs it, through the real verify handler over the resources; its
 * answer. The clock is the test's (default: now), for the signed timestamp and the claim.
 */
export async function deliverSigned(
  ctx: EmulatorContext,
  resources: EmulatorContext['resources'],
  input: {
    config: Config;
    provider: string;
    secret: string;
    body: string | Buffer;
    id?: string;
    eventType?: string;
    clock?: TestClock;
  },
) {
  const clock = input.clock ?? new TestClock(Date.now());
  const { handler } = verifyHandlerFor(ctx, resources, {
    config: input.config,
    secrets: new StaticSecrets({ [input.provider]: [input.secret] }),
    clock,
  });
  return handler(
    signedEvent(input.provider, input.config, {
      body: input.body,
      secret: input.secret,
      timestamp: clock.seconds(),
      id: input.id,
      eventType: input.eventType,
    }),
  );
}

/**
 * A `*` handler for one provider that records each run's dedup key (the effect, for counting how often it
 * ran), then does `onRun` (throw there to fail the run).
 */
export function effectCounter(
  provider: string,
  onRun: (context: EventContext) => void | Promise<void> = () => undefined,
) {
  const runs: string[] = [];
  const handler = defineEvent({
    provider,
    type: '*',
    schema: z.object({}).loose(),
    handle: async (_data, context) => {
      runs.push(context.dedupKey);
      await onRun(context);
    },
  });
  return { runs, handlers: [handler] as readonly EventDefinition[] };
}

/** Lambda's SQS event source in front of a processor handler, on the resources' main queue. */
export function eventSourceFor(
  ctx: EmulatorContext,
  resources: EmulatorContext['resources'],
  handler: ReturnType<typeof processHandlerFor>['handler'],
  options: { functionTimeoutMs?: number } = {},
): SqsEventSource {
  return new SqsEventSource(ctx.queueOps, {
    queueUrl: resources.queueUrl,
    queueArn: resources.queueArn,
    batchSize: 10,
    maxBatchingWindowSeconds: 0,
    functionTimeoutMs: options.functionTimeoutMs ?? 30_000,
    handler,
  });
}

/**
 * Runs the event source until the main queue is empty (visible, in flight and delayed): every message
 * processed, or moved to the DLQ by the redrive policy. Throws if that takes longer than `timeoutMs`.
 */
export async function drainQueue(
  ctx: EmulatorContext,
  resources: EmulatorContext['resources'],
  source: SqsEventSource,
  timeoutMs = 20_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    await source.runOnce(1);
    const counts = await ctx.countMessages(resources.queueUrl);
    if (counts.visible + counts.inFlight + counts.delayed === 0) return;
  }
  throw new Error('the main queue did not empty');
}

/** Processes the main queue until it is empty, with a `*` handler for `provider` that does `onRun`. */
export async function processAllWith(
  ctx: EmulatorContext,
  resources: EmulatorContext['resources'],
  provider: string,
  onRun: (context: EventContext) => void | Promise<void>,
  config?: Config,
): Promise<void> {
  const { handlers } = effectCounter(provider, onRun);
  const processor = processHandlerFor(ctx, resources, handlers, config ? { config } : {});
  await drainQueue(ctx, resources, eventSourceFor(ctx, resources, processor.handler));
}

/** A REST proxy event for a delivery signed by the provider's scheme, as the provider would send it. */
export function signedEvent(
  provider: string,
  config: Config,
  input: { body: Buffer | string; secret: string; timestamp: number; id?: string; eventType?: string },
  tweak: { method?: string; headers?: Record<string, string | string[] | undefined> } = {},
): APIGatewayProxyEvent {
  const settings = config.providers[provider];
  const scheme = settings ? SCHEMES[settings.scheme] : undefined;
  const body = Buffer.isBuffer(input.body) ? input.body : Buffer.from(input.body);
  const signed = scheme
    ? scheme.sign({
        body,
        secret: input.secret,
        timestamp: input.timestamp,
        id: input.id ?? 'msg_test_1',
        eventType: input.eventType,
        options: settings?.options,
        url: `https://127.0.0.1/webhooks/${provider}`,
      })
    : {};
  return restProxyEvent({
    method: tweak.method ?? 'POST',
    path: `/webhooks/${provider}`,
    headers: { 'Content-Type': 'application/json', ...signed, ...tweak.headers },
    body,
  });
}

/** A Lambda context whose invocation ends `ms` from now, for the middy chains' early timeouts. */
export function endingIn(ms: number, requestId = 'req-1') {
  const end = Date.now() + ms;
  return { awsRequestId: requestId, getRemainingTimeInMillis: () => end - Date.now() };
}
