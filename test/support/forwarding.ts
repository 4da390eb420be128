// Local mode with destinations, for the forwarding tests: the whole pipeline in-process (gateway-less:
// requests go straight to the verify chain), real HTTP destinations on loopback, and the records and
// forwarder lines to check against.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { SQSClient } from '@aws-sdk/client-sqs';
import { Webhook } from 'standardwebhooks';
import { type ConfigInput, parseConfig } from '../../config';
import { createAwsClients } from '../../lambdas/adapters/clients';
import { DynamoDestinationStates } from '../../lambdas/adapters/dynamo-destination-states';
import { DynamoInbox } from '../../lambdas/adapters/dynamo-inbox';
import { SqsQueueOps } from '../../lambdas/adapters/sqs-queue-ops';
import {
  type ForwardState,
  forwardStatesOf,
  localDestinationSecretKey,
} from '../../lambdas/core/destinations/forward-state';
import type { DestinationStatus } from '../../lambdas/core/destinations/ports';
import { inboxKey } from '../../lambdas/core/inbox';
import { standardWebhooks } from '../../lambdas/core/schemes/standard-webhooks';
import type { LogAttributes, LogSink } from '../../lambdas/core/telemetry';
import type { EventDefinition } from '../../lambdas/events';
import { type LocalInbox, startLocalInbox } from '../../local/local-inbox';
import { readSecretsFile, secretsFilePath } from '../../local/secrets-file';
import type { ReceivedRequest } from './destination-server';
import { signedEvent } from './pipeline';
import { installStrictSqs, type StrictSqs, strictSqsSeed } from './strict-sqs';

export interface ForwarderLine {
  level: 'info' | 'warn' | 'error';
  message: string;
  attributes: LogAttributes;
  atMs: number;
}

function recording(lines: ForwarderLine[]): LogSink {
  const at = (level: ForwarderLine['level']) => (message: string, attributes: LogAttributes) =>
    void lines.push({ level, message, attributes, atMs: Date.now() });
  return { info: at('info'), warn: at('warn'), error: at('error') };
}

const quiet: LogSink = { info: () => undefined, warn: () => undefined, error: () => undefined };

export interface ForwardingInbox {
  inbox: LocalInbox;
  cwd: string;
  config: ReturnType<typeof parseConfig>;
  /** The forwarder's result lines, in order. */
  lines: ForwarderLine[];
  /** Sends a signed Standard Webhooks delivery through the verify chain; resolves with its status. */
  deliver(id: string, body: Buffer | string): Promise<number>;
  /** The destination's history on the delivery's record. */
  history(id: string, destination: string): Promise<ForwardState | undefined>;
  /** The destination's signing secret, as `destinations show --reveal` prints it. */
  destinationSecret(destination: string): string;
  destinationStatus(destination: string): Promise<DestinationStatus>;
  /** What `destinations enable` does locally. */
  enable(destination: string): Promise<void>;
  /** Messages on the destination's queue or DLQ, visible, in flight or delayed. */
  depth(destination: string, which: 'queue' | 'dlq'): Promise<number>;
  /** The SQS double in front of local mode's queues, with its seed and what it did. */
  sqsDouble(): StrictSqs | undefined;
  stop(): Promise<void>;
}

const PROVIDER = 'standard-webhooks';

export async function startForwardingInbox(
  input: Omit<ConfigInput, 'providers'>,
  handlers: readonly EventDefinition[] = [],
): Promise<ForwardingInbox> {
  const config = parseConfig({ providers: { [PROVIDER]: { scheme: PROVIDER } }, ...input });
  const cwd = mkdtempSync(join(tmpdir(), 'webhook-inbox-forward-'));
  const lines: ForwarderLine[] = [];
  // Every queue read of local mode (the processor's and the forwarders' event sources, the redrives)
  // goes through the SQS double, so the suites see SQS's receive semantics rather than fauxqs's.
  let raw: SQSClient | undefined;
  let double: StrictSqs | undefined;
  const inbox = await startLocalInbox({
    config,
    cwd,
    port: 0,
    logs: { verify: quiet, process: quiet, forward: recording(lines) },
    handlers,
    onClients: (clients, endpoints) => {
      raw = createAwsClients({ ...endpoints, region: 'us-east-1' }).sqs;
      const seed = strictSqsSeed();
      console.log(`SQS double seed ${seed} (repeat with STRICT_SQS_SEED=${seed})`);
      double = installStrictSqs(clients.sqs, raw, { seed });
    },
  });
  const secrets = () => readSecretsFile(secretsFilePath(cwd));
  const records = new DynamoInbox(inbox.clients.dynamodb, inbox.state.tableName);
  const states = new DynamoDestinationStates(inbox.clients.dynamodb, inbox.state.tableName, { cacheMs: 0 });
  return {
    inbox,
    cwd,
    config,
    lines,
    deliver: async (id, body) => {
      const secret = secrets()[PROVIDER]?.[0] ?? standardWebhooks.generateSecret();
      const event = signedEvent(PROVIDER, config, {
        body,
        secret,
        timestamp: Math.floor(Date.now() / 1000),
        id,
      });
      return (await inbox.verify(event)).statusCode;
    },
    history: async (id, destination) => {
      const record = await records.get(inboxKey(PROVIDER, id));
      return record ? forwardStatesOf(record).find((s) => s.destination === destination) : undefined;
    },
    destinationSecret: (destination) => secrets()[localDestinationSecretKey(destination)]?.[0] ?? '',
    destinationStatus: (destination) => states.status(destination),
    enable: (destination) => states.enable(destination, Date.now()),
    depth: async (destination, which) => {
      const made = inbox.state.destinations?.[destination];
      if (!made) throw new Error(`no queues for ${destination}`);
      const counts = await new SqsQueueOps(inbox.clients.sqs).counts(
        which === 'dlq' ? made.dlqUrl : made.queueUrl,
      );
      return counts.visible + counts.inFlight + counts.delayed;
    },
    sqsDouble: () => double,
    stop: async () => {
      await inbox.stop();
      raw?.destroy();
      rmSync(cwd, { recursive: true, force: true });
    },
  };
}

/** Throws unless the request verifies under the Standard Webhooks library with the secret. */
export function verifiesWith(secret: string, request: ReceivedRequest): unknown {
  const headers = Object.fromEntries(
    Object.entries(request.headers).map(([name, value]) => [
      name,
      Array.isArray(value) ? value.join(',') : (value ?? ''),
    ]),
  );
  return new Webhook(secret).verify(request.body, headers as Record<string, string>);
}

/** The forwarder lines about one destination. */
export function linesFor(lines: readonly ForwarderLine[], destination: string): ForwarderLine[] {
  return lines.filter((line) => line.attributes.destination === destination);
}
