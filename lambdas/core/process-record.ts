// One queue message through the processor: parse, lease, load, route, run, mark. Pure orchestration over
// the ports; the Lambda handler turns the result into a partial batch response.
//
// Every message that ends up in the DLQ gets there through the queue's redrive policy, never through a
// SendMessage of ours: the processor gives a delivery up by marking its record `dead-lettered` (naming the
// message) and making the message visible again at once, and every later receive of that same message
// does the same until SQS moves it. So SQS sets DeadLetterQueueSourceArn on every DLQ message (the
// console's "Start DLQ redrive" works for all of them), and there is no send-then-delete to half-fail.
import { randomUUID } from 'node:crypto';
import type { Config } from '../../config';
import { providerById } from '../../config/provider-lookup';
import { recordLifetimes } from '../../config/retention';
import { type ArchivePlan, archivePlan } from './archive';
import { destinationsFor } from './destinations/filter';
import type { ForwardQueues } from './destinations/ports';
import type { Envelope } from './envelope';
import { MESSAGE_ATTRIBUTES } from './envelope';
import { brokenReceiveRule, parseEnvelope } from './envelope-schema';
import { SchemaMismatchError } from './errors';
import type { EventContext, EventDefinition } from './events/define-event';
import { PermanentError } from './events/handler-errors';
import { classifyFailure } from './failure';
import { inboxKey, type LeaseOutcome } from './inbox';
import { handlerDeadline } from './invocation-budget';
import { loadPayload } from './load-payload';
import type { Clock, Inbox, MessageControl, PayloadReader, PayloadWriter, ResourceVersions } from './ports';
import {
  afterFailure,
  drain as drainMessage,
  isLastReceive,
  visibilityCeilingSeconds,
  waitedBeforeInvocationSeconds,
} from './receive-policy';
import { retryDelaySeconds } from './retry-schedule';
import { retryWrite } from './retry-write';
import { describeSchemaIssues } from './schema-issues';
import { parseJson } from './schemes/primitives';

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
  /** Reads large bodies; writes the archive's objects (core/archive.ts). */
  payloads: PayloadReader & PayloadWriter;
  messages: MessageControl;
  versions: ResourceVersions;
  handlers: readonly EventDefinition[];
  clock: Clock;
  random?: () => number;
  /** How long this worker may hold the processing lease: at least as long as it can still run. */
  leaseMs: number;
  /** When the invocation started, epoch ms: a retry's wait is counted from the receive, before it. */
  invocationStartedMs: number;
  /** No inbox write is retried after this (epoch ms): the invocation must live to use its answer. */
  deadlineMs: number;
  /** Waits between write retries. @default setTimeout */
  sleep?: (ms: number) => Promise<void>;
  log: EventContext['log'];
  /**
   * Aborted when the invocation is about to time out: a record whose handler has not started by then does
   * not start it (`not_started`). The Lambda layer hands such records back to the queue.
   */
  signal?: AbortSignal;
  /** Told the moment a record's handler is about to run, so the Lambda layer knows what has started. */
  onStarted?: (messageId: string) => void;
  /** The destinations' queues (docs/destinations.md). Required when the config has forward destinations. */
  forwards?: ForwardQueues;
}

export type RecordResult = {
  provider?: string;
  eventType?: string;
  dedupKey?: string;
  ageMs: number;
} & (
  | {
      outcome: 'processed';
      /** The effect ran but the processed mark could not be written: acknowledged anyway, never re-run. */
      markFailed?: boolean;
      /** Our lease was taken over while the handler ran (it outlived its lease): the effect may run twice. */
      leaseLost?: boolean;
    }
  | { outcome: 'duplicate_skipped' }
  /** The handler found every resource it asked about already newer (`acceptIfNewer` said false). */
  | { outcome: 'stale_skipped'; markFailed?: boolean }
  | { outcome: 'unknown_acked'; markFailed?: boolean }
  /**
   * Given up on this receive: on its way to the DLQ. `recorded` is false if the record could not say so;
   * `detail` is the failure's `lastErrorDetail` (schema_mismatch's fields), when it has one.
   */
  | { outcome: 'dead_lettered'; code: string; recorded: boolean; detail?: string }
  /** A later receive of a message already given up. */
  | { outcome: 'draining'; code: string }
  /** The invocation ran out before this record's handler started: handed back, nothing counted. */
  | { outcome: 'not_started' }
  | { outcome: 'retry'; code: string; delaySeconds: number }
);

type Facts = Omit<RecordResult, 'outcome'>;
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

/** The same JSON reading as the verify side's (strict UTF-8, a leading BOM ignored), so what it accepted parses. */
function parseData(handler: EventDefinition, body: Buffer): unknown {
  const json = parseJson(body);
  if (!json.ok) throw new PermanentError('not_json');
  const parsed = handler.schema.safeParse(json.value);
  if (!parsed.success)
    throw new SchemaMismatchError(describeSchemaIssues(handler.schema, parsed.error.issues));
  return parsed.data;
}

export async function processRecord(deps: ProcessDeps, record: QueueRecord): Promise<RecordResult> {
  const nowMs = deps.clock.now();
  const base = { ageMs: Math.max(0, nowMs - record.sentTimestampMs) };
  if (deps.signal?.aborted) return { ...base, outcome: 'not_started' };
  const envelope = parseEnvelope(record.body);
  // Not written by the verify Lambda: nothing to mark, and the next receive will judge it the same way.
  if (!envelope) return giveUp(deps, record, base, 'malformed_envelope', undefined);
  // Not what verify lets through either: dead-lettered with verify's own reason, the inbox untouched.
  const broken = brokenReceiveRule(envelope);
  if (broken) return giveUp(deps, record, base, broken, undefined);
  const facts: Facts = {
    ...base,
    provider: envelope.provider,
    eventType: envelope.type,
    dedupKey: envelope.dedupkey,
  };
  const pk = inboxKey(envelope.provider, envelope.dedupkey);
  const provider = providerById(deps.config, envelope.provider);
  const token = randomUUID();

  const archive = archivePlan(deps.config, envelope, nowMs);
  let lease: LeaseOutcome;
  try {
    lease = await takeLease(deps, record, envelope, token, nowMs, archive);
  } catch (error) {
    // The lease may have applied with its answer lost for good: hand it back (only our own token can), so
    // the next receive does not meet our lease as a live worker's and give the delivery up as held.
    // When even that cannot be written, the lease may be ours and live: the retry waits it out.
    const released = await deps.inbox.releaseLease(pk, token).then(
      () => true,
      () => false,
    );
    const held = { pk, token, untilMs: nowMs + deps.leaseMs };
    const atLeast = released ? 0 : leaseLeftSeconds(deps, held);
    return failedWithoutLease(deps, record, facts, classifyFailure(error).code, atLeast);
  }
  switch (lease.kind) {
    case 'processed':
      // The second copy after a crash between send and mark, or a redrive of something that succeeded
      // meanwhile. Acknowledge without running the effect again.
      return { ...facts, outcome: 'duplicate_skipped' };
    case 'conflict':
      // Same key, other bytes or another type than the record's: never run it, never touch the record
      // that is not its own.
      return giveUp(deps, record, facts, `${lease.conflict}_conflict`, undefined);
    case 'draining':
      await drain(deps, record);
      return { ...facts, outcome: 'draining', code: lease.existing.lastErrorCode ?? 'dead_lettered' };
    case 'held': {
      // Another message for this delivery is being processed by a live worker: come back once its lease
      // has lapsed, so this receive is not spent on a lease that is still live.
      if (isLastReceive(deps.config.queue.retrySchedule, record.receiveCount)) {
        return giveUp(deps, record, facts, 'lease_held', undefined);
      }
      return retry(deps, record, facts, 'lease_held', Math.ceil(lease.retryAfterMs / 1000) + 1);
    }
    case 'leased':
      break;
  }

  const ordering = versionGuard(deps, envelope);
  const targets = destinationsFor(deps.config, envelope.provider, envelope.type);
  const runsHandlers = targets.some((destination) => destination.type === 'handlers');
  // The body, decoded and checked once for the archive and the handler alike.
  let loaded: Buffer | undefined;
  const bytes = async () => {
    loaded ??= await loadPayload(deps, envelope);
    return loaded;
  };
  try {
    // Before anything runs, so a delivery whose handler or destinations fail is archived all the same.
    // A failed write is transient (DependencyError): retried on the schedule, nothing lost.
    if (archive?.kind === 'object' && !lease.archived)
      await archiveObject(deps, await bytes(), envelope.payloadsha256, pk, token, archive);
    if (!lease.forwarded)
      await fanOut(deps, record, envelope, targets, runsHandlers ? { pk, token } : undefined);
    // Forwarded only (or to nothing): the delivery is done here; each destination's queue takes it on.
    if (!runsHandlers) {
      const marked = await markProcessed(deps, pk, token);
      return { ...facts, outcome: 'processed', ...(marked === 'failed' ? { markFailed: true } : {}) };
    }
    const body = await bytes();
    const handler = route(deps.handlers, envelope.provider, envelope.type);
    if (!handler) {
      if (provider?.unknownEvents === 'dlq') throw new PermanentError('unknown_event');
      const marked = await markProcessed(deps, pk, token);
      return { ...facts, outcome: 'unknown_acked', ...(marked === 'failed' ? { markFailed: true } : {}) };
    }
    const data = parseData(handler, body);
    // Too late to start: the invocation is ending, or its handlers' deadline has passed (a copy whose turn
    // came after the first copy ran long). Give the lease back so the next receive need not wait it out;
    // before the abort, hand the message back too (after it, the Lambda layer does).
    if (deps.signal?.aborted || deps.clock.now() >= handlerDeadlineMs(deps)) {
      const released = await deps.inbox.releaseLease(pk, token).then(
        () => true,
        () => false,
      );
      // A lease that could not be given back stays live: the message comes back once it has lapsed, or
      // the next receive would meet it and, on the last one, give the delivery up as held.
      if (!deps.signal?.aborted) {
        if (released) await drain(deps, record);
        else {
          const wait = leaseLeftSeconds(deps, { pk, token, untilMs: nowMs + deps.leaseMs });
          await deps.messages.delay(record.receiptHandle, wait).catch(() => undefined);
        }
      }
      return { ...facts, outcome: 'not_started' };
    }
    deps.onStarted?.(record.messageId);
    await withDeadline(deps, (signal) =>
      handler.handle(data, {
        provider: envelope.provider,
        eventType: envelope.type,
        idempotencyKey: envelope.id,
        dedupKey: envelope.dedupkey,
        deliveryId: envelope.deliveryid,
        receivedAt: envelope.time,
        occurredAt: envelope.occurredat ?? envelope.time,
        acceptIfNewer: ordering.acceptIfNewer,
        receiveCount: record.receiveCount,
        rawBody: body,
        signal,
        log: deps.log,
      }),
    );
  } catch (error) {
    const failure = classifyFailure(error);
    const held = { pk, token, untilMs: nowMs + deps.leaseMs };
    const steps = deps.config.queue.retrySchedule;
    if (
      afterFailure({ steps, receiveCount: record.receiveCount, permanent: failure.permanent }) === 'give_up'
    ) {
      return giveUp(deps, record, facts, failure.code, held, failure.detail);
    }
    // A handler cut off may still finish; its token stays on the record so its success can be marked
    // late, and the retry then finds the delivery processed instead of running it again.
    const cutOff = error instanceof HandlerTimeoutError ? error : undefined;
    const released = await deps.inbox
      .markFailed(pk, token, failure.code, deps.clock.now(), record.receiveCount, {
        keepToken: cutOff !== undefined,
      })
      .then(() => true)
      .catch(() => false);
    if (cutOff && released) markLateIfFinished(deps, pk, token, cutOff.finished);
    return retry(deps, record, facts, failure.code, released ? 0 : leaseLeftSeconds(deps, held));
  }
  // The effect ran. From here on nothing may make it run again: the mark is retried within the invocation,
  // and if it still fails the message is acknowledged anyway (a record left `processing` whose lease lapses
  // is better than a second charge).
  const marked = await markProcessed(deps, pk, token);
  if (ordering.allStale()) {
    return { ...facts, outcome: 'stale_skipped', ...(marked === 'failed' ? { markFailed: true } : {}) };
  }
  return {
    ...facts,
    outcome: 'processed',
    ...(marked === 'failed' ? { markFailed: true } : {}),
    ...(marked === 'not_ours' ? { leaseLost: true } : {}),
  };
}

/**
 * Sends the delivery's copy to each forward destination's queue: the message as it came, with the
 * destination named. When the handlers run after it, the record says so first, so that a handler's retry
 * does not send the copies again. A failed send fails the receive (a transient failure, retried): a copy
 * sent twice is skipped by the forwarder once delivered, and carries the same `webhook-id` either way.
 */
async function fanOut(
  deps: ProcessDeps,
  record: QueueRecord,
  envelope: Envelope,
  targets: readonly { id: string; type: string }[],
  lease: { pk: string; token: string } | undefined,
): Promise<void> {
  const forwards = targets.filter((destination) => destination.type !== 'handlers');
  if (forwards.length === 0) return;
  const queues = deps.forwards;
  if (!queues) throw new Error('destinations are configured but the processor has no forward queues');
  // The message as verify sent it, attributes included: the copy only adds its destination.
  await Promise.all(
    forwards.map((destination) =>
      queues.send(destination.id, {
        body: record.body,
        attributes: { ...record.attributes, [MESSAGE_ATTRIBUTES.destination]: destination.id },
      }),
    ),
  );
  if (lease) {
    const marked = await retryWrite(
      () => deps.inbox.markForwarded(lease.pk, lease.token, deps.clock.now()),
      writeRetries(deps),
    );
    // Not written: a handler's retry would send the copies again; each is still delivered once.
    if (!marked.ok)
      deps.log('fan-out not recorded: a retry sends the copies again', { dedupKey: envelope.dedupkey });
  }
}

/** How the inbox writes are retried within this invocation: until its deadline (retry-write.ts). */
function writeRetries(deps: ProcessDeps) {
  return { clock: deps.clock, deadlineMs: deps.deadlineMs, random: deps.random, sleep: deps.sleep };
}

/**
 * Runs the handler until the invocation's deadline (less the time the marks need). A handler still running
 * then is cut off as a transient failure (`handler_timeout`), and its `ctx.signal` is aborted: retried on
 * the schedule like any failure. Without it, a hanging downstream would let Lambda time the whole batch
 * out, and every receive would come back after the queue's visibility timeout, not the schedule's wait,
 * with the record left `processing`.
 */
async function withDeadline(
  deps: ProcessDeps,
  run: (signal: AbortSignal) => Promise<void> | void,
): Promise<void> {
  const controller = new AbortController();
  let timer: ReturnType<typeof setTimeout> | undefined;
  const cutOff = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => {
        controller.abort();
        reject(new HandlerTimeoutError());
      },
      Math.max(0, handlerDeadlineMs(deps) - deps.clock.now()),
    );
  });
  const running = Promise.resolve().then(() => run(controller.signal));
  // A handler that fails after the cut-off has already been counted as failed.
  running.catch(() => undefined);
  try {
    await Promise.race([running, cutOff]);
  } catch (error) {
    if (error instanceof HandlerTimeoutError)
      error.finished = running.then(
        () => true,
        () => false,
      );
    throw error;
  } finally {
    clearTimeout(timer);
  }
}

/**
 * When a cut-off handler finishes without an error, its effect ran: the record it left `failed` is marked
 * processed, unless a worker leased it since. In Lambda this may come in a later invocation of the same
 * environment, whenever the frozen handler resumes; a mark that fails leaves the retry to run it.
 */
function markLateIfFinished(deps: ProcessDeps, pk: string, token: string, finished: Promise<boolean>): void {
  void finished
    .then((ok) => (ok ? deps.inbox.markProcessedLate(pk, token, deps.clock.now()) : false))
    .catch(() => false);
}

function handlerDeadlineMs(deps: ProcessDeps): number {
  return handlerDeadline(deps.invocationStartedMs, deps.deadlineMs);
}

class HandlerTimeoutError extends Error {
  override name = 'HandlerTimeoutError';
  readonly code = 'handler_timeout';
  /** Whether the handler, running on past its cut-off, finished without an error. */
  finished: Promise<boolean> = Promise.resolve(false);
}

/** A version as the version store compares it: larger is newer. */
function versionNumber(version: number | Date | string): number {
  const value =
    typeof version === 'number' ? version : version instanceof Date ? version.getTime() : Date.parse(version);
  // A programming error in the handler, not a transient failure: it would fail the same way every time.
  if (!Number.isFinite(value)) throw new PermanentError('invalid_resource_version');
  return value;
}

/** `ctx.acceptIfNewer` for one delivery, and whether every answer it gave was "stale". */
function versionGuard(deps: ProcessDeps, envelope: Envelope) {
  let asked = 0;
  let accepted = 0;
  return {
    acceptIfNewer: async (resourceKey: string, version: number | Date | string): Promise<boolean> => {
      if (typeof resourceKey !== 'string' || resourceKey.length === 0 || resourceKey.length > 1024) {
        throw new PermanentError('invalid_resource_key');
      }
      asked++;
      const newer = await deps.versions.acceptIfNewer({
        provider: envelope.provider,
        resourceKey,
        version: versionNumber(version),
        deliveryKey: envelope.id,
        nowMs: deps.clock.now(),
        ttlSeconds: deps.config.resourceVersionTtlSeconds,
      });
      if (newer) accepted++;
      return newer;
    },
    allStale: () => asked > 0 && accepted === 0,
  };
}

/**
 * A body too large for the record but sent inline: written to its own object (content-addressed, so a
 * retry writes the same key), then named on the record under our lease.
 */
async function archiveObject(
  deps: ProcessDeps,
  body: Buffer,
  sha256Hex: string,
  pk: string,
  token: string,
  plan: Extract<ArchivePlan, { kind: 'object' }>,
): Promise<void> {
  const archiveRef = await deps.payloads.put(plan.key, body, sha256Hex);
  await deps.inbox.markArchived(pk, token, { ...plan.facts, archiveRef });
}

/** The processing lease for this receive, the record recreated from the message if TTL deleted it. */
function takeLease(
  deps: ProcessDeps,
  record: QueueRecord,
  envelope: Envelope,
  token: string,
  nowMs: number,
  archive: ArchivePlan | undefined,
): Promise<LeaseOutcome> {
  const { ttlSeconds, dedupSeconds } = recordLifetimes(
    deps.config,
    providerById(deps.config, envelope.provider),
  );
  const nowSec = Math.floor(nowMs / 1000);
  return deps.inbox.beginProcessing(
    inboxKey(envelope.provider, envelope.dedupkey),
    {
      provider: envelope.provider,
      dedupKey: envelope.dedupkey,
      payloadSha256: envelope.payloadsha256,
      eventType: envelope.type,
      deliveryId: envelope.deliveryid,
      expiresAt: nowSec + ttlSeconds,
      dedupUntil: nowSec + dedupSeconds,
    },
    {
      token,
      messageId: record.messageId,
      receiveCount: record.receiveCount,
      payloadSha256: envelope.payloadsha256,
      eventType: envelope.type,
      leaseMs: deps.leaseMs,
      nowMs,
      ...(archive?.kind === 'with_lease' ? { archive: archive.facts } : {}),
    },
  );
}

async function markProcessed(
  deps: ProcessDeps,
  pk: string,
  token: string,
): Promise<'marked' | 'not_ours' | 'failed'> {
  const result = await retryWrite(
    () => deps.inbox.markProcessed(pk, token, deps.clock.now()),
    writeRetries(deps),
  );
  if (!result.ok) return 'failed';
  return result.applied ? 'marked' : 'not_ours';
}

/** The longest a ChangeMessageVisibility may ask for now (receive-policy.ts). */
function visibilityCeiling(deps: ProcessDeps): number {
  return visibilityCeilingSeconds({
    nowMs: deps.clock.now(),
    invocationStartedMs: deps.invocationStartedMs,
    waitedBeforeSeconds: waitedBeforeInvocationSeconds({
      maxBatchingWindowSeconds: deps.config.queue.maxBatchingWindowSeconds,
      functionTimeoutSeconds: Math.ceil((deps.deadlineMs - deps.invocationStartedMs) / 1000) + 1,
    }),
  });
}

async function retry(
  deps: ProcessDeps,
  record: QueueRecord,
  facts: Facts,
  code: string,
  atLeastSeconds = 0,
): Promise<RecordResult> {
  const scheduled = retryDelaySeconds(deps.config.queue.retrySchedule, record.receiveCount, deps.random);
  const delaySeconds = Math.min(Math.max(scheduled, atLeastSeconds), visibilityCeiling(deps));
  // If this fails the message keeps the queue's visibility timeout: a retry sooner than planned, not a
  // lost one.
  await deps.messages.delay(record.receiptHandle, delaySeconds).catch(() => undefined);
  return { ...facts, outcome: 'retry', code, delaySeconds };
}

/** A transient failure before the lease (DynamoDB unreachable): retry, or on the last receive let it go. */
async function failedWithoutLease(
  deps: ProcessDeps,
  record: QueueRecord,
  facts: Facts,
  code: string,
  atLeastSeconds = 0,
): Promise<RecordResult> {
  if (
    afterFailure({ steps: deps.config.queue.retrySchedule, receiveCount: record.receiveCount }) === 'give_up'
  ) {
    return giveUp(deps, record, facts, code, undefined);
  }
  return retry(deps, record, facts, code, atLeastSeconds);
}

/** Hands the message back at once, so the next receive comes soon and SQS's redrive policy moves it. */
async function drain(deps: ProcessDeps, record: QueueRecord): Promise<void> {
  await drainMessage(deps.messages, record.receiptHandle);
}

/**
 * Gives the delivery up. Under our lease the record is marked `dead-lettered` first, naming this message,
 * so its later receives drain without running anything. If that mark cannot be written, the give-up is
 * put off (a retry on the schedule) unless this is the last receive: a give-up nobody recorded would run
 * the handler again on every receive until the queue moves it.
 */
/** Our lease, as the failure paths need it: to release it, or to wait it out when it cannot be released. */
interface HeldLease {
  pk: string;
  token: string;
  untilMs: number;
}

/**
 * The seconds until a lease we could not release lapses. The retry waits at least that long, so the next
 * receive does not find our lease still live and spend itself on `lease_held`.
 */
function leaseLeftSeconds(deps: ProcessDeps, lease: HeldLease): number {
  return Math.max(0, Math.ceil((lease.untilMs - deps.clock.now()) / 1000)) + 1;
}

async function giveUp(
  deps: ProcessDeps,
  record: QueueRecord,
  facts: Facts,
  code: string,
  lease: HeldLease | undefined,
  detail?: string,
): Promise<RecordResult> {
  let recorded = false;
  if (lease) {
    const result = await retryWrite(
      () =>
        deps.inbox.markDeadLettered(lease.pk, lease.token, {
          errorCode: code,
          ...(detail === undefined ? {} : { errorDetail: detail }),
          messageId: record.messageId,
          nowMs: deps.clock.now(),
          receiveCount: record.receiveCount,
        }),
      writeRetries(deps),
    );
    recorded = result.ok && result.applied;
    if (!result.ok && !isLastReceive(deps.config.queue.retrySchedule, record.receiveCount)) {
      return retry(deps, record, facts, code, leaseLeftSeconds(deps, lease));
    }
  }
  await drain(deps, record);
  return { ...facts, outcome: 'dead_lettered', code, recorded, ...(detail === undefined ? {} : { detail }) };
}
