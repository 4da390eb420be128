// One destination-queue message through the forwarder: parse, check the destination is enabled, read the
// delivery's history there, load the bytes, attempt, judge the answer, record it, and then acknowledge,
// wait (the schedule, or the destination's Retry-After) or give up. Pure orchestration over the ports.
//
// As in the processor (process-record.ts), a message reaches its DLQ only through the queue's redrive
// policy: a give-up records `dead-lettered` naming the message and hands it back at once, and its later
// receives drain without sending, so the AWS console's "Start DLQ redrive" works for every message.
import type { Config, ForwardDestination } from '../../../config';
import { forwarderTimeoutSeconds } from '../../../config/resources';
import { type Envelope, MESSAGE_ATTRIBUTES } from '../envelope';
import { parseEnvelope } from '../envelope-schema';
import { classifyFailure } from '../failure';
import { inboxKey } from '../inbox';
import { loadPayload } from '../load-payload';
import type { Clock, MessageControl, PayloadReader } from '../ports';
import type { QueueRecord } from '../process-record';
import {
  drain as drainMessage,
  isLastReceive,
  visibilityCeilingSeconds,
  waitedBeforeInvocationSeconds,
} from '../receive-policy';
import { type AttemptResult, forwardDelaySeconds, judgeAttempt } from './attempt';
import type { ForwardState } from './forward-state';
import type { DestinationSenders, DestinationStates, ForwardLog, ForwardQueues } from './ports';
import { webhookId } from './signing';

export interface ForwardDeps {
  config: Pick<Config, 'destinations'>;
  senders: DestinationSenders;
  history: ForwardLog;
  states: DestinationStates;
  payloads: PayloadReader;
  /** The hold on a message of the destination's own queue. */
  messagesFor(destinationId: string): MessageControl;
  /** The destinations' queues: a delivery waiting on a disabled destination is sent to its queue anew. */
  queues: ForwardQueues;
  clock: Clock;
  random?: () => number;
  /** When the invocation started, epoch ms: SQS counts a visibility change's 12 h from the receive. */
  invocationStartedMs: number;
  /** Aborted when the invocation is about to time out: a record not started by then is not started. */
  signal?: AbortSignal;
}

export type ForwardResult = {
  destination?: string;
  provider?: string;
  eventType?: string;
  dedupKey?: string;
  /** This attempt's number, when one was made. */
  attempt?: number;
  /** The destination's HTTP status, when it answered. */
  status?: number;
  /** False when the history could not be written (the attempt's result stands). */
  recorded?: boolean;
} & (
  | {
      outcome: 'delivered';
      /** From the provider's delivery to the destination's acceptance. */
      latencyMs: number;
    }
  /** Delivered already (a second copy, or a redrive of a delivered one): nothing sent. */
  | { outcome: 'duplicate_skipped' }
  /**
   * A second copy of a delivery waiting out its retry: handed back until the retry's time, nothing sent.
   * On the message's last receive it goes to the queue anew instead (this copy acknowledged), so a copy
   * never spends the receive the retry needs.
   */
  | { outcome: 'held'; delaySeconds: number; requeued?: boolean }
  | {
      outcome: 'retry';
      code: string;
      delaySeconds: number;
      /** Whether an attempt failed (not a read or a secret). */
      attempted: boolean;
    }
  | { outcome: 'dead_lettered'; code: string; attempted: boolean }
  /** A later receive of a message given up already, on its way to the DLQ. */
  | { outcome: 'draining'; code: string }
  /** The destination is disabled (410) and keeps its deliveries until `destinations enable`. */
  | {
      outcome: 'waiting';
      code: string;
      delaySeconds: number;
      /** This attempt's 410 disabled it. */
      disabledNow: boolean;
      /** Sent to its queue anew (this message acknowledged), so that waiting spends none of its receives. */
      requeued?: boolean;
    }
  | { outcome: 'not_started' }
);

type Facts = Omit<ForwardResult, 'outcome'>;

/** Own keys only: an id from a message attribute must not find Object's members. */
function forwardDestination(
  config: ForwardDeps['config'],
  id: string | undefined,
): ForwardDestination | undefined {
  if (id === undefined || !Object.hasOwn(config.destinations, id)) return undefined;
  const destination = config.destinations[id];
  return destination && destination.type !== 'handlers' ? destination : undefined;
}

export async function forwardRecord(deps: ForwardDeps, record: QueueRecord): Promise<ForwardResult> {
  if (deps.signal?.aborted) return { outcome: 'not_started' };
  const envelope = parseEnvelope(record.body);
  const destination = forwardDestination(deps.config, record.attributes[MESSAGE_ATTRIBUTES.destination]);
  const messages = destination ? deps.messagesFor(destination.id) : undefined;
  // Not written by the processor, or for a destination no longer configured: nothing to send it with.
  // It drains to the DLQ, where an operator sees it (and can redrive it once the destination is back).
  if (!envelope || !destination || !messages) {
    if (messages) await drain(messages, record);
    return {
      outcome: 'dead_lettered',
      code: envelope ? 'unknown_destination' : 'malformed_envelope',
      attempted: false,
    };
  }
  const facts: Facts = {
    destination: destination.id,
    provider: envelope.provider,
    eventType: envelope.type,
    dedupKey: envelope.dedupkey,
  };
  const step = new ForwardStep(deps, destination, messages, record, envelope, facts);
  return step.run();
}

/** What this receive's attempt adds to the history, whatever the history is when it is written. */
interface AttemptFacts {
  lastAttemptAt: string;
  lastStatus?: number;
  lastErrorCode?: string;
}

/** One receive of one message for one destination. */
class ForwardStep {
  private readonly pk: string;
  private readonly id: string;
  /** The history as last read: every write expects to find it so. */
  private prior: ForwardState | undefined;
  /** Set once an attempt was made. */
  private thisAttempt: AttemptFacts | undefined;

  constructor(
    private readonly deps: ForwardDeps,
    private readonly destination: ForwardDestination,
    private readonly messages: MessageControl,
    private readonly record: QueueRecord,
    private readonly envelope: Envelope,
    private readonly facts: Facts,
  ) {
    this.pk = inboxKey(envelope.provider, envelope.dedupkey);
    this.id = webhookId(envelope.id);
  }

  async run(): Promise<ForwardResult> {
    let body: Buffer;
    try {
      const status = await this.deps.states.status(this.destination.id);
      this.prior = await this.deps.history.get(this.pk, this.destination.id);
      if (this.prior?.state === 'delivered') return { ...this.facts, outcome: 'duplicate_skipped' };
      if (this.prior?.state === 'dead-lettered' && this.prior.deadLetterMessageId === this.record.messageId) {
        await drain(this.messages, this.record);
        return { ...this.facts, outcome: 'draining', code: this.prior.lastErrorCode ?? 'dead_lettered' };
      }
      if (!status.enabled) return this.disabled(status.reason ?? 'destination_disabled', false);
      const retryAtMs = this.prior?.state === 'retrying' ? Date.parse(this.prior.nextAttemptAt ?? '') : NaN;
      if (retryAtMs - this.deps.clock.now() > EARLY_TOLERANCE_MS) return this.hold(retryAtMs);
      body = await loadPayload(this.deps, this.envelope);
    } catch (error) {
      const failure = classifyFailure(error);
      if (failure.permanent) return this.giveUp(failure.code, false);
      return this.retry(failure.code, undefined, false);
    }
    if (this.deps.signal?.aborted) return { ...this.facts, outcome: 'not_started' };

    const attempt = (this.prior?.attempts ?? 0) + 1;
    const sender = this.deps.senders[this.destination.type];
    if (!sender) throw new Error(`no sender for destination type ${this.destination.type}`);
    const attemptMs = this.deps.clock.now();
    let result: AttemptResult;
    try {
      result = await sender.send({
        destination: this.destination,
        webhookId: this.id,
        envelope: this.envelope,
        body,
        attempt,
        nowMs: attemptMs,
      });
    } catch (error) {
      // Not the destination's failure (its secret's store is down, say): no attempt was made.
      return this.retry(classifyFailure(error).code, undefined, false);
    }
    const verdict = judgeAttempt(result, this.deps.clock.now());
    const status = result.kind === 'answered' ? result.status : undefined;
    const attemptFacts = { attempt, ...(status === undefined ? {} : { status }) };
    this.thisAttempt = {
      lastAttemptAt: new Date(attemptMs).toISOString(),
      ...(status === undefined ? {} : { lastStatus: status }),
      ...(verdict.kind === 'delivered' ? {} : { lastErrorCode: verdict.code }),
    };
    switch (verdict.kind) {
      case 'delivered': {
        const nowMs = this.deps.clock.now();
        const deliveredAt = new Date(nowMs).toISOString();
        // A delivery is written even over another copy's delivery, so both attempts are counted.
        const recorded =
          (await this.write(() => ({ ...this.base(), state: 'delivered', deliveredAt }))) === 'written';
        const latencyMs = Math.max(0, nowMs - Date.parse(this.envelope.time));
        return {
          ...this.facts,
          ...attemptFacts,
          outcome: 'delivered',
          latencyMs,
          ...(recorded ? {} : { recorded }),
        };
      }
      case 'retry':
        return { ...(await this.retry(verdict.code, verdict.retryAfterSeconds, true)), ...attemptFacts };
      case 'permanent':
        return { ...(await this.giveUp(verdict.code, true)), ...attemptFacts };
      case 'gone':
        await this.deps.states
          .disable(this.destination.id, verdict.code, this.deps.clock.now())
          .catch(() => undefined);
        return { ...(await this.disabled(verdict.code, true)), ...attemptFacts };
    }
  }

  /**
   * Disabled: wait (the batch pauses the destination's intake, create-handler.ts), or dead-letter per its
   * setting. A waiting message is looked at again after at most WAIT_RECHECK_SECONDS, in case the intake
   * could not be paused, and comes back that soon after `destinations enable`. Each look is a receive, so
   * before the last one the delivery goes to the queue anew, as a new message: waiting never sends it to
   * the DLQ. (If that send fails, the message is only hidden again.)
   */
  private async disabled(code: string, disabledNow: boolean): Promise<ForwardResult> {
    if (this.destination.whenDisabled === 'dlq') return this.giveUp(code, disabledNow);
    const written =
      this.prior?.state === 'waiting' && !disabledNow
        ? 'written'
        : await this.write(() => ({ ...this.base(), state: 'waiting', lastErrorCode: code }));
    if (written === 'delivered') return this.deliveredElsewhere();
    const recorded = written === 'written';
    const facts = { ...this.facts, code, disabledNow, ...(recorded ? {} : { recorded }) };
    const delaySeconds = Math.min(this.delay(undefined), WAIT_RECHECK_SECONDS);
    if (isLastReceive(this.destination.retrySchedule, this.record.receiveCount + 1)) {
      const message = { body: this.record.body, attributes: this.record.attributes, delaySeconds };
      const requeued = await this.deps.queues
        .send(this.destination.id, message)
        .then(() => true)
        .catch(() => false);
      if (requeued) return { ...facts, outcome: 'waiting', delaySeconds, requeued };
    }
    await this.messages.delay(this.record.receiptHandle, delaySeconds).catch(() => undefined);
    return { ...facts, outcome: 'waiting', delaySeconds };
  }

  private async retry(
    code: string,
    retryAfterSeconds: number | undefined,
    attempted: boolean,
  ): Promise<ForwardResult> {
    if (isLastReceive(this.destination.retrySchedule, this.scheduleReceives())) {
      return this.giveUp(code, attempted);
    }
    return this.retryLater(code, retryAfterSeconds, attempted);
  }

  /** Hides the message for the schedule's step and records when the retry comes. */
  private async retryLater(
    code: string,
    retryAfterSeconds: number | undefined,
    attempted: boolean,
  ): Promise<ForwardResult> {
    const delaySeconds = this.delay(retryAfterSeconds);
    // Taken before the message is hidden, so the message comes back no earlier than the history says:
    // the retry itself is never mistaken for an early copy (see hold).
    const next = new Date(this.deps.clock.now() + delaySeconds * 1000).toISOString();
    // If this fails the message keeps the queue's visibility timeout: a retry sooner than planned.
    await this.messages.delay(this.record.receiptHandle, delaySeconds).catch(() => undefined);
    const written = await this.write(() => ({
      ...this.base(),
      ...this.continuation(),
      state: 'retrying',
      lastErrorCode: code,
      nextAttemptAt: next,
    }));
    if (written === 'delivered') return this.deliveredElsewhere();
    const recorded = written === 'written';
    return {
      ...this.facts,
      outcome: 'retry',
      code,
      delaySeconds,
      attempted,
      ...(recorded ? {} : { recorded }),
    };
  }

  /**
   * Gives the delivery up at this destination: recorded as `dead-lettered` naming this message, then handed
   * back at once so the redrive policy moves it. If the record cannot say so, a retry on the schedule
   * instead (unless this is the last receive): unrecorded, every quick receive until the move would send
   * again.
   */
  private async giveUp(code: string, attempted: boolean): Promise<ForwardResult> {
    const written = await this.write(() => ({
      ...this.base(),
      state: 'dead-lettered',
      lastErrorCode: code,
      deadLetterMessageId: this.record.messageId,
    }));
    if (written === 'delivered') return this.deliveredElsewhere();
    const recorded = written === 'written';
    // SQS's own count decides here: until its last receive the message can still be hidden.
    if (!recorded && !isLastReceive(this.destination.retrySchedule, this.record.receiveCount)) {
      return this.retryLater(code, undefined, attempted);
    }
    await drain(this.messages, this.record);
    return { ...this.facts, outcome: 'dead_lettered', code, attempted, ...(recorded ? {} : { recorded }) };
  }

  /**
   * A second copy of a delivery whose history waits for a retry at `retryAtMs`: SQS handed the message out
   * again (its first copy's visibility change then finds it no longer in flight). Sent now it would be an
   * early retry, so it is hidden until then. Hiding it spends a receive: on the last one, it goes to the
   * queue anew, delayed, and this copy is acknowledged, so a second copy never dead-letters a delivery.
   */
  private async hold(retryAtMs: number): Promise<ForwardResult> {
    const wanted = Math.ceil((retryAtMs - this.deps.clock.now()) / 1000);
    const delaySeconds = Math.max(1, Math.min(wanted, this.visibilityCeiling()));
    if (isLastReceive(this.destination.retrySchedule, this.record.receiveCount)) {
      // SendMessage delays at most 15 minutes: a longer wait holds the new message again when it comes.
      const message = {
        body: this.record.body,
        attributes: this.record.attributes,
        delaySeconds: Math.min(delaySeconds, MAX_SEND_DELAY_SECONDS),
      };
      const sent = await this.deps.queues.send(this.destination.id, message).catch(() => undefined);
      if (sent) {
        // The new message carries on the schedule: the receive this copy spent was the retry's. Unrecorded,
        // it starts the schedule again, as a redrive does.
        const receivesBefore = this.scheduleReceives() - 1;
        const requeuedAs = sent.messageId;
        await this.write(() =>
          this.prior?.state === 'retrying' ? { ...this.prior, requeuedAs, receivesBefore } : undefined,
        );
        return { ...this.facts, outcome: 'held', delaySeconds, requeued: true };
      }
    }
    await this.messages.delay(this.record.receiptHandle, delaySeconds).catch(() => undefined);
    return { ...this.facts, outcome: 'held', delaySeconds };
  }

  /**
   * The history as it stands, for a state change: the last one read, with this receive's attempt counted
   * on top of it when one was made.
   */
  private base(): Omit<ForwardState, 'state'> {
    const {
      state: _state,
      nextAttemptAt: _next,
      deadLetterMessageId: _dead,
      requeuedAs: _requeuedAs,
      receivesBefore: _before,
      ...kept
    } = this.prior ?? {
      destination: this.destination.id,
      webhookId: this.id,
      attempts: 0,
      state: 'pending',
    };
    if (!this.thisAttempt) return kept;
    return {
      destination: this.destination.id,
      webhookId: this.id,
      attempts: kept.attempts + 1,
      ...this.thisAttempt,
    };
  }

  /**
   * Writes the state `next` makes of the history read, if the history is still that (compare-and-set):
   * if another copy wrote it meanwhile, reads it again and makes the state anew on top of it, a few times.
   * `written`, `delivered` (another copy got there first), or `not_recorded` (no record, an outage, a
   * history that kept moving, or one `next` no longer writes over: undefined).
   */
  private async write(
    next: () => ForwardState | undefined,
  ): Promise<'written' | 'delivered' | 'not_recorded'> {
    try {
      for (let tries = 1; ; tries++) {
        const state = next();
        if (!state) return 'not_recorded';
        const result = await this.deps.history.put(this.pk, state, { previous: this.prior });
        if (result === 'written' || result === 'delivered') return result;
        if (result === 'no_record' || tries >= HISTORY_WRITE_TRIES) return 'not_recorded';
        this.prior = await this.deps.history.get(this.pk, this.destination.id);
        if (this.prior?.state === 'delivered' && state.state !== 'delivered') return 'delivered';
      }
    } catch {
      return 'not_recorded';
    }
  }

  /** Another copy of this delivery reached the destination meanwhile: acknowledge this one. */
  private deliveredElsewhere(): ForwardResult {
    return { ...this.facts, outcome: 'duplicate_skipped' };
  }

  /** Whether this message was sent anew by a held copy, to carry on the schedule (see hold). */
  private continuation(): Pick<ForwardState, 'requeuedAs' | 'receivesBefore'> {
    const prior = this.prior;
    if (prior?.requeuedAs !== this.record.messageId || prior.receivesBefore === undefined) return {};
    return { requeuedAs: prior.requeuedAs, receivesBefore: prior.receivesBefore };
  }

  /**
   * The receives the schedule has used, this one included: this message's, on top of those of the message
   * it carries on from (a held copy's, see hold). A redrive (a new message) starts the schedule again.
   */
  private scheduleReceives(): number {
    return this.record.receiveCount + (this.continuation().receivesBefore ?? 0);
  }

  /** The longest one visibility change can hide the message now (the processor's rule: receive-policy.ts). */
  private visibilityCeiling(): number {
    return visibilityCeilingSeconds({
      nowMs: this.deps.clock.now(),
      invocationStartedMs: this.deps.invocationStartedMs,
      // The forwarder's event source batches without a window; its queue's visibility timeout follows
      // the forwarder's timeout.
      waitedBeforeSeconds: waitedBeforeInvocationSeconds({
        maxBatchingWindowSeconds: 0,
        functionTimeoutSeconds: forwarderTimeoutSeconds(this.deps.config),
      }),
    });
  }

  /** The schedule's wait (or the Retry-After asked for), within what one visibility change can hide. */
  private delay(retryAfterSeconds: number | undefined): number {
    // The schedule's receives pick the step: a redriven copy (a new message) starts the schedule again,
    // while the attempt number it sends keeps counting.
    const wanted = forwardDelaySeconds(
      this.destination.retrySchedule,
      this.scheduleReceives(),
      retryAfterSeconds,
      this.deps.random,
    );
    return Math.min(wanted, this.visibilityCeiling());
  }
}

/**
 * How early a receive may come for a delivery waiting out its retry and still be the retry: SQS hides a
 * message for whole seconds, and the clocks of the hosts that hid it and that receive it differ a little.
 * Earlier than this it is a second copy, held back (ForwardStep.hold).
 */
const EARLY_TOLERANCE_MS = 500;

/** Writes of one history tried per receive when other copies keep writing it in between. */
const HISTORY_WRITE_TRIES = 4;

/** SendMessage's largest DelaySeconds. */
const MAX_SEND_DELAY_SECONDS = 900;

/** The longest a delivery waiting on a disabled destination stays hidden before it is looked at again. */
export const WAIT_RECHECK_SECONDS = 300;

/** Hands the message back at once: the next receive comes soon, and the redrive policy can move it. */
async function drain(messages: MessageControl, record: QueueRecord): Promise<void> {
  await drainMessage(messages, record.receiptHandle);
}
