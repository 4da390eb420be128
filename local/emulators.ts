// The AWS-API emulators local mode and the integration tests run against: dynalite for DynamoDB, fauxqs
// for SQS and S3, on free loopback ports, so any number of instances (one per test file) can run side by
// side. They run in a worker thread (emulator-worker.mjs): loading them takes about as long as loading the
// SDK and the handlers, and on a thread of their own the two overlap at start, and the emulators' request
// work does not share the event loop with the handlers they serve.
//
// Each emulator sits behind a guard (emulator-guard.mjs), because local mode runs on a laptop that also
// browses the web. Loopback is not private to the inbox: any local process can reach it, and so can any web
// page, whose scripts may send requests to 127.0.0.1 and scan its ports. Left open, fauxqs takes a forged
// delivery (SNS Subscribe to the inbox queue, then Publish) that the processor forwards signed to every
// destination, and dynalite, which answers CORS to any origin and never checks a signature, lets a page read
// archived bodies and rewrite records. So every launch makes a credential of its own, and only requests
// SigV4-signed with it pass; a request that carries a browser's `Origin` or `Sec-Fetch-*` headers is refused
// whatever it carries, and no answer grants CORS. The inbox's clients get the credential from `credentials`
// here, and the CLI and the console from the instance record (local.json, owner-only).
import { randomBytes } from 'node:crypto';
import { Worker } from 'node:worker_threads';

export interface EmulatorEndpoints {
  dynamodb: string;
  sqs: string;
  s3: string;
}

/** The launch's own SigV4 key pair: random, so no other process or page can guess either half. */
export interface EmulatorCredentials {
  accessKeyId: string;
  secretAccessKey: string;
}

/** What the guard did with one request. */
export interface GuardEntry {
  emulator: 'dynamodb' | 'fauxqs';
  outcome: 'passed' | 'refused';
  /** Why it was refused, e.g. `forbidden_origin`, `missing_credential`, `bad_signature`. */
  reason?: string;
  method: string;
  url: string;
}

export interface Emulators {
  endpoints: EmulatorEndpoints;
  credentials: EmulatorCredentials;
  /** `endpoints` and `credentials` together, as createAwsClients takes them. */
  clientOptions: EmulatorEndpoints & { credentials: EmulatorCredentials };
  /** What the guards did with the latest requests (a bounded journal), oldest first. */
  guardLog(): Promise<GuardEntry[]>;
  /** Calls `listener` with each request a guard refuses from now on. */
  onRefused(listener: (entry: GuardEntry) => void): void;
  /** Closes both servers. dynalite waits for its pending writes, so a --data-dir store is left consistent. */
  stop(): Promise<void>;
}

type WorkerMessage =
  | { ready: EmulatorEndpoints }
  | { failed: { name?: string; message: string } }
  | { guardLog: GuardEntry[] }
  | { refused: GuardEntry };

/** 128 random bits in the key id, so matching it alone would already stop a guess; 256 in the secret. */
function launchCredentials(): EmulatorCredentials {
  return {
    accessKeyId: `LOCAL${randomBytes(16).toString('hex').toUpperCase()}`,
    secretAccessKey: randomBytes(32).toString('base64url'),
  };
}

/**
 * Starts dynalite (in memory, or in `dataDir` so state survives a restart) and fauxqs (always in memory:
 * it has no persistence, so queues and objects are recreated at each start), each behind the guard, with a
 * credential made for this launch.
 */
export async function startEmulators(options: { dataDir?: string } = {}): Promise<Emulators> {
  const credentials = launchCredentials();
  // Next to this module in the sources, and next to its chunk in the CLI's bundle (cli/bin.mjs).
  const worker = new Worker(new URL('./emulator-worker.mjs', import.meta.url), {
    workerData: { dataDir: options.dataDir, credentials },
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
  if (!('ready' in message)) throw new Error('the emulator thread answered out of turn');
  const endpoints = message.ready;
  // The thread answers journal requests in the order they were asked.
  const journalReplies: ((entries: GuardEntry[]) => void)[] = [];
  const refusalListeners: ((entry: GuardEntry) => void)[] = [];
  // Asked after the thread ended, the journal is empty rather than never answered.
  exited.then(() => {
    for (const reply of journalReplies.splice(0)) reply([]);
  });
  worker.on('message', (reply: WorkerMessage) => {
    if ('guardLog' in reply) journalReplies.shift()?.(reply.guardLog);
    else if ('refused' in reply) for (const listener of refusalListeners) listener(reply.refused);
  });
  return {
    endpoints,
    credentials,
    clientOptions: { ...endpoints, credentials },
    guardLog: () =>
      new Promise<GuardEntry[]>((resolve) => {
        journalReplies.push(resolve);
        worker.postMessage('guard-log');
      }),
    onRefused: (listener) => refusalListeners.push(listener),
    stop: async () => {
      worker.postMessage('stop');
      await exited;
    },
  };
}
