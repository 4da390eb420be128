// The AWS-API emulators local mode and the integration tests run against: dynalite for DynamoDB, fauxqs
// for SQS and S3, on free loopback ports, so any number of instances (one per test file) can run side by
// side. They run in a worker thread (emulator-worker.mjs): loading them takes about as long as loading the
// SDK and the handlers, and on a thread of their own the two overlap at start, and the emulators' request
// work does not share the event loop with the handlers they serve.
import { Worker } from 'node:worker_threads';

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

type WorkerMessage = { ready: EmulatorEndpoints } | { failed: { name?: string; message: string } };

/**
 * Starts dynalite (in memory, or in `dataDir` so state survives a restart) and fauxqs (always in memory:
 * it has no persistence, so queues and objects are recreated at each start).
 */
export async function startEmulators(options: { dataDir?: string } = {}): Promise<Emulators> {
  // Next to this module in the sources, and next to its chunk in the CLI's bundle (cli/bin.mjs).
  const worker = new Worker(new URL('./emulator-worker.mjs', import.meta.url), {
    workerData: { dataDir: options.dataDir },
  });
  const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
  const message = await new Promise<WorkerMessage>((resolve, reject) => {
    worker.once('message', resolve);
    worker.once('error', reject);
    worker.once('exit', (code) => reject(new Error(`the emulator thread exited with code ${code}`)));
  });
  if ('failed' in message) {
    await exited;
    throw Object.assign(new Error(message.failed.message), { name: message.failed.name ?? 'Error' });
  }
  return {
    endpoints: message.ready,
    stop: async () => {
      worker.postMessage('stop');
      await exited;
    },
  };
}
