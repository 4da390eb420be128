// Section: end to end, local. The whole local pipeline in this process (startLocalInbox: dynalite and
// fauxqs on their worker thread, the API Gateway emulation, the real verify and processor handlers), driven over HTTP with
// signed Standard Webhooks deliveries, next to the raw emulator calls the verify handler makes (claim,
// SendMessage) at the same concurrency against the same emulators.
import { createHash, randomUUID } from 'node:crypto';
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { type AttributeValue, ScanCommand } from '@aws-sdk/client-dynamodb';
import { GetQueueAttributesCommand } from '@aws-sdk/client-sqs';
import type { Config } from '../config';
import { loadProjectConfig } from '../config/load';
import { DynamoInbox } from '../lambdas/adapters/dynamo-inbox';
import { SqsDeliveryQueue } from '../lambdas/adapters/sqs-queue';
import { buildEnvelope, envelopeAttributes, serializeEnvelope } from '../lambdas/core/envelope';
import { inboxKey } from '../lambdas/core/inbox';
import { SCHEMES } from '../lambdas/core/schemes';
import type { LogSink } from '../lambdas/core/telemetry';
import { type LocalInbox, startLocalInbox } from '../local/local-inbox';
import { restProxyEvent } from '../local/rest-proxy-event';
import { readSecretsFile } from '../local/secrets-file';
import { jsonBody, type SignedDelivery, signedDelivery as sign } from './lib/bodies';
import { formatOps, formatRatio } from './lib/format';
import { median, percentile } from './lib/measure';
import { type Column, defineSection, SectionAbort, type SectionContext } from './lib/section';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const PROVIDER = 'standard-webhooks';
const EVENT_TYPE = 'invoice.paid';
const BODY_BYTES = 1024;
const CONCURRENCY = 16;
const TARGET = 1.1;

// Many short rounds, each path in turn: the machine's load drifts over minutes, and short alternating
// rounds put every path under the same drift. 20 rounds of 50 per path gave ratios that moved by a few
// percent between runs, where 4 rounds of 250 moved by 10-30%.
const FULL = { total: 1000, rounds: 20, warmup: 64, mix: 2000 };
const QUICK = { total: 200, rounds: 4, warmup: 16, mix: 200 };
/** How long to wait for the processor to drain one batch before giving up. */
const DRAIN_TIMEOUT_MS = 120_000;
const POLL_MS = 50;

type Path = 'handler' | 'direct' | 'raw';

const silent: LogSink = { info: () => undefined, warn: () => undefined, error: () => undefined };

interface E2eRow extends Record<string, unknown> {
  path: string;
  operations: number;
  perSecond: number;
  p50Ms: number;
  p95Ms: number;
  p99Ms: number;
  /** Median over rounds: first request of the batch to every record `processed`. */
  allProcessedMs: number | null;
  /** Median over rounds: last answer to every record `processed`. */
  drainAfterLastMs: number | null;
  /** Main event loop busy time per delivery while the batch was answered (processor work included). */
  mainBusyMs: number;
}

function ms(value: number | null): string {
  return value === null || Number.isNaN(value) ? 'n/a' : `${value.toFixed(1)} ms`;
}

/** Runs `count` tasks with `concurrency` workers; returns each task's latency in ms and the batch's wall. */
async function runConcurrent(
  count: number,
  concurrency: number,
  task: (i: number) => Promise<void>,
): Promise<{ latencies: number[]; wallMs: number; lastAnswerAt: number }> {
  const latencies: number[] = new Array(count);
  let next = 0;
  const started = performance.now();
  const worker = async () => {
    for (;;) {
      const i = next++;
      if (i >= count) return;
      const t = performance.now();
      await task(i);
      latencies[i] = performance.now() - t;
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, count) }, worker));
  const lastAnswerAt = performance.now();
  return { latencies, wallMs: lastAnswerAt - started, lastAnswerAt };
}

type Delivery = SignedDelivery;

function signedDelivery(config: Config, secret: string, id: string, badSignature = false): Delivery {
  const scheme = SCHEMES[config.providers[PROVIDER]?.scheme ?? PROVIDER];
  if (!scheme) throw new SectionAbort(`no scheme for ${PROVIDER}`);
  const delivery = sign(scheme, {
    secret,
    id,
    size: BODY_BYTES,
    eventType: EVENT_TYPE,
    options: config.providers[PROVIDER]?.options,
  });
  const { headers } = delivery;
  if (badSignature) {
    // Flip the signature's bytes: same length, same format, wrong value.
    for (const name of Object.keys(headers)) {
      if (name.endsWith('signature')) {
        const value = headers[name] as string;
        const comma = value.indexOf(',');
        const sig = value.slice(comma + 1);
        const flipped = Buffer.from(sig, 'base64').map((b) => b ^ 0xff);
        headers[name] = `${value.slice(0, comma + 1)}${Buffer.from(flipped).toString('base64')}`;
      }
    }
  }
  return delivery;
}

async function post(url: string, delivery: Delivery): Promise<number> {
  const response = await fetch(url, { method: 'POST', headers: delivery.headers, body: delivery.body });
  await response.arrayBuffer();
  return response.status;
}

/** Every item whose pk starts with `prefix`, as {pk, status}. */
async function scanPrefix(inbox: LocalInbox, prefix: string): Promise<{ pk: string; status: string }[]> {
  const found: { pk: string; status: string }[] = [];
  let startKey: Record<string, AttributeValue> | undefined;
  do {
    const page = await inbox.clients.dynamodb.send(
      new ScanCommand({
        TableName: inbox.state.tableName,
        ExclusiveStartKey: startKey,
        FilterExpression: 'begins_with(pk, :prefix)',
        ExpressionAttributeValues: { ':prefix': { S: prefix } },
        ProjectionExpression: 'pk, #status',
        ExpressionAttributeNames: { '#status': 'status' },
      }),
    );
    for (const item of page.Items ?? []) found.push({ pk: item.pk?.S ?? '', status: item.status?.S ?? '' });
    startKey = page.LastEvaluatedKey;
  } while (startKey !== undefined);
  return found;
}

/**
 * Waits until `expected` records under `prefix` are processed; returns when that was seen, or null. The
 * processor marks a record processed before it deletes the message, so the cheap poll is the queue's depth
 * (a Scan of dynalite's whole table every few ms would steal the CPU the processor needs); once the queue
 * is empty, a Scan confirms.
 */
async function waitProcessed(inbox: LocalInbox, prefix: string, expected: number): Promise<number | null> {
  const deadline = performance.now() + DRAIN_TIMEOUT_MS;
  while (performance.now() < deadline) {
    if ((await queueDepth(inbox, inbox.state.queueUrl)) === 0) {
      const seenAt = performance.now();
      const items = await scanPrefix(inbox, prefix);
      if (items.filter((i) => i.status === 'processed').length >= expected) return seenAt;
    }
    await new Promise((r) => setTimeout(r, POLL_MS));
  }
  return null;
}

async function queueDepth(inbox: LocalInbox, queueUrl: string): Promise<number> {
  const { Attributes: a } = await inbox.clients.sqs.send(
    new GetQueueAttributesCommand({
      QueueUrl: queueUrl,
      AttributeNames: ['ApproximateNumberOfMessages', 'ApproximateNumberOfMessagesNotVisible'],
    }),
  );
  return Number(a?.ApproximateNumberOfMessages ?? 0) + Number(a?.ApproximateNumberOfMessagesNotVisible ?? 0);
}

const columns: Column<E2eRow>[] = [
  { header: 'Path', cell: (r) => r.path },
  { header: 'Calls', cell: (r) => String(r.operations), align: 'right' },
  {
    header: 'Per second',
    cell: (r) => (Number.isNaN(r.perSecond) ? 'n/a' : formatOps(r.perSecond)),
    align: 'right',
  },
  { header: 'p50', cell: (r) => ms(r.p50Ms), align: 'right' },
  { header: 'p95', cell: (r) => ms(r.p95Ms), align: 'right' },
  { header: 'p99', cell: (r) => ms(r.p99Ms), align: 'right' },
  { header: 'All processed\n(from 1st send)', cell: (r) => ms(r.allProcessedMs), align: 'right' },
  { header: 'Drain after\nlast answer', cell: (r) => ms(r.drainAfterLastMs), align: 'right' },
  { header: 'Main loop busy\nper delivery', cell: (r) => ms(r.mainBusyMs), align: 'right' },
];

async function run(context: SectionContext) {
  const plan = context.quick ? QUICK : FULL;
  const perRound = Math.ceil(plan.total / plan.rounds);
  const cwd = mkdtempSync(join(tmpdir(), 'webhook-inbox-e2e-'));
  let inbox: LocalInbox | undefined;
  try {
    copyFileSync(join(ROOT, 'cdk.json'), join(cwd, 'cdk.json'));
    const config = loadProjectConfig(cwd);
    const provider = config.providers[PROVIDER];
    if (!provider) throw new SectionAbort(`cdk.json's config has no ${PROVIDER} provider`);
    context.log('end-to-end: starting the local pipeline');
    inbox = await startLocalInbox({ config, cwd, port: 0, logs: { verify: silent, process: silent } });
    const local = inbox;
    const secret = readSecretsFile(local.state.secretsFile)[PROVIDER]?.[0];
    if (!secret) throw new SectionAbort(`no ${PROVIDER} secret in ${local.state.secretsFile}`);
    const url = `${local.state.gatewayUrl}/webhooks/${PROVIDER}`;
    const run = randomUUID().slice(0, 8);

    // The raw path: what the handler does against the emulators on the accept path, without HTTP,
    // signature verification or the handler's own logic. Same clients, same queue, same table.
    const rawInbox = new DynamoInbox(local.clients.dynamodb, local.state.tableName);
    const rawQueue = new SqsDeliveryQueue(local.clients.sqs, local.state.queueUrl);
    const rawAccept = async (id: string, body: Buffer) => {
      const nowMs = Date.now();
      const claimToken = randomUUID();
      const payloadSha256 = createHash('sha256').update(body).digest('hex');
      const claim = await rawInbox.claim({
        provider: PROVIDER,
        dedupKey: id,
        deliveryId: id,
        eventType: EVENT_TYPE,
        payloadSha256,
        nowMs,
        leaseSeconds: config.claimLeaseSeconds,
        ttlSeconds: provider.dedupTtlSeconds,
        claimToken,
      });
      if (claim.kind !== 'claimed') throw new SectionAbort(`raw claim of ${id}: ${claim.kind}`);
      const envelope = buildEnvelope({
        provider: PROVIDER,
        dedupKey: id,
        deliveryId: id,
        eventType: EVENT_TYPE,
        contentType: 'application/json',
        payloadSha256,
        body,
        receivedAtMs: nowMs,
      });
      // As in the handler: no mark after the send.
      await rawQueue.send({ body: serializeEnvelope(envelope), attributes: envelopeAttributes(envelope) });
    };

    // Each path's work for one batch, prepared before the clock starts (bodies signed, events built), as a
    // task per delivery.
    type Task = (i: number) => Promise<void>;
    const prepareHttp = (tag: string, count: number): Task => {
      const deliveries = Array.from({ length: count }, (_, i) =>
        signedDelivery(config, secret, `e2e_${run}_${tag}_${i}`),
      );
      return async (i) => {
        const status = await post(url, deliveries[i] as Delivery);
        if (status !== 202)
          throw new SectionAbort(`delivery ${deliveries[i]?.id} answered ${status}, not 202`);
      };
    };
    const prepareDirect = (tag: string, count: number): Task => {
      const events = Array.from({ length: count }, (_, i) => {
        const delivery = signedDelivery(config, secret, `e2e_${run}_${tag}_${i}`);
        return restProxyEvent({
          method: 'POST',
          path: `/webhooks/${PROVIDER}`,
          headers: delivery.headers,
          body: delivery.body,
        });
      });
      return async (i) => {
        // The handler without the HTTP hop: local mode's own verify handler, with the API Gateway event
        // the gateway would make (signature check, event decoding, envelope, answer).
        const answer = await local.verify(events[i] as (typeof events)[number]);
        if (answer.statusCode !== 202)
          throw new SectionAbort(`direct delivery ${i} answered ${answer.statusCode}, not 202`);
      };
    };
    const prepareRaw = (tag: string, count: number): Task => {
      const bodies = Array.from({ length: count }, (_, i) => {
        const id = `e2e_${run}_${tag}_${i}`;
        return { id, body: jsonBody(BODY_BYTES, id, EVENT_TYPE, { timestamp: new Date().toISOString() }) };
      });
      return async (i) => {
        const { id, body } = bodies[i] as { id: string; body: Buffer };
        await rawAccept(id, body);
      };
    };
    const prepare = { handler: prepareHttp, direct: prepareDirect, raw: prepareRaw };

    /** One path alone at CONCURRENCY, then until every delivery of the batch is processed. */
    const batch = async (path: Path, tag: string, count: number) => {
      const task = prepare[path](tag, count);
      const loop = performance.eventLoopUtilization();
      const started = performance.now();
      const timed = await runConcurrent(count, CONCURRENCY, task);
      const processedAt = await waitProcessed(local, inboxKey(PROVIDER, `e2e_${run}_${tag}_`), count);
      // Until every delivery is processed, so the processor's share is whole on every path.
      const mainBusyMs = performance.eventLoopUtilization(loop).active;
      return { ...timed, started, processedAt, mainBusyMs };
    };

    /**
     * The handler and the raw calls at the same time, each at CONCURRENCY: every moment of the machine's
     * load falls on both alike, so what differs is what the handler does per delivery.
     */
    const pairedBatch = async (
      tag: string,
      round: number,
      count: number,
      first: 'direct' | 'raw' = 'direct',
    ) => {
      const direct = prepare[first](`${tag}d`, count);
      const raw = prepareRaw(`${tag}r`, count);
      // Whichever side starts its workers first is ahead in every event-loop turn after, so the sides
      // swap each round.
      const sides = round % 2 === 1 ? [raw, direct] : [direct, raw];
      const latencies = await Promise.all(sides.map((task) => runConcurrent(count, CONCURRENCY, task)));
      await waitProcessed(local, inboxKey(PROVIDER, `e2e_${run}_${tag}`), 2 * count);
      const [d, r] = round % 2 === 1 ? [latencies[1], latencies[0]] : [latencies[0], latencies[1]];
      return { direct: d?.latencies ?? [], raw: r?.latencies ?? [] };
    };

    context.log(`end-to-end: warm-up (${plan.warmup} per path)`);
    await batch('handler', 'warm-h', plan.warmup);
    await batch('direct', 'warm-d', plan.warmup);
    await batch('raw', 'warm-r', plan.warmup);

    type Batch = Awaited<ReturnType<typeof batch>>;
    const paths: Path[] = ['handler', 'direct', 'raw'];
    const batches: Record<Path, Batch[]> = { handler: [], direct: [], raw: [] };
    for (let round = 0; round < plan.rounds; round++) {
      // Rotate the order so each path runs first, second and last equally often.
      const order = paths.map((_, k) => paths[(round + k) % paths.length] as Path);
      for (const path of order) {
        const tag = `${path[0]}${round}`;
        const result = await batch(path, tag, perRound);
        batches[path].push(result);
        context.log(
          `end-to-end: round ${round + 1}/${plan.rounds} ${path}: ${perRound} in ${result.wallMs.toFixed(0)} ms, ` +
            `all processed ${result.processedAt === null ? 'TIMED OUT' : `${(result.processedAt - result.started).toFixed(0)} ms`}`,
        );
      }
    }

    // The paired runs: the handler and the raw calls side by side, in rounds of the same size.
    const paired = { direct: [] as number[], raw: [] as number[] };
    const pairedRoundRatios: number[] = [];
    for (let round = 0; round < plan.rounds; round++) {
      const result = await pairedBatch(`p${round}`, round, perRound);
      paired.direct.push(...result.direct);
      paired.raw.push(...result.raw);
      pairedRoundRatios.push(percentile(result.direct, 50) / percentile(result.raw, 50));
      context.log(`end-to-end: paired round ${round + 1}/${plan.rounds}: ${perRound} + ${perRound}`);
    }
    // The noise floor of the paired runs: the raw calls paired with themselves (an A/A test), in the same
    // number of rounds. Its ratios show how far from 1.00x two identical paths land on this machine.
    const calibration = { left: [] as number[], right: [] as number[] };
    for (let round = 0; round < plan.rounds; round++) {
      const result = await pairedBatch(`a${round}`, round, perRound, 'raw');
      calibration.left.push(...result.direct);
      calibration.right.push(...result.raw);
      context.log(`end-to-end: A/A round ${round + 1}/${plan.rounds}: ${perRound} + ${perRound}`);
    }
    const aaP50 = percentile(calibration.left, 50) / percentile(calibration.right, 50);
    const aaP99 = percentile(calibration.left, 99) / percentile(calibration.right, 99);
    const pairedP50 = percentile(paired.direct, 50) / percentile(paired.raw, 50);
    const pairedP99 = percentile(paired.direct, 99) / percentile(paired.raw, 99);
    const pairedRow = (path: string, latencies: number[]): E2eRow => ({
      path,
      operations: latencies.length,
      perSecond: Number.NaN,
      p50Ms: percentile(latencies, 50),
      p95Ms: percentile(latencies, 95),
      p99Ms: percentile(latencies, 99),
      allProcessedMs: null,
      drainAfterLastMs: null,
      mainBusyMs: Number.NaN,
    });

    const summarize = (path: string, list: Batch[]): E2eRow => {
      const latencies = list.flatMap((b) => b.latencies);
      const done = list.every((b) => b.processedAt !== null);
      return {
        path,
        operations: latencies.length,
        perSecond: median(list.map((b) => (b.latencies.length / b.wallMs) * 1000)),
        p50Ms: percentile(latencies, 50),
        p95Ms: percentile(latencies, 95),
        p99Ms: percentile(latencies, 99),
        allProcessedMs: done ? median(list.map((b) => (b.processedAt as number) - b.started)) : null,
        drainAfterLastMs: done ? median(list.map((b) => (b.processedAt as number) - b.lastAnswerAt)) : null,
        mainBusyMs: median(list.map((b) => b.mainBusyMs / b.latencies.length)),
      };
    };
    const handlerRow = summarize('handler: HTTP POST -> gateway -> verify (202)', batches.handler);
    const directRow = summarize('handler: API Gateway event -> verify (202)', batches.direct);
    const rawRow = summarize('raw: claim + SendMessage', batches.raw);
    const p50Ratio = handlerRow.p50Ms / rawRow.p50Ms;
    const p99Ratio = handlerRow.p99Ms / rawRow.p99Ms;
    const directP50Ratio = directRow.p50Ms / rawRow.p50Ms;
    const directP99Ratio = directRow.p99Ms / rawRow.p99Ms;
    const verdict = (value: number) => (value <= TARGET ? 'MET' : 'MISSED');
    // The same ratios per round (each round's paths ran back to back), then their median: a check on the
    // pooled figures that one slow stretch of the machine cannot move much.
    const roundRatio = (path: Path, p: number) =>
      median(
        batches[path].map(
          (b, round) => percentile(b.latencies, p) / percentile(batches.raw[round]?.latencies ?? [], p),
        ),
      );
    const handlerTotalMs = batches.handler.reduce(
      (sum, b) => sum + ((b.processedAt ?? Number.NaN) - b.started),
      0,
    );

    // The mix: new, exact duplicates (same bytes and headers, sent after the original was answered),
    // and forgeries (valid shape, wrong signature).
    context.log(`end-to-end: mix of ${plan.mix} (80% new, 10% duplicates, 10% bad signature)`);
    const mixTag = `e2e_${run}_mix_`;
    const newCount = Math.round(plan.mix * 0.8);
    const dupCount = Math.round(plan.mix * 0.1);
    const badCount = plan.mix - newCount - dupCount;
    const originals = Array.from({ length: newCount }, (_, i) =>
      signedDelivery(config, secret, `${mixTag}${i}`),
    );
    type MixItem = { kind: 'new' | 'duplicate' | 'invalid'; delivery: Delivery; of?: number };
    const items: MixItem[] = [
      ...originals.map((delivery) => ({ kind: 'new' as const, delivery })),
      // Which original each duplicate repeats is chosen after the shuffle, among those sent before it.
      ...Array.from({ length: dupCount }, () => ({
        kind: 'duplicate' as const,
        delivery: originals[0] as Delivery,
      })),
      ...Array.from({ length: badCount }, (_, i) => ({
        kind: 'invalid' as const,
        delivery: signedDelivery(config, secret, `${mixTag}bad_${i}`, true),
      })),
    ];
    // Deterministic shuffle (LCG) so duplicates and forgeries are spread through the run.
    let seed = 42;
    for (let i = items.length - 1; i > 0; i--) {
      seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
      const j = seed % (i + 1);
      [items[i], items[j]] = [items[j] as MixItem, items[i] as MixItem];
    }
    // A duplicate waits for its original's answer, so its original must come earlier in the order (the
    // workers take items in order, so an earlier item is always already in someone's hands: no deadlock).
    const seen: number[] = [];
    for (let p = 0; p < items.length; p++) {
      if (items[p]?.kind === 'duplicate' && seen.length === 0) {
        const q = items.findIndex((item, k) => k > p && item.kind === 'new');
        [items[p], items[q]] = [items[q] as MixItem, items[p] as MixItem];
      }
      const item = items[p] as MixItem;
      if (item.kind === 'new') seen.push(Number(item.delivery.id.slice(mixTag.length)));
      if (item.kind === 'duplicate') {
        seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
        item.of = seen[seed % seen.length] as number;
        item.delivery = originals[item.of] as Delivery;
      }
    }
    const originalAnswered = new Map<number, { promise: Promise<void>; resolve: () => void }>();
    for (let i = 0; i < newCount; i++) {
      let resolveFn: () => void = () => undefined;
      const promise = new Promise<void>((r) => {
        resolveFn = r;
      });
      originalAnswered.set(i, { promise, resolve: resolveFn });
    }
    const statusCounts = new Map<string, number>();
    const mixStarted = performance.now();
    const mixTimed = await runConcurrent(items.length, CONCURRENCY, async (i) => {
      const item = items[i] as MixItem;
      // An exact duplicate is a retry of something already answered; racing its original is a
      // different test (in-flight claims).
      if (item.kind === 'duplicate') await originalAnswered.get(item.of as number)?.promise;
      const status = await post(url, item.delivery);
      const key = `${item.kind} -> ${status}`;
      statusCounts.set(key, (statusCounts.get(key) ?? 0) + 1);
      if (item.kind === 'new') originalAnswered.get(Number(item.delivery.id.slice(mixTag.length)))?.resolve();
    });
    const mixProcessedAt = await waitProcessed(local, inboxKey(PROVIDER, mixTag), newCount);
    const mixItems = await scanPrefix(local, inboxKey(PROVIDER, mixTag));
    const processedIds = new Set(mixItems.filter((i) => i.status === 'processed').map((i) => i.pk));
    const missing = originals.filter((d) => !processedIds.has(inboxKey(PROVIDER, d.id))).length;
    const forgedRecords = mixItems.filter((i) => i.pk.includes(`${mixTag}bad_`)).length;
    const dlq = await queueDepth(local, local.state.dlqUrl);
    const queue = await queueDepth(local, local.state.queueUrl);
    const allHandlerProcessed = (
      await Promise.all(
        batches.handler.map((_, round) =>
          scanPrefix(local, inboxKey(PROVIDER, `e2e_${run}_h${round}_`)).then(
            (found) => found.filter((f) => f.status === 'processed').length,
          ),
        ),
      )
    ).reduce((a, b) => a + b, 0);

    const check = (ok: boolean) => (ok ? 'ok' : 'FAILED');
    const expectStatus = (kind: string, status: number, count: number) =>
      (statusCounts.get(`${kind} -> ${status}`) ?? 0) === count;
    const mixChecks = [
      `new -> 202 for all ${newCount}: ${check(expectStatus('new', 202, newCount))}`,
      `duplicate -> 200 for all ${dupCount}: ${check(expectStatus('duplicate', 200, dupCount))}`,
      `invalid -> 401 for all ${badCount}: ${check(expectStatus('invalid', 401, badCount))}`,
      `processed == distinct valid (${processedIds.size} == ${newCount}): ${check(processedIds.size === newCount)}`,
      `nothing missing (${missing} originals without a processed record): ${check(missing === 0)}`,
      `no record for a forgery (${forgedRecords}): ${check(forgedRecords === 0)}`,
      `DLQ empty (${dlq} messages): ${check(dlq === 0)}`,
      `main queue drained (${queue} messages): ${check(queue === 0)}`,
      `every handler-path delivery of the timed rounds processed (${allHandlerProcessed} of ${perRound * plan.rounds}): ${check(allHandlerProcessed === perRound * plan.rounds)}`,
    ];

    const notes = [
      `Target: handler overhead <= ${TARGET.toFixed(2)}x the raw calls. The handler invoked with the API ` +
        `Gateway event: p50 ${formatRatio(directP50Ratio)}: ${verdict(directP50Ratio)}, p99 ` +
        `${formatRatio(directP99Ratio)}: ${verdict(directP99Ratio)}. Through the local gateway over HTTP: p50 ` +
        `${formatRatio(p50Ratio)}: ${verdict(p50Ratio)}, p99 ${formatRatio(p99Ratio)}: ${verdict(p99Ratio)}.`,
      `The same ratios round by round, median over the ${plan.rounds} rounds: API Gateway event p50 ` +
        `${formatRatio(roundRatio('direct', 50))}, p99 ${formatRatio(roundRatio('direct', 99))}; HTTP p50 ` +
        `${formatRatio(roundRatio('handler', 50))}, p99 ${formatRatio(roundRatio('handler', 99))}.`,
      `Paired (the verify handler and the raw calls sent at the same time, ${CONCURRENCY} in flight each, ` +
        `${plan.rounds} rounds of ${perRound} + ${perRound}, the side started first alternating; the same ` +
        `machine load falls on both): p50 ` +
        `${formatRatio(pairedP50)}: ${verdict(pairedP50)}, p99 ${formatRatio(pairedP99)}: ${verdict(pairedP99)}; ` +
        `median of the per-round p50 ratios ${formatRatio(median(pairedRoundRatios))}. The same runs with the ` +
        `raw calls on both sides (A/A, the noise floor): p50 ${formatRatio(aaP50)}, p99 ${formatRatio(aaP99)}.`,
      'Main loop busy per delivery (event-loop utilization from the first send until every delivery of the ' +
        'batch was processed, divided by its deliveries; the drain polling included) is the CPU each path ' +
        'costs the one thread that runs the SDK clients, the handler and the processor: the handler adds ' +
        `${ms(directRow.mainBusyMs - rawRow.mainBusyMs)} per delivery over ` +
        `the raw calls (${formatRatio(directRow.mainBusyMs / rawRow.mainBusyMs)}), the HTTP hop and gateway ` +
        `another ${ms(handlerRow.mainBusyMs - directRow.mainBusyMs)}.`,
      'The HTTP path includes what the raw path does not: the HTTP hop (fetch client and the node:http ' +
        'gateway emulation, in this same process), building the API Gateway event, Standard Webhooks ' +
        'signature verification on the raw bytes, JSON and envelope work, and the answer. The raw path is ' +
        'DynamoInbox.claim (PutItem with the same condition expression) + SqsDeliveryQueue.send ' +
        '(SendMessage of the same envelope) + DynamoInbox.markEnqueued (UpdateItem) through the same SDK ' +
        'clients against the same dynalite and fauxqs.',
      `Method: ${plan.rounds} rounds of ${perRound} per path (order rotated each round) after a ` +
        `${plan.warmup}-call warm-up per path; concurrency ${CONCURRENCY}; ${BODY_BYTES}-byte JSON bodies. ` +
        'Latency = start of the call to the full answer (per request), percentiles over all rounds pooled; ' +
        'per second = median round. After each batch the bench polls the queue depth every ' +
        `${POLL_MS} ms and, once it is 0, confirms with a Scan that every record of the batch is \`processed\`: the processor (SQS event source, in this same ` +
        'process) runs while the batch is sent, on both paths, since both enqueue real envelopes.',
      `Handler path, every accepted delivery processed: ${perRound * plan.rounds} deliveries in ${plan.rounds} ` +
        `batches; sum over batches of first-send-to-all-processed ${Number.isFinite(handlerTotalMs) ? `${(handlerTotalMs / 1000).toFixed(2)} s` : 'n/a (timed out)'}.`,
      'Everything runs in one Node process on a shared 2-core machine: the emulators on their worker ' +
        'thread; the gateway, handlers, processor and load generator on the main event loop, which the ' +
        'handler path therefore loads more than the raw path does. Absolute figures are this machine at ' +
        'this load, not Lambda.',
      `Mix: ${plan.mix} deliveries (${newCount} new, ${dupCount} exact duplicates, ${badCount} bad signature), ` +
        `concurrency ${CONCURRENCY}: answered in ${(mixTimed.wallMs / 1000).toFixed(2)} s ` +
        `(${formatOps((plan.mix / mixTimed.wallMs) * 1000)}/s), all processed ` +
        `${mixProcessedAt === null ? 'TIMED OUT' : `${((mixProcessedAt - mixStarted) / 1000).toFixed(2)} s`} after the first send.`,
      `  statuses: ${[...statusCounts.entries()]
        .sort()
        .map(([k, v]) => `${k}: ${v}`)
        .join(', ')}`,
      ...mixChecks.map((c) => `  check: ${c}`),
    ];
    const failed = mixChecks.filter((c) => c.endsWith('FAILED'));
    if (failed.length > 0) notes.push(`${failed.length} check(s) FAILED`);
    return {
      columns,
      rows: [
        handlerRow,
        directRow,
        rawRow,
        pairedRow('paired: API Gateway event -> verify (202)', paired.direct),
        pairedRow('paired: raw, at the same time', paired.raw),
      ],
      notes,
    };
  } finally {
    await inbox?.stop().catch(() => undefined);
    rmSync(cwd, { recursive: true, force: true });
  }
}

export default defineSection<E2eRow>({ name: 'end-to-end', title: 'End to end, local', run });
