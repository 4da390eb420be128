// One queue message through the processor: parse, load, lease, route, run, mark. Pure orchestration over
// the ports; the Lambda handler turns the result into a partial batch response.
import { randomUUID } from 'node:crypto';
import type { Config } from '../../config';
import { providerById } from '../../config/provider-lookup';
import type { EventContext, EventDefinition } from '../events/define-event';
import { PermanentError } from '../events/errors';
import { backoffSeconds } from './backoff';
import { type Envelope, MESSAGE_ATTRIBUTES } from './envelope';
import { parseEnvelope } from './envelope-schema';
import { DependencyError } from './errors';
import { inboxKey } from './inbox';
import type { Clock, Inbox, MessageControl, PayloadReader } from './ports';
import { sha256Hex } from './schemes/primitives';

export interface QueueRecord {
  messageId: string;
  receiptHandle: string;
  body: string;
  /** SQS ApproximateReceiveCount: 1 on the first delivery. */
  receiveCount: number;
  /** SQS SentTimestamp, epoch milliseconds. */
  sentTimestampMs: number;
  attributes: Record<string, string>;
}

export interface ProcessDeps {
  config: Config;
  inbox: Inbox;
  payloads: PayloadReader;
  messages: MessageControl;
  handlers: readonly EventDefinition[];
  clock: Clock;
  random?: () => number;
  /** How long this worker may hold the processing lease: at least as long as it can still run. */
  leaseMs: number;
  log: EventContext['log'];
}

export type RecordResult = {
  provider?: string;
  eventType?: string;
  dedupKey?: string;
  ageMs: number;
} & (
  | { outcome: 'processed' }
  | { outcome: 'duplicate_skipped' }
  | { outcome: 'unknown_acked' }
  | { outcome: 'dead_lettered'; code: string }
  | { outcome: 'retry'; code: string; delaySeconds: number }
);

type Failure = { permanent: boolean; code: string };

/** Error codes are short identifiers for logs and metrics, never an error message that could quote data. */
function classify(error: unknown): Failure {
  if (error instanceof PermanentError) return { permanent: true, code: error.code };
  if (error instanceof DependencyError) return { permanent: false, code: `${error.dependency}_unavailable` };
  const name = error instanceof Error ? error.name : typeof error;
  const code = (error as { code?: unknown })?.code;
  return {
    permanent: false,
    code: typeof code === 'string' && /^[\w.-]{1,64}$/.test(code) ? code : name || 'error',
  };
}

function route(
  handlers: readonly EventDefinition[],
  provider: string,
  type: string,
): EventDefinition | undefined {
  let fallback: EventDefinition | undefined;
  for (const handler of handlers) {
    if (handler.provider !== provider) continue;
    if (handler.type === type) return handler;
    if (handler.type === '*') fallback ??= handler;
  }
  return fallback;
}

async function loadPayload(deps: ProcessDeps, envelope: Envelope): Promise<Buffer> {
  const body =
    envelope.data_base64 !== undefined
      ? Buffer.from(envelope.data_base64, 'base64')
      : await deps.payloads.get(envelope.dataref as string);
  if (sha256Hex(body) !== envelope.payloadsha256) throw new PermanentError('payload_mismatch');
  return body;
}

export async function processRecord(deps: ProcessDeps, record: QueueRecord): Promise<RecordResult> {
  const nowMs = deps.clock.now();
  const base = { ageMs: Math.max(0, nowMs - record.sentTimestampMs) };
  const envelope = parseEnvelope(record.body);
  if (!envelope) return deadLetter(deps, record, base, 'malformed_envelope');
  const facts = {
    ...base,
    provider: envelope.provider,
    eventType: envelope.type,
    dedupKey: envelope.dedupkey,
  };
  const pk = inboxKey(envelope.provider, envelope.dedupkey);
  const provider = providerById(deps.config, envelope.provider);
  const token = randomUUID();
  let leased = false;

  try {
    const body = await loadPayload(deps, envelope);
    const lease = await deps.inbox.beginProcessing(
      pk,
      {
        provider: envelope.provider,
        dedupKey: envelope.dedupkey,
        payloadSha256: envelope.payloadsha256,
        eventType: envelope.type,
        deliveryId: envelope.deliveryid,
        expiresAt: Math.floor(nowMs / 1000) + (provider?.dedupTtlSeconds ?? 7 * 86_400),
      },
      deps.leaseMs,
      nowMs,
      token,
    );
    if (!lease.ok) {
      // Already processed: this is the second copy after a crash between send and mark, or a redrive of
      // something that succeeded meanwhile. Acknowledge without running the effect again.
      if (lease.existing?.status === 'processed') return { ...facts, outcome: 'duplicate_skipped' };
      // Another worker holds a live lease: come back after it.
      return retry(deps, record, facts, 'lease_held');
    }
    leased = true;

    const handler = route(deps.handlers, envelope.provider, envelope.type);
    if (!handler) {
      if (provider?.unknownEvents === 'dlq') throw new PermanentError('unknown_event');
      await deps.inbox.markProcessed(pk, token, deps.clock.now());
      return { ...facts, outcome: 'unknown_acked' };
    }
    const data = parseData(handler, body);
    await handler.handle(data, {
      provider: envelope.provider,
      eventType: envelope.type,
      idempotencyKey: envelope.id,
      dedupKey: envelope.dedupkey,
      deliveryId: envelope.deliveryid,
      receivedAt: envelope.time,
      receiveCount: record.receiveCount,
      rawBody: body,
      log: deps.log,
    });
    // If our lease was taken over meanwhile, the other worker owns the record now; nothing to undo.
    await deps.inbox.markProcessed(pk, token, deps.clock.now());
    return { ...facts, outcome: 'processed' };
  } catch (error) {
    const failure = classify(error);
    if (failure.permanent) return deadLetter(deps, record, facts, failure.code);
    if (leased) await deps.inbox.markFailed(pk, token, failure.code, deps.clock.now()).catch(() => false);
    return retry(deps, record, facts, failure.code);
  }
}

function parseData(handler: EventDefinition, body: Buffer): unknown {
  let json: unknown;
  try {
    json = JSON.parse(body.toString('utf8'));
  } catch {
    throw new PermanentError('not_json');
  }
  const parsed = handler.schema.safeParse(json);
  if (!parsed.success) throw new PermanentError('schema_mismatch');
  return parsed.data;
}

async function retry(
  deps: ProcessDeps,
  record: QueueRecord,
  facts: Omit<RecordResult, 'outcome'>,
  code: string,
): Promise<RecordResult> {
  const { backoffBaseSeconds, backoffCapSeconds } = deps.config.queue;
  const delaySeconds = backoffSeconds(
    record.receiveCount,
    backoffBaseSeconds,
    backoffCapSeconds,
    deps.random,
  );
  // If this fails the message keeps its queue visibility timeout: a slower retry, not a lost one.
  await deps.messages.delay(record.receiptHandle, delaySeconds).catch(() => undefined);
  return { ...facts, outcome: 'retry', code, delaySeconds };
}

async function deadLetter(
  deps: ProcessDeps,
  record: QueueRecord,
  facts: Omit<RecordResult, 'outcome'>,
  code: string,
): Promise<RecordResult> {
  const attributes: Record<string, string> = { ...record.attributes, [MESSAGE_ATTRIBUTES.errorCode]: code };
  if (facts.provider) attributes[MESSAGE_ATTRIBUTES.provider] = facts.provider;
  if (facts.dedupKey) attributes[MESSAGE_ATTRIBUTES.dedupKey] = facts.dedupKey;
  try {
    await deps.messages.deadLetter(record.body, attributes);
  } catch {
    // Not in the DLQ, so it must not be acknowledged: retry, and SQS's redrive policy catches it later.
    return retry(deps, record, facts, 'dlq_unavailable');
  }
  if (facts.provider && facts.dedupKey) {
    await deps.inbox
      .markDeadLettered(inboxKey(facts.provider, facts.dedupKey), code, deps.clock.now())
      .catch(() => undefined);
  }
  return { ...facts, outcome: 'dead_lettered', code };
}
