// The delivery record's life, written once: every transition an actor may make, with its precondition,
// its writes and its listing-index effect. The DynamoDB adapters render each transition's condition and
// update from here (adapters/dynamo-expression.ts), the core's classifications evaluate the same
// predicates in memory (evaluate.ts), and the state table of docs/how-it-works.md is generated from TRANSITIONS.
import { listKeyOf, listSortOf } from '../../../config/list-index';
import type { ArchiveFacts } from '../archive';
import { type AttemptOutcome, formatAttemptEntry } from '../attempt-log';
import { UNKNOWN_EVENT_TYPE } from '../envelope';
import {
  all,
  any,
  appendTo,
  beginsWith,
  type Condition,
  contains,
  eq,
  exists,
  gte,
  isIn,
  lt,
  missing,
  ne,
  not,
  setIfMissing,
  setTo,
  sizeIs,
  type Update,
  update,
} from './expression';

export const STATUSES = [
  'claimed',
  'enqueued',
  'processing',
  'processed',
  'failed',
  'dead-lettered',
] as const;
export type Status = (typeof STATUSES)[number];

/** What each status means, for the docs' table. */
export const STATUS_MEANINGS: Readonly<Record<Status, string>> = {
  claimed:
    'verify claimed the dedup key and sends the message; the record stays so until the processor leases it',
  enqueued: 'a message is on the main queue (sent by verify, a replay or a redrive)',
  processing: 'a processor worker holds the lease and runs the handlers',
  processed: 'the handlers succeeded; later copies are skipped',
  failed: 'a receive failed; SQS hands the message out again after its backoff',
  'dead-lettered': 'given up; the message is left to the redrive policy and reaches the DLQ',
};

export const ACTORS = ['verify', 'processor', 'replay', 'redrive', 'operator', 'forwarder'] as const;
export type Actor = (typeof ACTORS)[number];

/** The key attribute, and the attributes every transition names. */
const PK = 'pk';
const STATUS = 'status';
const TOKEN = 'processingToken';

/** How long past its end an operator's tool counts a processing lease as lapsed (core/inbox.ts). */
export const OPERATOR_LEASE_MARGIN_MS = 15 * 60_000;

// --- Predicates shared by transitions and by the core's classifications ----------------------------------

/** The record names the same event type; no type and `unknown` are one (they route alike). */
export function sameType(eventType: string | undefined): Condition {
  const type = eventType ?? UNKNOWN_EVENT_TYPE;
  return type === UNKNOWN_EVENT_TYPE
    ? any(missing('eventType'), eq('eventType', type))
    : eq('eventType', type);
}

/** The same bytes under the same event type. */
export function sameDelivery(payloadSha256: string, eventType: string | undefined): Condition {
  return all(eq('payloadSha256', payloadSha256), sameType(eventType));
}

/** A lease (claim or processing) that has lapsed by `nowMs`; a record without one counts as lapsed only where said. */
const leaseLapsed = (nowMs: number) => lt('leaseUntil', nowMs);

/** Our own processing lease: the token we took it with. */
export const ownLease = (token: string): Condition => eq(TOKEN, token);

/**
 * This very message was given up on already: it is on its way to the DLQ and must not run, whatever
 * another copy of the delivery did since.
 */
export function draining(messageId: string): Condition {
  return any(
    all(eq(STATUS, 'dead-lettered'), eq('deadLetterMessageId', messageId)),
    contains('givenUpMessageIds', messageId),
  );
}

/** The statuses that are final until an operator acts (replay, redrive). */
export const OPERATOR_SETTLED_STATUSES = ['processed', 'dead-lettered'] as const;

/**
 * Nothing will move the record on by itself, as an operator judges it: processed, dead-lettered, or a
 * processing lease that lapsed `OPERATOR_LEASE_MARGIN_MS` ago by the operator's clock.
 */
export function settledForOperator(nowMs: number): Condition {
  return any(
    isIn(STATUS, OPERATOR_SETTLED_STATUSES),
    all(
      eq(STATUS, 'processing'),
      any(missing('leaseUntil'), lt('leaseUntil', nowMs - OPERATOR_LEASE_MARGIN_MS)),
    ),
  );
}

/** The statuses a record keeps while its message is (or should be) on its way to the processor. */
export const STRANDABLE_STATUSES = ['failed', 'claimed', 'enqueued'] as const;

/**
 * The record's times that each put a message on the main queue, or saw one there: a receive that failed
 * (failedAt), the verify send or a replay (enqueuedAt, lastReplayedAt), a redrive (redrivenAt), the claim
 * (receivedAt).
 */
export const TRANSITION_TIMES = [
  'failedAt',
  'enqueuedAt',
  'redrivenAt',
  'lastReplayedAt',
  'receivedAt',
] as const;

/**
 * Stranded: strandable, with every transition before `beforeIso`, so its message cannot be on the main
 * queue any more. ISO times in one format compare as strings.
 */
export function stranded(beforeIso: string): Condition {
  return all(
    isIn(STATUS, STRANDABLE_STATUSES),
    ...TRANSITION_TIMES.map((name) =>
      name === 'receivedAt' ? lt(name, beforeIso) : any(missing(name), lt(name, beforeIso)),
    ),
  );
}

/** The record's lifetime is over (TTL only lags): `expiresAt` is in epoch seconds. */
export const expired = (nowMs: number): Condition => lt('expiresAt', Math.floor(nowMs / 1000));

// --- Transition parameters --------------------------------------------------------------------------------

export interface ClaimParams {
  nowMs: number;
  payloadSha256: string;
  eventType?: string;
}

export interface LeaseParams {
  pk: string;
  token: string;
  messageId: string;
  receiveCount: number;
  payloadSha256: string;
  eventType: string;
  nowMs: number;
  leaseMs: number;
  /** Written only where the record has none: a record TTL deleted is recreated from the message. */
  seed: Readonly<Record<string, string | number | undefined>>;
  archive?: ArchiveFacts;
}

/** What a lease writes only where the record has none: the message's own facts. */
const SEED_ATTRIBUTES = [
  'provider',
  'dedupKey',
  'payloadSha256',
  'eventType',
  'deliveryId',
  'expiresAt',
  'dedupUntil',
] as const;

export interface MarkFailedParams {
  pk: string;
  token: string;
  errorCode: string;
  nowMs: number;
  receiveCount?: number;
  /**
   * The handler was cut off and may still finish: the token stays on the failed record, so its success
   * can be marked late (markProcessedLate) until another worker leases the record. Only from
   * `processing`, so an SDK retry of this mark is refused as it is without the token.
   */
  keepToken?: boolean;
}

export interface MarkDeadLetteredParams extends MarkFailedParams {
  errorDetail?: string;
  messageId: string;
}

export interface ReplayParams {
  /** The record as read and judged replayable. */
  seen: Readonly<Record<string, unknown>> & { pk: string; payloadSha256: string };
  nowMs: number;
  by?: string;
  strandedBeforeMs: number;
  token: string;
}

/** What markReplayed sets or removes besides the status and the histories: the undo restores them. */
export const REPLAY_MARKED = [
  'enqueuedAt',
  'lastReplayedAt',
  'lastReplayedBy',
  'forwardedAt',
  'leaseUntil',
  'processingToken',
  'replays',
  'replayToken',
] as const;

export const FORWARD_PREFIX = 'forward:';

/** The attributes archive facts are stored under (archiveBody is binary in DynamoDB). */
function archiveSets(facts: ArchiveFacts | undefined, keep: boolean) {
  if (!facts) return [];
  return Object.entries(facts)
    .filter((entry): entry is [string, string] => entry[1] !== undefined)
    .map(([name, value]) => (keep ? setIfMissing(name, value) : setTo(name, value)));
}

function attempt(at: string, errorCode: string, receiveCount: number | undefined, outcome: AttemptOutcome) {
  return appendTo('attemptLog', [formatAttemptEntry({ at, errorCode, receiveCount, outcome })]);
}

// --- The transitions --------------------------------------------------------------------------------------

/** One transition's write as data: the condition it needs and the update it makes. */
export interface Transition<P> {
  condition(params: P): Condition;
  update(params: P): Update;
}

/**
 * Who makes a transition, from which statuses to which: the docs' table. Kept apart from the writes so
 * a Lambda's bundle carries only the writes it makes.
 */
export interface TransitionRole {
  actor: Actor;
  /** Statuses it may start from (`none`: no record yet), for the docs' table. */
  from: readonly (Status | 'none')[];
  to: Status | 'unchanged';
  /** What it does to the record's place in the listing index (config/list-index.ts). */
  index: string;
  summary: string;
}

const ALL_FROM: readonly Status[] = STATUSES;

/**
 * Verify's claim, a conditional put of the whole new record. A lapsed claim may be retaken only by the
 * same bytes under the same type. A record past its dedup window but kept for the archive is retaken
 * only once nothing works on it: a replay or redrive of an old delivery must not be overwritten by a
 * provider's resend, which would take its lease away. A record past `expiresAt` is gone.
 */
export const claim: Transition<ClaimParams> = {
  condition: ({ nowMs, payloadSha256, eventType }) =>
    any(
      missing(PK),
      expired(nowMs),
      all(
        lt('dedupUntil', Math.floor(nowMs / 1000)),
        any(
          isIn(STATUS, ['processed', 'dead-lettered']),
          all(isIn(STATUS, ['claimed', 'processing']), leaseLapsed(nowMs)),
        ),
      ),
      all(eq(STATUS, 'claimed'), leaseLapsed(nowMs), sameDelivery(payloadSha256, eventType)),
    ),
  // The put writes the whole record (core/inbox.ts newClaimRecord); nothing is updated.
  update: () => update({}),
};

/** Verify's own claim, found by an SDK retry of its applied put. */
export const ownClaim: Transition<{ claimToken: string }> = {
  condition: ({ claimToken }) => all(eq('claimToken', claimToken), eq(STATUS, 'claimed')),
  update: () => update({}),
};

/**
 * Verify's release when the send failed: the claim lease lapses and the record stays, so other bytes
 * under the same id are not let in as new; the same bytes retake it at once.
 */
export const release: Transition<{ claimToken: string }> = {
  condition: ({ claimToken }) => all(eq('claimToken', claimToken), eq(STATUS, 'claimed')),
  update: () => update({ set: [setTo('leaseUntil', 0)] }),
};

/**
 * The processor's lease. Not processed, the same bytes and type, not this very message given up
 * already, and no live worker on it. A live *claim* lease does not block (the message exists). Our own
 * token is an SDK retry of this update. Anyone else's live lease is respected, even one taken for this
 * same message: SQS may hand a message out twice at once.
 */
export const lease: Transition<LeaseParams> = {
  condition: (p) =>
    any(
      missing(PK),
      all(
        ne(STATUS, 'processed'),
        sameDelivery(p.payloadSha256, p.eventType),
        not(draining(p.messageId)),
        any(ne(STATUS, 'processing'), leaseLapsed(p.nowMs), ownLease(p.token)),
      ),
    ),
  update: (p) => {
    const receivedAt = new Date(p.nowMs).toISOString();
    const seed: Record<string, string | number | undefined> = { receivedAt, attempts: 0 };
    for (const name of SEED_ATTRIBUTES) if (p.seed[name] !== undefined) seed[name] = p.seed[name];
    return update({
      set: [
        setTo(STATUS, 'processing'),
        setTo(TOKEN, p.token),
        setTo('leaseUntil', p.nowMs + p.leaseMs),
        setTo('leaseMessageId', p.messageId),
        setTo('messageId', p.messageId),
        setTo('leaseReceiveCount', p.receiveCount),
        ...Object.entries(seed)
          .filter((entry): entry is [string, string | number] => entry[1] !== undefined)
          .map(([name, value]) => setIfMissing(name, value)),
        setTo('listKey', listKeyOf(p.pk, 'processing')),
        setIfMissing('listSort', listSortOf(receivedAt, p.pk)),
        ...archiveSets(p.archive, true),
      ],
    });
  },
};

/**
 * Drops the oldest attempts under our fresh lease, conditioned on the length read, so a concurrent
 * change is never cut twice.
 */
export const trimAttempts: Transition<{ token: string; length: number; excess: number }> = {
  condition: ({ token, length }) => all(ownLease(token), sizeIs('attemptLog', length)),
  update: ({ excess }) => update({ remove: Array.from({ length: excess }, (_, i) => `attemptLog[${i}]`) }),
};

/** The token stays, so an SDK retry of this applied mark finds it and applies again. */
export const markProcessed: Transition<{ token: string; nowMs: number }> = {
  condition: ({ token }) => ownLease(token),
  update: ({ nowMs }) =>
    update({
      set: [setTo(STATUS, 'processed'), setTo('processedAt', new Date(nowMs).toISOString())],
      remove: ['leaseUntil'],
    }),
};

export const markArchived: Transition<{ token: string; facts: ArchiveFacts }> = {
  condition: ({ token }) => ownLease(token),
  update: ({ facts }) => update({ set: archiveSets(facts, false) }),
};

export const markForwarded: Transition<{ token: string; nowMs: number }> = {
  condition: ({ token }) => ownLease(token),
  update: ({ nowMs }) => update({ set: [setTo('forwardedAt', new Date(nowMs).toISOString())] }),
};

/**
 * Hands the lease back: lapsed rather than removed (the lease condition compares leaseUntil, and a
 * missing one would block the next receive); the token goes, so a late SDK retry is refused.
 */
export const releaseLease: Transition<{ token: string }> = {
  condition: ({ token }) => all(ownLease(token), eq(STATUS, 'processing')),
  update: () => update({ set: [setTo('leaseUntil', 0)], remove: [TOKEN] }),
};

export const markFailed: Transition<MarkFailedParams> = {
  condition: ({ token, keepToken }) =>
    keepToken ? all(ownLease(token), eq(STATUS, 'processing')) : ownLease(token),
  update: (p) => {
    const at = new Date(p.nowMs).toISOString();
    return update({
      set: [
        setTo(STATUS, 'failed'),
        setTo('lastErrorCode', p.errorCode),
        setTo('failedAt', at),
        setTo('listKey', listKeyOf(p.pk, 'failed')),
        attempt(at, p.errorCode, p.receiveCount, 'failed'),
      ],
      remove: ['leaseUntil', ...(p.keepToken ? [] : [TOKEN]), 'lastErrorDetail'],
      add: [{ path: 'attempts', value: 1 }],
    });
  },
};

/**
 * A handler cut off at the deadline finished after all: its effect ran, so the failed record it left is
 * processed, unless a worker leased the record since (the lease replaces the token).
 */
export const markProcessedLate: Transition<{ pk: string; token: string; nowMs: number }> = {
  condition: ({ token }) => all(ownLease(token), eq(STATUS, 'failed')),
  update: ({ pk, nowMs }) =>
    update({
      set: [
        setTo(STATUS, 'processed'),
        setTo('processedAt', new Date(nowMs).toISOString()),
        setTo('listKey', listKeyOf(pk, 'processed')),
      ],
    }),
};

/**
 * The give-up: the message is left to the redrive policy. Idempotent under an SDK retry: the retry's
 * condition fails and the record is found exactly as this update left it (givenUp).
 */
export const markDeadLettered: Transition<MarkDeadLetteredParams> = {
  condition: ({ token }) => ownLease(token),
  update: (p) => {
    const at = new Date(p.nowMs).toISOString();
    return update({
      set: [
        setTo(STATUS, 'dead-lettered'),
        setTo('lastErrorCode', p.errorCode),
        setTo('deadLetterMessageId', p.messageId),
        setTo('deadLetteredAt', at),
        setTo('listKey', listKeyOf(p.pk, 'dead-lettered')),
        attempt(at, p.errorCode, p.receiveCount, 'dead-lettered'),
        ...(p.errorDetail === undefined ? [] : [setTo('lastErrorDetail', p.errorDetail)]),
      ],
      remove: ['leaseUntil', TOKEN, ...(p.errorDetail === undefined ? ['lastErrorDetail'] : [])],
      add: [
        { path: 'attempts', value: 1 },
        { path: 'givenUpMessageIds', value: { stringSet: [p.messageId] } },
      ],
    });
  },
};

/**
 * A message moved back from the DLQ: the record is `enqueued` again, only if still as the give-up left
 * it (dead-lettered before the move began, failed, or a lease that lapsed well past its end by the
 * operator's clock). A processed record stays processed, and a live lease stays with its holder.
 */
export const markRequeued: Transition<{ pk: string; nowMs: number; movedSinceMs: number }> = {
  condition: ({ nowMs, movedSinceMs }) =>
    all(
      exists(PK),
      any(
        all(
          eq(STATUS, 'dead-lettered'),
          any(missing('deadLetteredAt'), lt('deadLetteredAt', new Date(movedSinceMs).toISOString())),
        ),
        eq(STATUS, 'failed'),
        all(
          isIn(STATUS, ['claimed', 'processing']),
          any(missing('leaseUntil'), lt('leaseUntil', nowMs - OPERATOR_LEASE_MARGIN_MS)),
        ),
      ),
    ),
  // The moved messages start a new round: the copies given up before it are in the DLQ or moved.
  update: ({ pk }) =>
    update({
      set: [setTo(STATUS, 'enqueued'), setTo('listKey', listKeyOf(pk, 'enqueued'))],
      remove: ['leaseUntil', TOKEN, 'givenUpMessageIds'],
    }),
};

/** When an operator moved the delivery back from the DLQ, for its timeline: a fact either way. */
export const noteRedriven: Transition<{ nowMs: number }> = {
  condition: () => exists(PK),
  update: ({ nowMs }) => update({ set: [setTo('redrivenAt', new Date(nowMs).toISOString())] }),
};

/**
 * An operator's replay: settled or stranded, the same bytes, not expired, and each destination's
 * history as read. The record becomes `enqueued`, counted and signed, and forgets its fan-out.
 */
export const markReplayed: Transition<ReplayParams> = {
  condition: (p) => {
    const forwards = Object.keys(p.seen).filter((name) => name.startsWith(FORWARD_PREFIX));
    return all(
      eq('payloadSha256', p.seen.payloadSha256),
      gte('expiresAt', Math.floor(p.nowMs / 1000)),
      any(settledForOperator(p.nowMs), stranded(new Date(p.strandedBeforeMs).toISOString())),
      ...forwards.map((name) => eq(name, String(p.seen[name]))),
    );
  },
  update: (p) => {
    const at = new Date(p.nowMs).toISOString();
    const forwards = Object.keys(p.seen).filter((name) => name.startsWith(FORWARD_PREFIX));
    return update({
      set: [
        setTo(STATUS, 'enqueued'),
        setTo('enqueuedAt', at),
        setTo('lastReplayedAt', at),
        setTo('listKey', listKeyOf(p.seen.pk, 'enqueued')),
        setTo('replayToken', p.token),
        ...(p.by === undefined ? [] : [setTo('lastReplayedBy', p.by)]),
      ],
      remove: ['forwardedAt', 'leaseUntil', TOKEN, ...forwards],
      add: [{ path: 'replays', value: 1 }],
    });
  },
};

/** An SDK retry of the replay's own applied mark is known by its token. */
export const ownReplay: Transition<{ token: string }> = {
  condition: ({ token }) => all(eq(STATUS, 'enqueued'), eq('replayToken', token)),
  update: () => update({}),
};

/**
 * Undoes the replay's mark when its message could not be sent: only our own mark, and every attribute
 * it set or removed back as `seen` had it, the lease above all.
 */
export const unmarkReplayed: Transition<{
  seen: Readonly<Record<string, unknown>> & { pk: string; status: Status };
  replayedAtMs: number;
}> = {
  condition: ({ replayedAtMs }) =>
    all(eq(STATUS, 'enqueued'), eq('lastReplayedAt', new Date(replayedAtMs).toISOString())),
  update: ({ seen }) => {
    const restored = REPLAY_MARKED.filter((name) => seen[name] !== undefined);
    const removed = REPLAY_MARKED.filter((name) => seen[name] === undefined);
    return update({
      set: [
        setTo(STATUS, seen.status),
        setTo('listKey', listKeyOf(seen.pk, seen.status)),
        ...restored.map((name) => setTo(name, seen[name] as string | number)),
      ],
      remove: removed,
    });
  },
};

/** Gives an old record its place in the listing index, conditioned on the status read. */
export const reindex: Transition<{ pk: string; status: Status; receivedAt: string }> = {
  condition: ({ status }) => all(exists(PK), eq(STATUS, status), missing('listSort')),
  update: ({ pk, status, receivedAt }) =>
    update({
      set: [setTo('listKey', listKeyOf(pk, status)), setTo('listSort', listSortOf(receivedAt, pk))],
    }),
};

/**
 * A destination's history, one attribute per destination. Conditioned on the record existing and on
 * the history being as the forwarder read it (`previous`), so two copies attempted at once cannot
 * overwrite each other's attempts; anything but a delivery never replaces a delivered history.
 */
export const recordForward: Transition<{
  attribute: string;
  state: string;
  delivered: boolean;
  /** The history as read (undefined: none yet), when the write must find it unchanged. */
  expect?: { previous: string | undefined };
}> = {
  condition: ({ attribute, expect, delivered }) =>
    all(
      exists(PK),
      ...(expect === undefined
        ? []
        : [expect.previous === undefined ? missing(attribute) : eq(attribute, expect.previous)]),
      ...(delivered ? [] : [any(missing(attribute), not(beginsWith(attribute, DELIVERED_PREFIX)))]),
    ),
  update: ({ attribute, state }) => update({ set: [setTo(attribute, state)] }),
};

/** Every transition by name: the checker, the docs' tables and the adapters look them up here. */
export const TRANSITIONS = {
  claim,
  ownClaim,
  release,
  lease,
  trimAttempts,
  markProcessed,
  markArchived,
  markForwarded,
  releaseLease,
  markFailed,
  markProcessedLate,
  markDeadLettered,
  markRequeued,
  noteRedriven,
  markReplayed,
  ownReplay,
  unmarkReplayed,
  reindex,
  recordForward,
} as const;

/** A delivered history's JSON starts so: the state is its first key. */
export const DELIVERED_PREFIX = '{"state":"delivered"';

export type TransitionName = keyof typeof TRANSITIONS;

/**
 * Each transition's actor, its statuses before and after, and its listing-index effect. A function, so a
 * bundle that never draws the table leaves it out.
 */
export function transitionRoles(): Record<TransitionName, TransitionRole> {
  return {
    claim: {
      actor: 'verify',
      from: ['none', ...STATUSES],
      to: 'claimed',
      index: 'enters its home partition',
      summary: 'claim the dedup key for these bytes',
    },
    ownClaim: {
      actor: 'verify',
      from: ['claimed'],
      to: 'unchanged',
      index: 'none',
      summary: 'recognise our own claim',
    },
    release: {
      actor: 'verify',
      from: ['claimed'],
      to: 'unchanged',
      index: 'none',
      summary: 'let the lease lapse after a failed send',
    },
    lease: {
      actor: 'processor',
      from: ['none', 'claimed', 'enqueued', 'processing', 'failed', 'dead-lettered'],
      to: 'processing',
      index: 'home partition; a recreated record enters it',
      summary: 'take the processing lease for one receive',
    },
    trimAttempts: {
      actor: 'processor',
      from: ['processing'],
      to: 'unchanged',
      index: 'none',
      summary: 'trim the attempt log to its cap',
    },
    markProcessed: {
      actor: 'processor',
      from: ['processing', 'processed'],
      to: 'processed',
      index: 'none',
      summary: 'the handlers succeeded',
    },
    markArchived: {
      actor: 'processor',
      from: ['processing'],
      to: 'unchanged',
      index: 'none',
      summary: 'name the archived object',
    },
    markForwarded: {
      actor: 'processor',
      from: ['processing'],
      to: 'unchanged',
      index: 'none',
      summary: "the destinations' copies are queued",
    },
    releaseLease: {
      actor: 'processor',
      from: ['processing'],
      to: 'unchanged',
      index: 'none',
      summary: 'hand the lease back unprocessed',
    },
    markFailed: {
      actor: 'processor',
      from: ['processing'],
      to: 'failed',
      index: 'moves to the failed partition',
      summary: 'a receive failed; SQS retries it',
    },
    markProcessedLate: {
      actor: 'processor',
      from: ['failed'],
      to: 'processed',
      index: 'back to its home partition',
      summary: 'a cut-off handler finished: its effect ran',
    },
    markDeadLettered: {
      actor: 'processor',
      from: ['processing'],
      to: 'dead-lettered',
      index: 'moves to the dead-lettered partition',
      summary: 'give up; the message goes to the DLQ',
    },
    markRequeued: {
      actor: 'redrive',
      from: ['dead-lettered', 'failed', 'claimed', 'processing'],
      to: 'enqueued',
      index: 'back to its home partition',
      summary: 'a dead letter moved back to the main queue',
    },
    noteRedriven: {
      actor: 'redrive',
      from: ALL_FROM,
      to: 'unchanged',
      index: 'none',
      summary: 'note the redrive time',
    },
    markReplayed: {
      actor: 'replay',
      from: ALL_FROM,
      to: 'enqueued',
      index: 'back to its home partition',
      summary: 'an operator sends the archived bytes again',
    },
    ownReplay: {
      actor: 'replay',
      from: ['enqueued'],
      to: 'unchanged',
      index: 'none',
      summary: 'recognise our own replay mark',
    },
    unmarkReplayed: {
      actor: 'replay',
      from: ['enqueued'],
      to: 'unchanged',
      index: 'back to the partition it had',
      summary: 'undo a replay whose send failed',
    },
    reindex: {
      actor: 'operator',
      from: ALL_FROM,
      to: 'unchanged',
      index: 'enters the partition of its status',
      summary: 'backfill the listing index',
    },
    recordForward: {
      actor: 'forwarder',
      from: ALL_FROM,
      to: 'unchanged',
      index: 'none',
      summary: "record one destination's attempt",
    },
  };
}

/** The docs' state table, one row per transition. */
export function transitionTable(): string {
  const rows = Object.entries(transitionRoles()).map(
    ([name, t]) =>
      `| ${t.actor} | \`${name}\` | ${t.from.join(', ')} | ${t.to} | ${t.index} | ${t.summary} |`,
  );
  return [
    '| Actor | Transition | From | To | Listing index | What it means |',
    '|---|---|---|---|---|---|',
    ...rows,
  ].join('\n');
}

/** The docs' status list. */
export function statusTable(): string {
  return [
    '| Status | Meaning |',
    '|---|---|',
    ...STATUSES.map((s) => `| \`${s}\` | ${STATUS_MEANINGS[s]} |`),
  ].join('\n');
}
