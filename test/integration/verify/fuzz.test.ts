// Fuzz of the verify handler against dynalite and fauxqs, through the real SDK clients: random mutations of
// validly signed requests (headers, body bytes, encodings, method, route). No answer is a 5xx unless a
// dependency fault was injected, nothing throws, and nothing is accepted or enqueued unless the providers'
// own libraries (the oracle, test/support/fuzz.ts) say the exact request the handler saw is validly signed.
// A failure prints its seed: FUZZ_SEED=<seed> npx vitest run test/integration/verify/fuzz.test.ts
import { randomInt } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { parseConfig } from '../../../config';
import { useEmulators } from '../../support/emulators';
import { type Fault, injectFault } from '../../support/faults';
import {
  type CaseOptions,
  describeCase,
  FUZZ_PROVIDERS,
  type FuzzCase,
  type FuzzProvider,
  fuzzSecrets,
  makeCase,
  peerAccepts,
  Rng,
  SIGNATURE_HEADER,
  seenByHandler,
  withCanonicalSignatures,
} from '../../support/fuzz';
import { StaticSecrets, TestClock, verifyHandlerFor } from '../../support/pipeline';

const config = parseConfig({
  providers: {
    'standard-webhooks': { scheme: 'standard-webhooks' },
    github: { scheme: 'github' },
    stripe: { scheme: 'stripe' },
  },
});
const ctx = useEmulators({ config });

function seedFromEnv(): number {
  const text = process.env.FUZZ_SEED;
  if (text === undefined || text === '') return randomInt(2 ** 31);
  if (!/^\d{1,10}$/.test(text)) throw new Error(`FUZZ_SEED must be an unsigned integer, got ${text}`);
  return Number(text) >>> 0;
}
const SEED = seedFromEnv();

interface RunOptions {
  seed: number;
  cases: number;
  /** Cases in flight at once; each batch is answered before the next is built. */
  concurrency: number;
  replayShare: number;
  reuseShare: number;
  preferReplay?: CaseOptions['preferReplay'];
  /** Called before each batch; true when a dependency fault is switched on for it. */
  beforeBatch?: (rng: Rng) => boolean;
}

interface Report {
  cases: number;
  byStatus: Record<string, number>;
  /** Reason codes of 4xx answers. */
  reasons: Record<string, number>;
  peerValid: number;
  peerInvalid: number;
  /** Oracle-valid with at least one mutation applied. */
  peerValidMutated: number;
  acceptedMutated: number;
  /** Oracle-valid but refused: the handler is stricter than the peer (e.g. future timestamps, repeats). */
  peerValidRejected: Record<string, number>;
  controls: number;
  replays: number;
  reuses: number;
  /** Accepted with a non-canonical spelling of the correct MAC, which the peers refuse. */
  nonCanonicalAccepted: number;
  enqueued: number;
  elapsedSeconds: number;
  failures: { kind: string; text: string }[];
}

const bump = (counts: Record<string, number>, key: string) => {
  counts[key] = (counts[key] ?? 0) + 1;
};

/** Each element of `a` not matched by one in `b` (multiset difference). */
function difference(a: readonly string[], b: readonly string[]): string[] {
  const left = new Map<string, number>();
  for (const x of b) left.set(x, (left.get(x) ?? 0) + 1);
  return a.filter((x) => {
    const n = left.get(x) ?? 0;
    left.set(x, n - 1);
    return n <= 0;
  });
}

/** What the inbox should answer for an authentic, acceptable delivery, from the 202s answered so far. */
function inboxAnswer(ledger: Map<string, string>, key: string | undefined, sha: string): number | undefined {
  if (key === undefined) return undefined;
  const claimed = ledger.get(key);
  return claimed === undefined ? 202 : claimed === sha ? 200 : 409;
}

async function runFuzz(options: RunOptions): Promise<Report> {
  const started = performance.now();
  const resources = await ctx.provision();
  const clock = new TestClock();
  const rng = new Rng(options.seed);
  const secrets = fuzzSecrets(rng);
  const configured: Record<string, string[]> = Object.fromEntries(
    FUZZ_PROVIDERS.map((p) => [p, [...secrets[p].configured]]),
  );
  const pipeline = verifyHandlerFor(ctx, resources, { secrets: new StaticSecrets({ ...configured }), clock });
  const env = { rng, config, secrets, nowSeconds: clock.seconds(), tag: options.seed.toString(36) };
  const allSecrets = FUZZ_PROVIDERS.flatMap((p: FuzzProvider) => [
    ...secrets[p].configured,
    secrets[p].wrong,
  ]);

  const report: Report = {
    cases: 0,
    byStatus: {},
    reasons: {},
    peerValid: 0,
    peerInvalid: 0,
    peerValidMutated: 0,
    acceptedMutated: 0,
    peerValidRejected: {},
    controls: 0,
    replays: 0,
    reuses: 0,
    nonCanonicalAccepted: 0,
    enqueued: 0,
    elapsedSeconds: 0,
    failures: [],
  };
  const fail = (c: FuzzCase, kind: string, detail: string) =>
    report.failures.push({ kind, text: describeCase(options.seed, c, `${kind}: ${detail}`) });

  const history: FuzzCase[] = [];
  /** Delivery key -> payload hash, for every 202. */
  const ledger = new Map<string, string>();
  const acceptedIds: string[] = [];
  const duplicateIds = new Set<string>();

  for (let start = 0; start < options.cases; start += options.concurrency) {
    const faultsOn = options.beforeBatch?.(rng) ?? false;
    const taken = new Set<string>();
    const batch: FuzzCase[] = [];
    for (let i = start; i < Math.min(start + options.concurrency, options.cases); i++) {
      batch.push(
        makeCase(env, i, {
          history,
          taken,
          replayShare: options.replayShare,
          reuseShare: options.reuseShare,
          preferReplay: options.preferReplay,
        }),
      );
    }
    // Expectations come from answers to earlier batches only: cases in one batch never share a key.
    const expected = batch.map((c) => {
      let answers: Set<number> | undefined;
      const original = c.replayOf;
      if (original?.status !== undefined) {
        // Verification passed the first time: the inbox decides now. Otherwise the same refusal again.
        const authentic = [200, 202, 409, 503].includes(original.status);
        const again = authentic ? inboxAnswer(ledger, c.deliveryKey, c.payloadSha256) : original.status;
        if (again !== undefined) answers = new Set([again]);
      } else if (c.expectAccept) {
        const answer = inboxAnswer(ledger, c.deliveryKey, c.payloadSha256);
        if (answer !== undefined) answers = new Set([answer]);
      }
      if (answers && faultsOn) answers.add(503);
      return answers;
    });

    const results = await Promise.all(
      batch.map(async (c) => {
        try {
          return { response: await pipeline.handler(c.event) };
        } catch (error) {
          return { error };
        }
      }),
    );

    for (const [n, c] of batch.entries()) {
      const result = results[n]!;
      report.cases += 1;
      if (c.replayOf) report.replays += 1;
      if (c.reuseOf) report.reuses += 1;
      if (!c.replayOf && c.mutations.length === 0) report.controls += 1;
      if (!result.response) {
        fail(c, 'threw', String((result.error as Error)?.stack ?? result.error));
        continue;
      }
      const { statusCode: status, body } = result.response;
      c.status = status;
      bump(report.byStatus, String(status));
      let answer: { id?: string; error?: string; duplicate?: boolean } = {};
      try {
        answer = JSON.parse(body);
      } catch {
        fail(c, 'answer not JSON', body.slice(0, 200));
      }
      if (status >= 400 && status < 500) bump(report.reasons, `${status} ${answer.error}`);

      const seen = seenByHandler(c.event);
      const valid = await peerAccepts(seen, configured, config, clock.now());
      const passed = status === 200 || status === 202 || status === 409 || status === 503;
      let nonCanonical = false;
      if (!valid && passed) {
        const canonical = withCanonicalSignatures(seen);
        nonCanonical =
          canonical !== undefined && (await peerAccepts(canonical, configured, config, clock.now()));
      }
      const mutated = c.mutations.length > 0;
      if (valid) {
        report.peerValid += 1;
        if (mutated) report.peerValidMutated += 1;
        if (status >= 400 && status < 500 && status !== 409)
          bump(report.peerValidRejected, `${status} ${answer.error}`);
      } else report.peerInvalid += 1;
      if (mutated && status === 202) report.acceptedMutated += 1;

      // The oracle checks itself: an untouched request signed with a secret nobody configured is a forgery.
      if (!c.replayOf && !mutated && c.signing.includes('secret:wrong') && valid)
        fail(c, 'oracle accepts a wrong secret', 'the oracle is broken');

      if (status >= 500 && !(status === 503 && faultsOn))
        fail(c, '5xx', `${status} ${body}${faultsOn ? '' : ' (no fault injected)'}`);
      if (passed && !valid) {
        if (nonCanonical) {
          if (status === 202 || status === 200) report.nonCanonicalAccepted += 1;
        } else fail(c, 'passed verification but no peer accepts it', `${status} ${body}`);
      }
      if (!valid && !nonCanonical && (status < 400 || status >= 500))
        fail(c, 'peer-invalid not answered 4xx', `${status} ${body}`);
      if ((status === 200 || status === 202) && answer.id !== c.deliveryKey)
        fail(c, 'answer id is not the signed dedup key', `${answer.id} != ${c.deliveryKey}`);
      const wanted = expected[n];
      if (wanted && !wanted.has(status))
        fail(c, 'unexpected answer', `${status} ${body}; expected ${[...wanted].join(' or ')}`);
      // Error answers never echo secrets, signatures or payloads.
      const echoes = [
        ...allSecrets,
        ...SIGNATURE_HEADER[c.provider]
          .flatMap((h) => seen.headers.get(h) ?? [])
          .filter((v) => v.length >= 20),
        ...(seen.body.length >= 32 ? [seen.body.toString('utf8')] : []),
      ];
      if (echoes.some((text) => body.includes(text))) fail(c, 'answer echoes request material', body);

      if (status === 202 && c.deliveryKey !== undefined) {
        ledger.set(c.deliveryKey, c.payloadSha256);
        acceptedIds.push(answer.id as string);
      }
      // A duplicate of a delivery still `claimed` (sent, not yet taken by the processor) sends a copy.
      if (status === 200 && answer.duplicate === true) duplicateIds.add(answer.id as string);
    }
    history.push(...batch);
  }

  const messages = await ctx.receiveAll(resources.queueUrl);
  report.enqueued = messages.length;
  // A message for every 202, and none but for a 202 or a 200 duplicate (a copy sent while the first was
  // still claimed: no mark says whether it has been sent).
  const queued = messages.map((m) => (JSON.parse(m.body) as { id: string }).id);
  const unexplained = difference(
    queued.filter((id) => !duplicateIds.has(id)),
    acceptedIds,
  );
  const missing = difference(acceptedIds, queued);
  if (unexplained.length > 0 || missing.length > 0)
    report.failures.push({
      kind: 'queue is not exactly the 202s',
      text: `FUZZ_SEED=${options.seed}: queued without a 202: ${unexplained.slice(0, 5).join(', ')} (${
        unexplained.length
      }); 202 without a message: ${missing.slice(0, 5).join(', ')} (${missing.length})`,
    });
  // Copies carry the accepted bytes only: never a second body under one id.
  const hashesById = new Map<string, Set<string>>();
  for (const m of messages) {
    const { id, payloadsha256 } = JSON.parse(m.body) as { id: string; payloadsha256: string };
    hashesById.set(id, (hashesById.get(id) ?? new Set()).add(payloadsha256));
  }
  if ([...hashesById.values()].some((hashes) => hashes.size > 1))
    report.failures.push({ kind: 'two bodies queued under one id', text: `FUZZ_SEED=${options.seed}` });
  if (new Set(acceptedIds).size !== acceptedIds.length)
    report.failures.push({ kind: 'one delivery accepted twice', text: `FUZZ_SEED=${options.seed}` });

  const logged = JSON.stringify(pipeline.logger.lines);
  if (allSecrets.some((secret) => logged.includes(secret)))
    report.failures.push({ kind: 'a secret was logged', text: `FUZZ_SEED=${options.seed}` });
  report.elapsedSeconds = Math.round((performance.now() - started) / 100) / 10;
  return report;
}

function print(name: string, seed: number, report: Report): void {
  const { failures, ...counts } = report;
  const count = (test: (status: number) => boolean) =>
    Object.entries(report.byStatus)
      .filter(([s]) => test(Number(s)))
      .reduce((sum, [, n]) => sum + n, 0);
  console.log(
    `fuzz ${name} FUZZ_SEED=${seed}: cases ${report.cases}, 202 ${count((s) => s === 202)}, 200 ${count(
      (s) => s === 200,
    )}, 4xx ${count((s) => s >= 400 && s < 500)}, 5xx ${count((s) => s >= 500)}\n${JSON.stringify(counts, null, 2)}`,
  );
  const byKind = new Map<string, string[]>();
  for (const f of failures) byKind.set(f.kind, [...(byKind.get(f.kind) ?? []), f.text]);
  for (const [kind, texts] of byKind)
    console.log(
      `FAILURE ${kind} x${texts.length}, first ${Math.min(3, texts.length)}:\n${texts.slice(0, 3).join('\n')}`,
    );
}

/** Failure counts by kind: `{}` when the run is clean. */
const failureKinds = (report: Report) =>
  report.failures.reduce<Record<string, number>>((counts, f) => {
    bump(counts, f.kind);
    return counts;
  }, {});

describe('verify handler fuzz', () => {
  it('answers 5,000 mutated requests without a 5xx or a throw, and accepts and enqueues only validly signed ones', async () => {
    console.log(`fuzz seed ${SEED} (reproduce with FUZZ_SEED=${SEED})`);
    const report = await runFuzz({
      seed: SEED,
      cases: 5_000,
      concurrency: 8,
      replayShare: 0.04,
      reuseShare: 0.03,
    });
    print('main', SEED, report);

    expect(failureKinds(report)).toEqual({});
    // Every case answered: the count of statuses, not of cases tried (that one is 5,000 by construction).
    expect(Object.values(report.byStatus).reduce((sum, n) => sum + n, 0)).toBe(5_000);
    // A broken oracle (everything invalid, or everything valid) cannot pass these.
    expect(report.peerValidMutated).toBeGreaterThan(0);
    expect(report.acceptedMutated).toBeGreaterThan(0);
    expect(report.peerInvalid).toBeGreaterThan(report.cases / 4);
    expect(report.byStatus['202']).toBeGreaterThan(0);
    expect(report.enqueued).toBeGreaterThanOrEqual(report.byStatus['202'] ?? 0);
    expect(report.enqueued).toBeLessThanOrEqual(
      (report.byStatus['202'] ?? 0) + (report.byStatus['200'] ?? 0),
    );
  }, 600_000);

  it('answers 503 only while DynamoDB or SQS fail, and still enqueues only validly signed requests it answered 202', async () => {
    const seed = (SEED + 1) >>> 0;
    const faults: Fault[] = [
      injectFault(ctx.clients.dynamodb, { commands: 'PutItemCommand' }),
      injectFault(ctx.clients.sqs, { commands: 'SendMessageCommand' }),
    ];
    // Off until a batch switches them on.
    for (const fault of faults) fault.off();
    let report: Report;
    try {
      report = await runFuzz({
        seed,
        cases: 300,
        concurrency: 8,
        replayShare: 0.15,
        reuseShare: 0.03,
        // Re-sending what got 503 shows the failed claim was given back.
        preferReplay: (c) => c.status === 503,
        beforeBatch: (rng) => {
          let on = false;
          for (const fault of faults) {
            if (rng.chance(0.35)) {
              fault.on();
              on = true;
            } else fault.off();
          }
          return on;
        },
      });
    } finally {
      for (const fault of faults) fault.remove();
    }
    print('faults', seed, report);

    expect(failureKinds(report)).toEqual({});
    expect(faults.reduce((sum, f) => sum + f.failures, 0)).toBeGreaterThan(0);
    expect(report.byStatus['503']).toBeGreaterThan(0);
    expect(report.byStatus['202']).toBeGreaterThan(0);
    expect(report.enqueued).toBeGreaterThanOrEqual(report.byStatus['202'] ?? 0);
    expect(report.enqueued).toBeLessThanOrEqual(
      (report.byStatus['202'] ?? 0) + (report.byStatus['200'] ?? 0),
    );
  }, 300_000);
});
