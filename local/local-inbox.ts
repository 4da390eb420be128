// The whole pipeline on one machine: emulators, resources from the stack's own settings, an API Gateway
// emulation in front of the real verify handler, and an SQS event source in front of the real processor.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Config } from '../config';
import { LAMBDA_DEFAULTS } from '../config/resources';
import { MAX_BODY_BYTES_LIMIT } from '../config/schema';
import { type AwsClients, createAwsClients } from '../lambdas/adapters/clients';
import { DynamoInbox } from '../lambdas/adapters/dynamo-inbox';
import { DynamoResourceVersions } from '../lambdas/adapters/dynamo-resource-versions';
import { LocalFileSecretSource } from '../lambdas/adapters/local-secrets';
import { emulatorPayloadWriter } from '../lambdas/adapters/s3-payload-writer';
import { S3PayloadReader } from '../lambdas/adapters/s3-payloads';
import { SqsMessageControl } from '../lambdas/adapters/sqs-message-control';
import { SqsDeliveryQueue } from '../lambdas/adapters/sqs-queue';
import { SqsQueueOps } from '../lambdas/adapters/sqs-queue-ops';
import { systemClock } from '../lambdas/core/ports';
import type { LogSink } from '../lambdas/core/telemetry';
import { noMetrics } from '../lambdas/core/telemetry';
import { EVENT_HANDLERS, type EventDefinition } from '../lambdas/events';
import { createProcessHandler } from '../lambdas/process/create-handler';
import { createVerifyHandler, type VerifyHandler } from '../lambdas/verify/create-handler';
import { type Emulators, startEmulators } from './emulators';
import { provisionResources } from './resources';
import { restProxyEvent } from './rest-proxy-event';
import { ensureSecrets, secretsFilePath } from './secrets-file';
import { SqsEventSource } from './sqs-event-source';
import { type LocalState, removeLocalState, writeLocalState } from './state-file';

export interface LocalInboxOptions {
  config: Config;
  /** Project directory: where `.webhook-inbox/` lives. */
  cwd: string;
  port: number;
  host?: string;
  /** Keep dynalite's data here across restarts. fauxqs (queues, S3) is always in memory. */
  dataDir?: string;
  logs: { verify: LogSink; process: LogSink };
  /** Handlers to run; defaults to the project's registry. */
  handlers?: readonly EventDefinition[];
  /**
   * Emulators already starting, with `dataDir`: the CLI starts them before it loads the SDK and the
   * handlers, so both load at once. Stopped with the inbox. @default started here
   */
  emulators?: Promise<Emulators>;
}

export interface LocalInbox {
  state: LocalState;
  clients: AwsClients;
  /** The verify handler the gateway calls, for callers that want it without the HTTP hop (the bench). */
  verify: VerifyHandler;
  stop(): Promise<void>;
}

export class PortInUseError extends Error {
  constructor(readonly port: number) {
    super(`port ${port} is already in use`);
    this.name = 'PortInUseError';
  }
}

const PATH = /^\/webhooks\/[^/]+$/;
const REGION = 'us-east-1';

function reply(
  response: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
) {
  response.writeHead(status, { 'content-type': 'application/json', ...headers });
  response.end(JSON.stringify(body));
}

/** Reads the body, refusing more than API Gateway would pass to a Lambda. */
function readBody(request: IncomingMessage): Promise<Buffer | undefined> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    request.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY_BYTES_LIMIT) {
        resolve(undefined);
        request.resume();
        return;
      }
      chunks.push(chunk);
    });
    request.on('end', () => resolve(size > MAX_BODY_BYTES_LIMIT ? undefined : Buffer.concat(chunks)));
    request.on('error', reject);
  });
}

function gateway(verify: VerifyHandler, track: (p: Promise<unknown>) => void) {
  return async (request: IncomingMessage, response: ServerResponse) => {
    const path = (request.url ?? '/').split('?', 1)[0] as string;
    // API Gateway answers these itself, without invoking the Lambda.
    if (!PATH.test(path)) return reply(response, 404, { message: 'Not Found' });
    if (request.method !== 'POST')
      return reply(response, 405, { message: 'Method Not Allowed' }, { allow: 'POST' });
    const body = await readBody(request);
    if (!body) return reply(response, 413, { message: 'Request Entity Too Large' });
    const headers: Record<string, string | string[]> = {};
    for (let i = 0; i < request.rawHeaders.length; i += 2) {
      const name = request.rawHeaders[i] as string;
      const value = request.rawHeaders[i + 1] as string;
      const existing = headers[name];
      headers[name] =
        existing === undefined ? value : [...(Array.isArray(existing) ? existing : [existing]), value];
    }
    const event = restProxyEvent({
      method: request.method,
      path,
      headers,
      body,
      sourceIp: request.socket.remoteAddress,
      host: request.headers.host?.split(':')[0],
    });
    const invocation = verify(event, { awsRequestId: event.requestContext.requestId });
    track(invocation);
    const answer = await invocation;
    response.writeHead(answer.statusCode, answer.headers);
    response.end(answer.body);
  };
}

function listen(server: Server, port: number, host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', (error: NodeJS.ErrnoException) =>
      reject(error.code === 'EADDRINUSE' ? new PortInUseError(port) : error),
    );
    server.listen(port, host, () => resolve((server.address() as AddressInfo).port));
  });
}

export async function startLocalInbox(options: LocalInboxOptions): Promise<LocalInbox> {
  const { config, cwd, logs } = options;
  const host = options.host ?? '127.0.0.1';
  // Take the port first: if it is busy, fail before starting anything else.
  // Node closes an idle kept-alive socket after 5 s, and a client reusing it at that moment gets
  // ECONNRESET; a longer idle timeout (API Gateway's is 60 s or more) makes that race rare under load.
  const server = createServer();
  server.keepAliveTimeout = 65_000;
  let port: number;
  try {
    port = await listen(server, options.port, host);
  } catch (error) {
    await options.emulators?.then((started) => started.stop()).catch(() => undefined);
    throw error;
  }

  const emulators = await (options.emulators ?? startEmulators({ dataDir: options.dataDir }));
  const clients = createAwsClients({ ...emulators.endpoints, region: REGION });
  const resources = await provisionResources(clients, config);
  const secretsFile = secretsFilePath(cwd);
  ensureSecrets(secretsFile, config);

  const inbox = new DynamoInbox(clients.dynamodb, resources.tableName);
  const verify = createVerifyHandler({
    config,
    inbox,
    queue: new SqsDeliveryQueue(clients.sqs, resources.queueUrl),
    payloads: emulatorPayloadWriter(clients.s3, resources.bucketName, emulators.endpoints.s3),
    secrets: new LocalFileSecretSource(secretsFile),
    clock: systemClock,
    logger: logs.verify,
    metrics: noMetrics,
  });
  const processor = createProcessHandler({
    config,
    inbox,
    payloads: new S3PayloadReader(clients.s3, resources.bucketName),
    messages: new SqsMessageControl(clients.sqs, resources.queueUrl),
    versions: new DynamoResourceVersions(clients.dynamodb, resources.tableName),
    handlers: options.handlers ?? EVENT_HANDLERS,
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

  const inFlight = new Set<Promise<unknown>>();
  const track = (promise: Promise<unknown>) => {
    inFlight.add(promise);
    promise.finally(() => inFlight.delete(promise)).catch(() => undefined);
  };
  const handle = gateway(verify, track);
  server.on('request', (request, response) => {
    handle(request, response).catch(() => {
      if (!response.headersSent) reply(response, 502, { message: 'Internal server error' });
    });
  });
  source.start();

  const state: LocalState = {
    pid: process.pid,
    gatewayUrl: `http://${host}:${port}`,
    region: REGION,
    endpoints: emulators.endpoints,
    ...resources,
    secretsFile,
    startedAt: new Date().toISOString(),
  };
  writeLocalState(cwd, state);

  let stopped: Promise<void> | undefined;
  const stop = () => {
    stopped ??= (async () => {
      // Stop taking requests and polling, let what is running finish, then close the emulators.
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeIdleConnections();
      await source.stop();
      await Promise.allSettled([...inFlight]);
      server.closeAllConnections();
      await closed;
      for (const client of Object.values(clients)) client.destroy();
      await emulators.stop();
      removeLocalState(cwd);
    })();
    return stopped;
  };
  return { state, clients, verify, stop };
}
