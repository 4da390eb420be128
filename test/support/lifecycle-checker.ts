// The interleaving checker: explores every order, within a bound, of the actors that touch one delivery's
// record, over the lifecycle's own transitions (core/lifecycle/transitions.ts, evaluated in memory) and
// the core's own classifications (classifyExisting, classifyLeaseRefusal, replayDecision). Actors:
// three verify invocations (two of the same bytes, one of other bytes under the same id); the SQS copies
// of each message (SQS may hand a message out twice; each copy is received up to MAX_RECEIVES times, then
// the redrive policy moves it to the DLQ); processor workers; one replay; one redrive; the clock. Faults:
// an SDK retry of a write that applied and whose answer was lost, a crash before or after each write and
// after the handler's effect, a handler failure, a handler cut off at the deadline that keeps running, and
// the processed mark refused for a whole invocation.
// It checks the invariants after every step, and "nothing answered 2xx is lost" once nothing can move.
import { createHash } from 'node:crypto';
import {
  classifyExisting,
  classifyLeaseRefusal,
  type InboxRecord,
  newClaimRecord,
} from '../../lambdas/core/inbox';
import { applyUpdate, holds, type StoredItem } from '../../lambdas/core/lifecycle/evaluate';
import { TRANSITIONS, type Transition } from '../../lambdas/core/lifecycle/transitions';
import { replayDecision } from '../../lambdas/core/replay';

export interface Bound {
  /** Crashes of any actor, at any of its steps. */
  crashes: number;
  /** SDK retries of an applied write whose answer was lost. */
  sdkRetries: number;
  /** Times the clock jumps past every lease (and the operators' margin). */
  lapses: number;
  /** Messages SQS hands out twice. */
  duplicates: number;
  /** Handler failures (a transient error: the receive is marked failed). */
  handlerFailures: number;
  /** Whole invocations in which DynamoDB refuses the processed mark (the message is still acknowledged). */
  markOutages: number;
  /**
   * Handlers cut off at the invocation's deadline that keep running: nothing stops a promise, and Lambda
   * resumes it whenever it reuses the frozen environment, so its effect may come at any later step.
   */
  cutOffs: number;
  /** Whether the replay and the redrive take part. */
  operators: boolean;
  /** The verify invocations: the bytes each received (X twice is a provider's retry; Y is other bytes). */
  verifies: readonly Bytes[];
}

const NONE: Bound = {
  crashes: 0,
  sdkRetries: 0,
  lapses: 0,
  duplicates: 0,
  handlerFailures: 0,
  markOutages: 0,
  cutOffs: 0,
  operators: false,
  verifies: ['X'],
};

/**
 * The bounded search `npm test` runs: each scenario puts every actor the lifecycle must survive together
 * with one fault of each kind it names; bench runs the same with two of each.
 */
export const NPM_TEST_SCENARIOS: Record<string, Bound> = {
  'three verifies (X, X, Y), an SDK retry, a crash, a lease lapse': {
    ...NONE,
    verifies: ['X', 'X', 'Y'],
    sdkRetries: 1,
    crashes: 1,
    lapses: 1,
  },
  'an SQS duplicate (each copy received up to twice), an SDK retry, a crash, a lease lapse': {
    ...NONE,
    duplicates: 1,
    sdkRetries: 1,
    crashes: 1,
    lapses: 1,
  },
  'a replay and a redrive, a handler failure, an SDK retry, a crash, a lease lapse': {
    ...NONE,
    operators: true,
    handlerFailures: 1,
    sdkRetries: 1,
    crashes: 1,
    lapses: 1,
  },
  'the processed mark refused for a whole invocation, an SQS duplicate, a lease lapse': {
    ...NONE,
    markOutages: 1,
    duplicates: 1,
    lapses: 1,
  },
  'a handler cut off at the deadline that keeps running, an SQS duplicate, a crash, a lease lapse': {
    ...NONE,
    cutOffs: 1,
    duplicates: 1,
    crashes: 1,
    lapses: 1,
  },
};

/**
 * Deeper: two crashes and two lease lapses in every scenario, and two SDK retries where the operators do
 * not take part (with the replay and the redrive, two of each did not finish in 15 minutes here).
 */
export const BENCH_SCENARIOS: Record<string, Bound> = Object.fromEntries(
  Object.entries(NPM_TEST_SCENARIOS).map(([name, bound]) => {
    const deeper: Bound = {
      ...bound,
      crashes: bound.crashes * 2,
      lapses: bound.lapses * 2,
      sdkRetries: bound.operators ? bound.sdkRetries : bound.sdkRetries * 2,
    };
    return [`${name} (deeper)`, deeper];
  }),
);

/** Each copy is received at most this often before the redrive policy moves it (maxReceiveCount). */
const MAX_RECEIVES = 2;
const LEASE_MS = 60_000;
const CLAIM_LEASE_SECONDS = 30;
const LAPSE_MS = 16 * 60_000;
const RETENTION_MS = 4 * 86_400_000;
const T0 = Date.UTC(2026, 0, 15, 12, 0, 0);
const PROVIDER = 'github';
const DEDUP_KEY = 'd-1';
const PK = `${PROVIDER}#${DEDUP_KEY}`;
const BYTES = { X: 'a'.repeat(64), Y: 'b'.repeat(64) } as const;
export type Bytes = keyof typeof BYTES;

interface Copy {
  msg: string;
  bytes: Bytes;
  receives: number;
  where: 'queue' | 'worker' | 'gone' | 'dlq';
}

type WorkerPc = 'lease' | 'effect' | 'mark' | 'ack' | 'failMark';
interface Worker {
  copy: number;
  pc: WorkerPc;
  token: string;
  /** The effect ran on this receive and no processed mark recorded it yet. */
  ranEffect: boolean;
  /** Its handler was cut off at the deadline and runs on: the failure mark keeps the token. */
  cutOff?: boolean;
}

/** A cut-off handler running on: its effect still to come, then its late processed mark. */
interface Orphan {
  token: string;
  pc: 'effect' | 'mark';
}

interface Verify {
  bytes: Bytes;
  pc: 'claim' | 'send' | 'sendCopy' | 'done';
  token: string;
  answer?: number;
}

interface World {
  now: number;
  record?: StoredItem;
  copies: Copy[];
  workers: Worker[];
  verifies: Verify[];
  replay: { pc: 'read' | 'mark' | 'send' | 'done'; seen?: StoredItem };
  redrive: { pc: 'move' | 'mark' | 'done'; movedSince?: number };
  budget: Omit<Bound, 'operators' | 'verifies'>;
  /** Effects run since the delivery's last replay mark (a replay runs the effect again on purpose). */
  effects: number;
  /** An effect ran whose processed mark never landed: after a crash between them, or the mark refused. */
  unmarked: false | 'crash' | 'mark_refused';
  /** Cut-off handlers still running (frozen with their environment, or running beside the next receive). */
  orphans: Orphan[];
  /** A cut-off handler ran its late effect since the last replay mark. */
  cutOff: boolean;
}

export type Violation = 'lost' | 'effect_twice' | 'conflict_202' | 'processed_backwards' | 'stuck_processing';

/** Effects run twice where no protocol can tell: counted, not failed. */
export type Excused =
  | 'effect_twice_after_crash'
  | 'effect_twice_after_cut_off'
  | 'effect_twice_after_mark_refused'
  | 'record_behind_after_mark_refused';

export interface Counterexample {
  kind: Violation | Excused;
  steps: string[];
}

export interface CheckResult {
  bound: Bound;
  states: number;
  transitionsTaken: number;
  terminalStates: number;
  /** End states in which the delivery was processed: a search that never gets there checks nothing. */
  processedEndStates: number;
  violations: Counterexample[];
  excused: Counterexample[];
  counts: Record<string, number>;
}

interface Step {
  label: string;
  next: World;
  /** Whether this step was a replay's mark (the only way back from processed). */
  replayMark?: boolean;
}

/** The transitions the search runs: the kernel's, or a broken variant a test injects to show it is caught. */
let T: typeof TRANSITIONS = TRANSITIONS;

const clone = (world: World): World => structuredClone(world);

function apply<P>(world: World, transition: Transition<P>, params: P): boolean {
  if (!holds(transition.condition(params), world.record)) return false;
  world.record = applyUpdate(world.record, { pk: PK }, transition.update(params));
  return true;
}

function status(world: World): string | undefined {
  return world.record?.status as string | undefined;
}

function leaseParams(world: World, worker: Worker) {
  const copy = world.copies[worker.copy] as Copy;
  return {
    pk: PK,
    token: worker.token,
    messageId: copy.msg,
    receiveCount: copy.receives,
    payloadSha256: BYTES[copy.bytes],
    eventType: 'push',
    nowMs: world.now,
    leaseMs: LEASE_MS,
    seed: { provider: PROVIDER, dedupKey: DEDUP_KEY, payloadSha256: BYTES[copy.bytes], eventType: 'push' },
  };
}

/** The copy goes back to the queue, or to the DLQ once it has been received MAX_RECEIVES times. */
function handBack(world: World, index: number) {
  const copy = world.copies[index] as Copy;
  copy.where = copy.receives >= MAX_RECEIVES ? 'dlq' : 'queue';
}

function sendMessage(world: World, bytes: Bytes, duplicate: boolean) {
  const msg = `m${world.copies.length}`;
  world.copies.push({ msg, bytes, receives: 0, where: 'queue' });
  if (duplicate) world.copies.push({ msg, bytes, receives: 0, where: 'queue' });
}

function workerDone(world: World, index: number) {
  world.workers.splice(index, 1);
}

function runEffect(world: World, worker: Worker) {
  world.effects += 1;
  worker.ranEffect = true;
}

/** Every step the world can take next. */
function moves(world: World, bound: Bound): Step[] {
  const steps: Step[] = [];
  const b = world.budget;
  const step = (label: string, change: (next: World) => void, replayMark = false) => {
    const next = clone(world);
    change(next);
    steps.push({ label, next, replayMark });
  };

  world.verifies.forEach((v, i) => {
    const name = `verify${i + 1}(${v.bytes})`;
    if (v.pc === 'claim') {
      const claim = {
        provider: PROVIDER,
        dedupKey: DEDUP_KEY,
        eventType: 'push',
        payloadSha256: BYTES[v.bytes],
        nowMs: world.now,
        leaseSeconds: CLAIM_LEASE_SECONDS,
        ttlSeconds: 7 * 86_400,
        claimToken: v.token,
      };
      const claimOnce = (next: World): boolean => {
        if (!holds(T.claim.condition(claim), next.record)) return false;
        next.record = { ...newClaimRecord(claim) } as unknown as StoredItem;
        return true;
      };
      const decide = (next: World, nv: Verify) => {
        const outcome = classifyExisting(next.record as unknown as InboxRecord, claim);
        if (outcome.kind === 'claimed') nv.pc = 'send';
        else if (outcome.kind === 'pending') nv.pc = 'sendCopy';
        else if (outcome.kind === 'duplicate') Object.assign(nv, { pc: 'done', answer: 200 });
        else Object.assign(nv, { pc: 'done', answer: outcome.kind === 'conflict' ? 409 : 503 });
      };
      step(`${name} claim`, (next) => {
        const nv = next.verifies[i] as Verify;
        if (claimOnce(next)) nv.pc = 'send';
        else decide(next, nv);
      });
      if (b.sdkRetries > 0)
        step(`${name} claim (applied, answer lost, SDK retry)`, (next) => {
          next.budget.sdkRetries--;
          const nv = next.verifies[i] as Verify;
          claimOnce(next);
          if (claimOnce(next)) nv.pc = 'send';
          else decide(next, nv);
        });
      if (b.crashes > 0)
        step(`${name} claim applied, then verify crashed`, (next) => {
          next.budget.crashes--;
          claimOnce(next);
          (next.verifies[i] as Verify).pc = 'done';
        });
    } else if (v.pc === 'send' || v.pc === 'sendCopy') {
      const answer = v.pc === 'send' ? 202 : 200;
      step(`${name} send, answer ${answer}`, (next) => {
        sendMessage(next, v.bytes, false);
        Object.assign(next.verifies[i] as Verify, { pc: 'done', answer });
      });
      if (b.duplicates > 0)
        step(`${name} send (SQS keeps two copies), answer ${answer}`, (next) => {
          next.budget.duplicates--;
          sendMessage(next, v.bytes, true);
          Object.assign(next.verifies[i] as Verify, { pc: 'done', answer });
        });
      if (b.crashes > 0)
        step(`${name} crashed before its send`, (next) => {
          next.budget.crashes--;
          (next.verifies[i] as Verify).pc = 'done';
        });
    }
  });

  world.copies.forEach((copy, c) => {
    if (copy.where !== 'queue') return;
    step(`receive ${copy.msg}#${c} (receive ${copy.receives + 1})`, (next) => {
      const nc = next.copies[c] as Copy;
      nc.receives += 1;
      nc.where = 'worker';
      next.workers.push({ copy: c, pc: 'lease', token: `t${c}.${nc.receives}`, ranEffect: false });
    });
  });

  world.workers.forEach((w, i) => {
    const copy = world.copies[w.copy] as Copy;
    const name = `worker(${copy.msg}#${w.copy}, ${w.token})`;
    const crash = (label: string, change: (next: World, nw: Worker) => void) => {
      if (b.crashes === 0) return;
      step(`${name} ${label}`, (next) => {
        next.budget.crashes--;
        const nw = next.workers[i] as Worker;
        change(next, nw);
        if (nw.ranEffect) next.unmarked = 'crash';
        handBack(next, nw.copy);
        workerDone(next, i);
      });
    };
    if (w.pc === 'lease') {
      const lease = (next: World, nw: Worker, retried: boolean) => {
        const params = leaseParams(next, nw);
        const applied = apply(next, T.lease, params);
        if (retried && applied) apply(next, T.lease, params);
        const outcome =
          applied && !retried
            ? ({ kind: 'leased' } as const)
            : classifyLeaseRefusal(next.record as unknown as InboxRecord, {
                token: params.token,
                messageId: params.messageId,
                receiveCount: params.receiveCount,
                payloadSha256: params.payloadSha256,
                eventType: params.eventType,
                leaseMs: LEASE_MS,
                nowMs: next.now,
              });
        if (outcome.kind === 'leased') nw.pc = 'effect';
        else if (outcome.kind === 'held') {
          handBack(next, nw.copy);
          workerDone(next, next.workers.indexOf(nw));
        } else if (outcome.kind === 'draining') {
          (next.copies[nw.copy] as Copy).where = 'dlq';
          workerDone(next, next.workers.indexOf(nw));
        } else {
          // processed (a second copy) or conflict: acknowledged, nothing runs.
          (next.copies[nw.copy] as Copy).where = 'gone';
          workerDone(next, next.workers.indexOf(nw));
        }
      };
      step(`${name} lease`, (next) => lease(next, next.workers[i] as Worker, false));
      if (b.sdkRetries > 0)
        step(`${name} lease (applied, answer lost, SDK retry)`, (next) => {
          next.budget.sdkRetries--;
          lease(next, next.workers[i] as Worker, true);
        });
      crash('crashed after its lease applied', (next, nw) => {
        apply(next, T.lease, leaseParams(next, nw));
      });
    } else if (w.pc === 'effect') {
      step(`${name} runs the effect`, (next) => {
        const nw = next.workers[i] as Worker;
        runEffect(next, nw);
        nw.pc = 'mark';
      });
      if (b.cutOffs > 0)
        // The processor counts it as a transient failure (handler_timeout) and marks it so; the handler's
        // promise runs on, its effect still to come.
        step(`${name} handler cut off at the deadline, still running`, (next) => {
          next.budget.cutOffs--;
          const nw = next.workers[i] as Worker;
          next.orphans.push({ token: nw.token, pc: 'effect' });
          Object.assign(nw, { pc: 'failMark', cutOff: true });
        });
      if (b.handlerFailures > 0)
        step(`${name} handler fails`, (next) => {
          next.budget.handlerFailures--;
          (next.workers[i] as Worker).pc = 'failMark';
        });
      crash('crashed before the effect', () => undefined);
      crash('crashed right after the effect', (next, nw) => runEffect(next, nw));
    } else if (w.pc === 'mark') {
      const mark = (next: World, retried: boolean) => {
        const nw = next.workers[i] as Worker;
        apply(next, T.markProcessed, { token: nw.token, nowMs: next.now });
        if (retried) apply(next, T.markProcessed, { token: nw.token, nowMs: next.now });
        // Marked or not ours (a lease taken over): the message is acknowledged either way.
        if (status(next) === 'processed' && next.record?.processingToken === nw.token) nw.ranEffect = false;
        else next.unmarked = 'crash';
        nw.pc = 'ack';
      };
      step(`${name} processed mark`, (next) => mark(next, false));
      if (b.sdkRetries > 0)
        step(`${name} processed mark (applied, answer lost, SDK retry)`, (next) => {
          next.budget.sdkRetries--;
          mark(next, true);
        });
      if (b.markOutages > 0)
        step(
          `${name} processed mark refused for the whole invocation; the message is acknowledged`,
          (next) => {
            next.budget.markOutages--;
            next.unmarked = 'mark_refused';
            (next.workers[i] as Worker).pc = 'ack';
          },
        );
      crash('crashed between the effect and its mark', () => undefined);
    } else if (w.pc === 'ack') {
      step(`${name} deletes its message`, (next) => {
        const nw = next.workers[i] as Worker;
        (next.copies[nw.copy] as Copy).where = 'gone';
        workerDone(next, i);
      });
      crash('crashed before deleting its message', () => undefined);
    } else if (w.pc === 'failMark') {
      step(`${name} marks the failure`, (next) => {
        const nw = next.workers[i] as Worker;
        const nc = next.copies[nw.copy] as Copy;
        if (nc.receives >= MAX_RECEIVES)
          apply(next, T.markDeadLettered, {
            pk: PK,
            token: nw.token,
            errorCode: 'boom',
            nowMs: next.now,
            messageId: nc.msg,
            receiveCount: nc.receives,
          });
        else
          apply(next, T.markFailed, {
            pk: PK,
            token: nw.token,
            errorCode: 'boom',
            nowMs: next.now,
            ...(nw.cutOff ? { keepToken: true } : {}),
          });
        handBack(next, nw.copy);
        workerDone(next, i);
      });
      crash('crashed before marking the failure', () => undefined);
    }
  });

  world.orphans.forEach((orphan, o) => {
    if (orphan.pc === 'effect')
      step(`a cut-off handler resumes and runs its effect (${orphan.token})`, (next) => {
        (next.orphans[o] as Orphan).pc = 'mark';
        next.effects += 1;
        next.cutOff = true;
      });
    // Its late mark is chained after its worker's failure mark, so it waits for that worker.
    else if (!world.workers.some((w) => w.token === orphan.token)) {
      step(`a cut-off handler finished (${orphan.token}): its late processed mark`, (next) => {
        apply(next, T.markProcessedLate, { pk: PK, token: orphan.token, nowMs: next.now });
        next.orphans.splice(o, 1);
      });
      if (b.crashes > 0)
        step(
          `a cut-off handler finished (${orphan.token}), and its environment died before the late mark`,
          (next) => {
            next.budget.crashes--;
            next.orphans.splice(o, 1);
          },
        );
    }
  });

  if (b.lapses > 0)
    // A lease lasts as long as its invocation may run, so the clock passing it means Lambda has ended
    // every invocation that held one: in-flight workers and verify invocations die with it.
    step('the clock passes every lease (their invocations timed out)', (next) => {
      next.budget.lapses--;
      next.now += LAPSE_MS;
      for (const worker of next.workers) {
        if (worker.ranEffect) next.unmarked = 'crash';
        handBack(next, worker.copy);
      }
      next.workers = [];
      for (const verify of next.verifies)
        if (verify.pc === 'send' || verify.pc === 'sendCopy') verify.pc = 'done';
    });

  if (bound.operators) {
    const r = world.replay;
    if (r.pc === 'read')
      step('replay reads the record', (next) => {
        const record = next.record as unknown as InboxRecord | undefined;
        const archived = record ? { ...record, archiveBody: 'e30=' } : undefined;
        const decision = replayDecision(archived, next.now, RETENTION_MS);
        next.replay = decision.kind === 'replayable' ? { pc: 'mark', seen: next.record } : { pc: 'done' };
      });
    else if (r.pc === 'mark') {
      const mark = (next: World, retried: boolean) => {
        const params = {
          seen: r.seen as unknown as Record<string, unknown> & { pk: string; payloadSha256: string },
          nowMs: next.now,
          strandedBeforeMs: next.now - RETENTION_MS,
          token: 'replay',
        };
        const applied = apply(next, T.markReplayed, params);
        if (retried && applied) apply(next, T.markReplayed, params);
        const ours = applied || holds(T.ownReplay.condition({ token: 'replay' }), next.record);
        if (ours) {
          next.effects = 0;
          next.unmarked = false;
          next.cutOff = false;
        }
        next.replay = ours ? { pc: 'send' } : { pc: 'done' };
      };
      step('replay marks the record', (next) => mark(next, false), true);
      if (b.sdkRetries > 0)
        step(
          'replay mark (applied, answer lost, SDK retry)',
          (next) => {
            next.budget.sdkRetries--;
            mark(next, true);
          },
          true,
        );
    } else if (r.pc === 'send')
      step('replay sends the archived bytes', (next) => {
        sendMessage(next, 'X', false);
        next.replay = { pc: 'done' };
      });
    const d = world.redrive;
    if (d.pc === 'move' && world.copies.some((copy) => copy.where === 'dlq'))
      step('redrive moves the DLQ back', (next) => {
        for (const copy of next.copies.filter((candidate) => candidate.where === 'dlq')) {
          copy.where = 'gone';
          sendMessage(next, copy.bytes, false);
        }
        next.redrive = { pc: 'mark', movedSince: next.now };
      });
    else if (d.pc === 'mark')
      step('redrive marks the record re-queued', (next) => {
        apply(next, T.markRequeued, {
          pk: PK,
          nowMs: next.now,
          movedSinceMs: d.movedSince ?? next.now,
        });
        next.redrive = { pc: 'done' };
      });
  }
  return steps;
}

function initial(bound: Bound): World {
  return {
    now: T0,
    copies: [],
    workers: [],
    verifies: bound.verifies.map((bytes, i) => ({ bytes, pc: 'claim', token: `c${i + 1}` })),
    replay: { pc: bound.operators ? 'read' : 'done' },
    redrive: { pc: bound.operators ? 'move' : 'done' },
    budget: {
      crashes: bound.crashes,
      sdkRetries: bound.sdkRetries,
      lapses: bound.lapses,
      duplicates: bound.duplicates,
      handlerFailures: bound.handlerFailures,
      markOutages: bound.markOutages,
      cutOffs: bound.cutOffs,
    },
    effects: 0,
    unmarked: false,
    orphans: [],
    cutOff: false,
  };
}

/** What a step broke, if anything: the invariants checked after every step. */
function stepViolation(before: World, step: Step): Violation | Excused | undefined {
  const after = step.next;
  // Other bytes under the same id are a conflict: never both answered as accepted.
  const accepted = new Set(
    after.verifies.filter((v) => v.answer !== undefined && v.answer < 300).map((v) => v.bytes),
  );
  if (accepted.size > 1) return 'conflict_202';
  if (status(before) === 'processed' && status(after) !== 'processed' && !step.replayMark)
    return 'processed_backwards';
  if (after.effects > before.effects && after.effects > 1)
    return before.unmarked === 'mark_refused'
      ? 'effect_twice_after_mark_refused'
      : before.unmarked === 'crash'
        ? 'effect_twice_after_crash'
        : before.cutOff || after.cutOff
          ? 'effect_twice_after_cut_off'
          : 'effect_twice';
  return undefined;
}

/** Once nothing can move: every delivery answered 2xx is processed or dead-lettered, or waits in the DLQ. */
function terminalViolation(world: World): Violation | Excused | undefined {
  const answered = world.verifies.some((v) => v.answer !== undefined && v.answer < 300);
  if (!answered && world.replay.pc !== 'done') return undefined;
  const inDlq = world.copies.some((copy) => copy.where === 'dlq');
  const s = status(world);
  if (s === 'processed' || s === 'dead-lettered' || inDlq) return undefined;
  if (!answered) return undefined;
  if (s === 'processing' && world.unmarked === 'mark_refused') return 'record_behind_after_mark_refused';
  return s === 'processing' ? 'stuck_processing' : 'lost';
}

/** States are kept by a digest of their JSON: the explored set holds hundreds of thousands. */
function key(world: World): string {
  return createHash('sha1').update(JSON.stringify(world)).digest('base64');
}

const EXCUSED: ReadonlySet<string> = new Set<Excused>([
  'effect_twice_after_crash',
  'effect_twice_after_cut_off',
  'effect_twice_after_mark_refused',
  'record_behind_after_mark_refused',
]);
const isExcused = (kind: string): kind is Excused => EXCUSED.has(kind);

/** Breadth first, so each counterexample found is a shortest one. */
export function check(
  bound: Bound,
  options: { maxCounterexamples?: number; transitions?: Partial<typeof TRANSITIONS> } = {},
): CheckResult {
  T = { ...TRANSITIONS, ...options.transitions };
  const limit = options.maxCounterexamples ?? 3;
  const start = initial(bound);
  const parents = new Map<string, { parent: string | undefined; label: string }>();
  parents.set(key(start), { parent: undefined, label: '' });
  let frontier: World[] = [start];
  let transitionsTaken = 0;
  let terminalStates = 0;
  let processedEndStates = 0;
  const violations: Counterexample[] = [];
  const excused: Counterexample[] = [];
  const counts: Record<string, number> = {};
  const path = (from: string | undefined, last: string): string[] => {
    const steps = [last];
    let at = from;
    while (at !== undefined) {
      const entry = parents.get(at);
      if (!entry || entry.parent === undefined) break;
      steps.unshift(entry.label);
      at = entry.parent;
    }
    return steps;
  };
  while (frontier.length > 0) {
    const nextFrontier: World[] = [];
    for (const world of frontier) {
      const worldKey = key(world);
      const steps = moves(world, bound);
      if (steps.length === 0) {
        terminalStates++;
        if (status(world) === 'processed') processedEndStates++;
        const kind = terminalViolation(world);
        if (kind) {
          counts[kind] = (counts[kind] ?? 0) + 1;
          const list = isExcused(kind) ? excused : violations;
          if (list.filter((v) => v.kind === kind).length < limit)
            list.push({ kind, steps: path(worldKey, '(nothing can move)') });
        }
      }
      for (const step of steps) {
        transitionsTaken++;
        const kind = stepViolation(world, step);
        if (kind) {
          counts[kind] = (counts[kind] ?? 0) + 1;
          const list = isExcused(kind) ? excused : violations;
          if (list.filter((v) => v.kind === kind).length < limit)
            list.push({ kind, steps: path(worldKey, step.label) });
        }
        const nextKey = key(step.next);
        if (parents.has(nextKey)) continue;
        parents.set(nextKey, { parent: worldKey, label: step.label });
        nextFrontier.push(step.next);
      }
    }
    frontier = nextFrontier;
  }
  return {
    bound,
    states: parents.size,
    transitionsTaken,
    terminalStates,
    processedEndStates,
    violations,
    excused,
    counts,
  };
}

/** A counterexample as numbered steps, for the test's output and bench/RESULTS.md. */
export function describeCounterexample(example: Counterexample): string {
  return [`${example.kind}:`, ...example.steps.map((s, i) => `  ${i + 1}. ${s}`)].join('\n');
}
