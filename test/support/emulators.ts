// One dynalite + fauxqs pair per test file, on free ports, with the stack's resources provisioned under
// unique names. Files run in parallel without sharing state; tests inside a file call `provision()` when
// they need a table or queue of their own.
import { randomUUID } from 'node:crypto';
import type { SQSClient } from '@aws-sdk/client-sqs';
import { afterAll, beforeAll } from 'vitest';
import { type Config, parseConfig } from '../../config';
import { type AwsClients, createAwsClients } from '../../lambdas/adapters/clients';
import { type QueueCounts, type ReceivedMessage, SqsQueueOps } from '../../lambdas/adapters/sqs-queue-ops';
import { type Emulators, startEmulators } from '../../local/emulators';
import { type ProvisionedResources, provisionResources } from '../../local/resources';
import { installStrictSqs, type StrictSqs, type StrictSqsOptions, strictSqsSeed } from './strict-sqs';

export interface EmulatorContext {
  emulators: Emulators;
  /** Built once for the file, as a Lambda builds them once per cold start. */
  clients: AwsClients;
  config: Config;
  queueOps: SqsQueueOps;
  /** The resources provisioned in beforeAll. */
  resources: ProvisionedResources;
  /** A fresh, uniquely named table, queue pair and bucket on the same emulators. */
  provision(): Promise<ProvisionedResources>;
  /**
   * Receives until the queue counts nothing visible; the messages stay in flight for a minute. One entry
   * per message, with its newest receipt handle: SQS may hand a message out twice.
   */
  receiveAll(queueUrl: string): Promise<ReceivedMessage[]>;
  countMessages(queueUrl: string): Promise<QueueCounts>;
  /**
   * With `strictSqs`, installs the SQS double on another SQS client (one a test built itself); without,
   * does nothing. `clients.sqs` has it already.
   */
  strictSqs(client: SQSClient): StrictSqs | undefined;
  /** The double on `clients.sqs`, with its seed and what it did, when `strictSqs` is on. */
  sqsDouble?: StrictSqs;
}

export function uniqueNames(prefix = 'test') {
  const id = `${prefix}-${randomUUID().slice(0, 8)}`;
  return {
    tableName: `${id}-inbox`,
    queueName: `${id}-queue`,
    dlqName: `${id}-dlq`,
    bucketName: `${id}-payloads`,
  };
}

/**
 * Call at the top of a test file (or describe block). The returned object is filled in by beforeAll, so
 * read its fields inside tests and hooks, not at collection time.
 */
export function useEmulators(
  options: {
    config?: Config;
    /**
     * Puts the SQS double (test/support/strict-sqs.ts) in front of fauxqs: receives answer as SQS's do
     * (short polls sample, answers come short and out of order, a message may come twice). The seed is
     * printed; STRICT_SQS_SEED repeats a run. @default off: fauxqs as it is
     */
    strictSqs?: boolean | Omit<StrictSqsOptions, 'seed'>;
  } = {},
): EmulatorContext {
  const context = {} as EmulatorContext;
  let raw: SQSClient | undefined;
  beforeAll(async () => {
    const emulators = await startEmulators();
    const clients = createAwsClients(emulators.clientOptions);
    let strictSqs: EmulatorContext['strictSqs'] = () => undefined;
    if (options.strictSqs) {
      const seed = strictSqsSeed();
      const settings = options.strictSqs === true ? {} : options.strictSqs;
      const unwrapped = createAwsClients(emulators.clientOptions);
      raw = unwrapped.sqs;
      for (const client of [unwrapped.dynamodb, unwrapped.s3, unwrapped.secrets]) client.destroy();
      console.log(`SQS double seed ${seed} (repeat with STRICT_SQS_SEED=${seed})`);
      strictSqs = (client) => installStrictSqs(client, unwrapped.sqs, { ...settings, seed });
    }
    const config = options.config ?? parseConfig({});
    const queueOps = new SqsQueueOps(clients.sqs);
    const provision = () => provisionResources(clients, config, uniqueNames());
    Object.assign(context, {
      emulators,
      clients,
      config,
      queueOps,
      provision,
      resources: await provision(),
      receiveAll: (queueUrl: string) => receiveAll(queueOps, queueUrl),
      countMessages: (queueUrl: string) => queueOps.counts(queueUrl),
      strictSqs,
      sqsDouble: strictSqs(clients.sqs),
    } satisfies EmulatorContext);
  });
  afterAll(async () => {
    for (const client of Object.values(context.clients ?? {})) client.destroy();
    raw?.destroy();
    await context.emulators?.stop();
  });
  return context;
}

/**
 * Every message on a queue, each once. A short poll may answer empty while messages are visible, so it
 * long-polls for as long as the queue counts messages visible (exact on the emulator); bounded, so a queue
 * that keeps filling cannot hold a test forever.
 */
async function receiveAll(queueOps: SqsQueueOps, queueUrl: string): Promise<ReceivedMessage[]> {
  const received = new Map<string, ReceivedMessage>();
  for (let polls = 0; polls < 200; polls++) {
    if ((await queueOps.counts(queueUrl)).visible === 0) break;
    const batch = await queueOps.receive(queueUrl, { visibilitySeconds: 60, waitSeconds: 1 });
    // The newest copy's receipt handle is the one SQS honours for a delete or a visibility change.
    for (const message of batch) received.set(message.messageId, message);
  }
  return [...received.values()];
}
