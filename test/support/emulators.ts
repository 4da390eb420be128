// One dynalite + fauxqs pair per test file, on free ports, with the stack's resources provisioned under
// unique names. Files run in parallel without sharing state; tests inside a file call `provision()` when
// they need a table or queue of their own.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll } from 'vitest';
import { type Config, parseConfig } from '../../config';
import { type AwsClients, createAwsClients } from '../../lambdas/adapters/clients';
import { type QueueCounts, type ReceivedMessage, SqsQueueOps } from '../../lambdas/adapters/sqs-queue-ops';
import { type Emulators, startEmulators } from '../../local/emulators';
import { type ProvisionedResources, provisionResources } from '../../local/resources';

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
  /** Receives until the queue answers empty; the messages stay in flight for a minute. */
  receiveAll(queueUrl: string): Promise<ReceivedMessage[]>;
  countMessages(queueUrl: string): Promise<QueueCounts>;
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
export function useEmulators(options: { config?: Config } = {}): EmulatorContext {
  const context = {} as EmulatorContext;
  beforeAll(async () => {
    const emulators = await startEmulators();
    const clients = createAwsClients(emulators.endpoints);
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
      receiveAll: async (queueUrl: string) => {
        const received: ReceivedMessage[] = [];
        for (;;) {
          const batch = await queueOps.receive(queueUrl, { visibilitySeconds: 60 });
          if (batch.length === 0) return received;
          received.push(...batch);
        }
      },
      countMessages: (queueUrl: string) => queueOps.counts(queueUrl),
    } satisfies EmulatorContext);
  });
  afterAll(async () => {
    for (const client of Object.values(context.clients ?? {})) client.destroy();
    await context.emulators?.stop();
  });
  return context;
}
