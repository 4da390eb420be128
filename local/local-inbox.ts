// The whole pipeline on one machine: emulators, resources from the stack's own settings, an API Gateway
// emulation in front of the real verify handler, and an SQS event source in front of the real processor.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Config } from '../config';
import { LAMBDA_DEFAULTS } from '../config/resources';
import { type AwsClients, createAwsClients } from '../lambdas/adapters/clients';
import { DynamoInbox } from '../lambdas/adapters/dynamo-inbox';
import { DynamoResourceVersions } from '../lambdas/adapters/dynamo-resource-versions';
import { LocalFileSecretSource } from '../lambdas/adapters/local-secrets';
import { emulatorPayloadWriter } from '../lambdas/adapters/s3-payload-writer';
import { S3PayloadReader } from '../lambdas/adapters/s3-payloads';
import { SqsForwardQueues } from '../lambdas/adapters/sqs-forward-queues';
import { SqsMessageControl } from '../lambdas/adapters/sqs-message-control';
import { SqsDeliveryQueue } from '../lambdas/adapters/sqs-queue';
import { SqsQueueOps } from '../lambdas/adapters/sqs-queue-ops';
import { systemClock } from '../lambdas/core/ports';
import type { LogSink } from '../lambdas/core/telemetry';
import { noMetrics } from '../lambdas/core/telemetry';
import { EVENT_HANDLERS, type EventDefinition } from '../lambdas/events';
import { processLambda } from '../lambdas/process/middy-chain';
import { verifyLambda } from '../lambdas/verify/middy-chain';
import type { VerifyHandler } from '../lambdas/verify/verify-handler';
import { LOCAL_MODE_COMPONENT } from './console-log';
import { type Emulators, startEmulators } from './emulators';
import { type LocalForwarding, localSenders, provisionDestinations, startForwarding } from './forwarding';
import { gateway } from './gateway';
import { acquireInstanceLock, type InstanceLock } from './instance-lock';
import type { Tightened } from './private-files';
import { refusalWarnings } from './refusal-warnings';
import { DEFAULT_RESOURCE_NAMES, provisionResources } from './resources';
import { ensureSecrets, secretsFilePath } from './secrets-file';
import { SqsEventSource } from './sqs-event-source';
import { StartupGate } from './startup-gate';
import { type LocalState, removeLocalState, writeLocalState } from './state-file';

export interface LocalInboxOptions {
  config: Config;
  /** Project directory: where `.webhook-inbox/` lives. */
  cwd: string;
  port: number;
  host?: string;
  /** Keep dynalite's data here across restarts. fauxqs (queues, S3) is always in memory. */
  dataDir?: string;
  /** `forward` defaults to `process`'s. */
  logs: { verify: LogSink; process: LogSink; forward?: LogSink };
  /** Handlers to run; defaults to the project's registry. */
  handlers?: readonly EventDefinition[];
  /**
   * Emulators already starting, with `dataDir`: the CLI starts them before it loads the SDK and the
   * handlers, so both load at once. Stopped with the inbox. @default started here
   */
  emulators?: Promise<Emulators>;
  /**
   * The project folder's lock, taken by a caller that starts the emulators first (the CLI), so a second
   * instance is refused before it starts anything. Released with the inbox. @default taken here
   */
  lock?: InstanceLock;
  /**
   * The `--forward-to` URLs `config` already holds as destinations (local/forward-to.ts), recorded in
   * local.json so the CLI knows this instance's destinations as well as cdk.json's.
   */
  forwardTo?: readonly string[];
  /** How long a request that arrives while the inbox is starting waits for it before a 503. @default 10 s */
  startupHoldMs?: number;
  /**
   * Called with the SDK clients as soon as they are built, before anything uses them: tests put their SQS
   * double (test/support/strict-sqs.ts) on the SQS client here. @default nothing
   */
  onClients?: (clients: AwsClients, emulator: Emulators['clientOptions']) => void;
}

export interface LocalInbox {
  state: LocalState;
  clients: AwsClients;
  /** The verify handler the gateway calls, for callers that want it without the HTTP hop (the bench). */
  verify: VerifyHandler;
  /** The destinations' pollers, for the bench: stopped while a backlog builds, started to drain it. */
  forwarding: LocalForwarding;
  /** State files that other users could read and that startup made owner-only, for the banner to say so. */
  tightened: readonly Tightened[];
  stop(): Promise<void>;
}

export class PortInUseError extends Error {
  constructor(readonly port: number) {
    super(`port ${port} is already in use`);
    this.name = 'PortInUseError';
  }
}

const REGION = 'us-east-1';
const STARTUP_HOLD_MS = 10_000;
const STARTUP_RETRY_AFTER_SECONDS = 5;

function listen(server: Server, port: number, host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', (error: NodeJS.ErrnoException) =>
      reject(error.code === 'EADDRINUSE' ? new PortInUseError(port) : error),
    );
    server.listen(port, host, () => resolve((server.address() as AddressInfo).port));
  });
}

export async function startLocalInbox(options: LocalInboxOptions): Promise<LocalInbox> {
  const { cwd } = options;
  const host = options.host ?? '127.0.0.1';
  // The gate answers from the moment the server listens; the gateway takes over once the pipeline is up.
  const gate = new StartupGate({
    holdMs: options.startupHoldMs ?? STARTUP_HOLD_MS,
    retryAfterSeconds: STARTUP_RETRY_AFTER_SECONDS,
  });
  const server = createServer(gate.listen);
  // Node closes an idle kept-alive socket after 5 s, and a client reusing it at that moment gets
  // ECONNRESET; a longer idle timeout (API Gateway's is 60 s or more) makes that race rare under load.
  server.keepAliveTimeout = 65_000;
  let lock: InstanceLock | undefined;
  let emulators: Emulators | undefined;
  let clients: AwsClients | undefined;
  try {
    // One instance per project folder: refuse before taking the port or starting anything.
    lock = options.lock ?? acquireInstanceLock(cwd);
    // Take the port first: if it is busy, fail before starting anything else.
    const port = await listen(server, options.port, host);
    emulators = await (options.emulators ?? startEmulators({ dataDir: options.dataDir }));
    emulators.onRefused(refusalWarnings(options.logs.process));
    clients = createAwsClients({ ...emulators.clientOptions, region: REGION });
    options.onClients?.(clients, emulators.clientOptions);
    const pipeline = await startPipeline(options, clients, emulators);
    return serve({ ...pipeline, options, host, port, server, gate, emulators, clients, lock });
  } catch (error) {
    // Held requests get their 503 before the server closes; then everything started is stopped.
    gate.fail();
    await closeServer(server);
    for (const client of Object.values(clients ?? {})) client.destroy();
    // Emulators the caller is still starting are stopped once they are up.
    const started = emulators ? Promise.resolve(emulators) : options.emulators;
    await started?.then(
      (running) => running.stop(),
      () => undefined,
    );
    lock?.release();
    throw error;
  }
}

function closeServer(server: Server): Promise<void> {
  const closed = new Promise<void>((resolve) => server.close(() => resolve()));
  server.closeIdleConnections();
  return closed;
}

/** The table, queues and bucket, and the handlers wired to them as the stack wires the Lambdas. */
async function startPipeline(options: LocalInboxOptions, clients: AwsClients, emulators: Emulators) {
  const { config, cwd, logs } = options;
  const resources = await provisionResources(clients, config);
  const secretsFile = secretsFilePath(cwd);
  const { tightened } = ensureSecrets(secretsFile, config);

  const destinations = await provisionDestinations(clients, config, DEFAULT_RESOURCE_NAMES.queueName);
  const inbox = new DynamoInbox(clients.dynamodb, resources.tableName);
  const verify = verifyLambda({
    config,
    inbox,
    queue: new SqsDeliveryQueue(clients.sqs, resources.queueUrl),
    payloads: emulatorPayloadWriter(clients.s3, resources.bucketName, emulators.endpoints.s3),
    secrets: new LocalFileSecretSource(secretsFile),
    clock: systemClock,
    logger: logs.verify,
    metrics: noMetrics,
  });
  const processor = processLambda({
    config,
    inbox,
    payloads: new S3PayloadReader(clients.s3, resources.bucketName),
    messages: new SqsMessageControl(clients.sqs, resources.queueUrl),
    versions: new DynamoResourceVersions(clients.dynamodb, resources.tableName),
    handlers: options.handlers ?? EVENT_HANDLERS,
    forwards: new SqsForwardQueues(clients.sqs, destinations),
    clock: systemClock,
    logger: logs.process,
    metrics: noMetrics,
    defaultLeaseMs: LAMBDA_DEFAULTS.processorTimeoutSeconds * 1000,
  });
  const source = new SqsEventSource(new SqsQueueOps(clients.sqs), {
    queueUrl: resources.queueUrl,
    queueArn: resources.queueArn,
    region: REGION,
    batchSize: config.queue.batchSize,
    maxBatchingWindowSeconds: config.queue.maxBatchingWindowSeconds,
    functionTimeoutMs: LAMBDA_DEFAULTS.processorTimeoutSeconds * 1000,
    handler: processor,
  });
  const forwarding = startForwarding({
    config,
    clients,
    tableName: resources.tableName,
    bucketName: resources.bucketName,
    destinations,
    senders: localSenders({
      cwd,
      clients,
      secretsFile,
      bucketName: resources.bucketName,
      destinations,
    }),
    logger: logs.forward ?? logs.process,
    region: REGION,
  });
  return { resources, destinations, secretsFile, tightened, verify, source, forwarding };
}

interface Running extends Awaited<ReturnType<typeof startPipeline>> {
  options: LocalInboxOptions;
  host: string;
  port: number;
  server: Server;
  gate: StartupGate;
  emulators: Emulators;
  clients: AwsClients;
  lock: InstanceLock;
}

/** How long Ctrl-C waits for the messages on the queue to be processed before the emulator goes. */
const DRAIN_MS = 10_000;

/**
 * fauxqs keeps nothing across a restart, while dynalite with --data-dir does: a message still on the queue
 * when the process exits is gone, and its record (`enqueued`, or `failed` between retries) answers the
 * provider's redelivery `200 duplicate` for the dedup window. So the messages that can be processed now
 * are, and what cannot (waiting out a retry step) is counted in a warning that says so.
 */
async function drainBeforeExit({ source, options, clients, resources }: Running): Promise<void> {
  const deadline = Date.now() + DRAIN_MS;
  while (Date.now() < deadline && (await source.runOnce().catch(() => 0)) > 0);
  const counts = await new SqsQueueOps(clients.sqs).counts(resources.queueUrl).catch(() => undefined);
  const left = counts ? counts.visible + counts.inFlight + counts.delayed : 0;
  if (left > 0) {
    options.logs.process.warn('queued messages lost on exit', {
      component: LOCAL_MODE_COMPONENT,
      messages: left,
      reason: 'the local SQS emulator keeps no state; their inbox records stay as they are',
    });
  }
}

/** Opens the gate and the poller, records the instance in local.json, and returns how to stop it. */
function serve(running: Running): LocalInbox {
  const { options, server, source, clients, emulators, lock, verify } = running;
  const { cwd } = options;
  const inFlight = new Set<Promise<unknown>>();
  const track = (promise: Promise<unknown>) => {
    inFlight.add(promise);
    promise.finally(() => inFlight.delete(promise)).catch(() => undefined);
  };
  const state: LocalState = {
    pid: process.pid,
    gatewayUrl: `http://${running.host}:${running.port}`,
    region: REGION,
    endpoints: emulators.endpoints,
    credentials: emulators.credentials,
    ...running.resources,
    secretsFile: running.secretsFile,
    destinations: running.destinations,
    ...(options.forwardTo?.length ? { forwardTo: [...options.forwardTo] } : {}),
    startedAt: new Date().toISOString(),
  };
  // Written first: it is the one step here that can fail, and nothing runs yet that would need stopping.
  writeLocalState(cwd, state);
  let stopping = false;
  const listener = gateway(verify, track, running.host);
  running.gate.open((request, response) => {
    // Once stopping, a kept-alive connection ends after the answer it carries: the wait for in-flight
    // requests below ends even while a client keeps sending.
    if (stopping) response.setHeader('connection', 'close');
    listener(request, response);
  });
  source.start();
  running.forwarding.start();

  let stopped: Promise<void> | undefined;
  const stop = () => {
    stopped ??= (async () => {
      // Stop taking connections and let the requests being received or verified finish: a delivery
      // they accept is on the queue while the poller still runs, and an idle poller's long poll takes it.
      stopping = true;
      const closed = closeServer(server);
      // A kept-alive connection may start another request meanwhile: wait until none is left.
      while (inFlight.size > 0) await Promise.allSettled([...inFlight]);
      // Then stop polling; the batch being processed finishes first.
      await source.stop();
      await drainBeforeExit(running);
      // The copies that draining fanned out are forwarded too, within the same few seconds.
      await running.forwarding.stop(Date.now() + DRAIN_MS);
      server.closeAllConnections();
      await closed;
      for (const client of Object.values(clients)) client.destroy();
      await emulators.stop();
      removeLocalState(cwd);
      lock.release();
    })();
    return stopped;
  };
  return { state, clients, verify, forwarding: running.forwarding, tightened: running.tightened, stop };
}
