// The AWS-API emulators local mode and the integration tests run against, in this process: dynalite for
// DynamoDB, fauxqs for SQS and S3. Both listen on free ports, so any number of instances (one per test
// file) can run side by side.
import type { Server } from 'node:http';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import { buildApp } from 'fauxqs';

export interface EmulatorEndpoints {
  dynamodb: string;
  sqs: string;
  s3: string;
}

export interface Emulators {
  endpoints: EmulatorEndpoints;
  /** Closes both servers. dynalite waits for its pending writes, so a --data-dir store is left consistent. */
  stop(): Promise<void>;
}

interface DynaliteOptions {
  createTableMs?: number;
  deleteTableMs?: number;
  updateTableMs?: number;
  path?: string;
}

// dynalite is CommonJS and ships no types.
const dynalite = createRequire(import.meta.url)('dynalite') as (options: DynaliteOptions) => Server;

const LOOPBACK = '127.0.0.1';

async function startDynalite(dataDir: string | undefined): Promise<Server> {
  // Tables are ACTIVE at once: the real 500 ms CREATING phase would only slow every start.
  const server = dynalite({
    createTableMs: 0,
    deleteTableMs: 0,
    updateTableMs: 0,
    ...(dataDir === undefined ? {} : { path: dataDir }),
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, LOOPBACK, () => {
      server.off('error', reject);
      resolve();
    });
  });
  return server;
}

function closeServer(server: Server): Promise<void> {
  return new Promise((resolve, reject) => {
    server.close((error) => (error ? reject(error) : resolve()));
    // Kept-alive SDK sockets would otherwise hold close() open until they time out.
    server.closeIdleConnections();
  });
}

/**
 * Starts dynalite (in memory, or in `dataDir` so state survives a restart) and fauxqs (always in memory:
 * it has no persistence, so queues and objects are recreated at each start).
 */
export async function startEmulators(options: { dataDir?: string } = {}): Promise<Emulators> {
  const dynamo = await startDynalite(options.dataDir);
  // buildApp rather than startFauxqs: startFauxqs always listens on 0.0.0.0, which would put an
  // unauthenticated SQS and S3 on the network of every laptop running `npm start`. Its `host` only shapes
  // the queue URLs it hands out.
  const fauxqs = buildApp({ logger: false, host: 'localhost' });
  const fauxqsEndpoint = await fauxqs.listen({ port: 0, host: LOOPBACK }).catch(async (error: unknown) => {
    await closeServer(dynamo);
    throw error;
  });
  return {
    endpoints: {
      dynamodb: `http://${LOOPBACK}:${(dynamo.address() as AddressInfo).port}`,
      sqs: fauxqsEndpoint,
      s3: fauxqsEndpoint,
    },
    stop: async () => {
      await Promise.all([closeServer(dynamo), fauxqs.close()]);
    },
  };
}
