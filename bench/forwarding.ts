// Section: forwarding, local. What local mode's forwarder spends per delivery, next to a plain POST of the
// same body to the same server in the same run. The pipeline is startLocalInbox with one `--forward-to`
// destination (local/forward-to.ts) whose server is a child process (bench/lib/destination-child.ts), so this
// process's main thread holds the client side only. Each forwarder or raw round drains a backlog built
// untimed, with the forwarder stopped, by verify and the processor's fan-out. The paths:
// - forwarder: local mode's own event source and forwarder (LocalInbox.forwarding), batches of 5;
// - raw: the calls that forwarder makes, made directly through the same clients and adapters;
// - fetch: Node's global fetch (undici) of each body, 5 at a time;
// - node:http: http.request with a keep-alive agent (the client the sender uses), 5 at a time.
import { createHash } from 'node:crypto';
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import http from 'node:http';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { loadProjectConfig } from '../config/load';
import { FORWARDER_BATCH_SIZE } from '../config/resources';
import { DynamoDestinationStates } from '../lambdas/adapters/dynamo-destination-states';
import { DynamoForwardLog } from '../lambdas/adapters/dynamo-forward-log';
import { SqsQueueOps } from '../lambdas/adapters/sqs-queue-ops';
import { localDestinationSecretKey } from '../lambdas/core/destinations/forward-state';
import type { Envelope } from '../lambdas/core/envelope';
import { inboxKey } from '../lambdas/core/inbox';
import { SCHEMES } from '../lambdas/core/schemes';
import type { LogSink } from '../lambdas/core/telemetry';
import { forwardToId, withForwardTo } from '../local/forward-to';
import { type LocalInbox, startLocalInbox } from '../local/local-inbox';
import { restProxyEvent } from '../local/rest-proxy-event';
import { readSecretsFile } from '../local/secrets-file';
import { CallRecorder, callKey } from './lib/aws-calls';
import { type SignedDelivery, signedDelivery } from './lib/bodies';
import { startTsChild } from './lib/child';
import { formatRatio } from './lib/format';
import { median, percentile } from './lib/measure';
import { type Column, defineSection, SectionAbort, type SectionContext } from './lib/section';

const HERE = dirname(fileURLToPath(import.meta.url));
const PROVIDER = 'standard-webhooks';
const EVENT_TYPE = 'invoice.paid';
const BODY_BYTES = 1024;
const DESTINATION = forwardToId(0);
const RAW_DESTINATION = 'bench-raw';
/** Deliveries sent at once while a backlog is built (untimed). */
const FILL_CONCURRENCY = 16;
/** The forwarder's main-thread CPU against the raw calls: the verify handler's bar (end-to-end). */
const TARGET = 1.1;
const FULL = { rounds: 12, perRound: 100, warmup: 50, latency: 40 };
const QUICK = { rounds: 3, perRound: 40, warmup: 20, latency: 10 };
const WAIT_MS = 120_000;

type Path = 'forwarder' | 'raw' | 'fetch' | 'node:http';
const PATHS: readonly Path[] = ['forwarder', 'raw', 'fetch', 'node:http'];
const URL_PATH: Record<Path, string> = {
  forwarder: '/forwarded',
  raw: '/raw',
  fetch: '/fetch',
  'node:http': '/node-http',
};

/** Per delivery in one round. */
interface Window {
  wallMs: number;
  busyMs: number;
}

interface ForwardRow extends Record<string, unknown> {
  path: string;
  deliveries: number;
  /** Medians over rounds, per delivery, and medians of the per-round ratios to fetch. */
  wallMs: number;
  busyMs: number;
  wallVsFetch: number;
  busyVsFetch: number;
}

const ms = (value: number) => `${value.toFixed(value < 1 ? 3 : 2)} ms`;

const columns: Column<ForwardRow>[] = [
  { header: 'Path', cell: (r) => r.path },
  { header: 'Deliveries', cell: (r) => String(r.deliveries), align: 'right' },
  { header: 'Wall per\ndelivery', cell: (r) => ms(r.wallMs), align: 'right' },
  { header: 'Wall\n/ fetch', cell: (r) => formatRatio(r.wallVsFetch), align: 'right' },
  { header: 'Main thread\nCPU per delivery', cell: (r) => ms(r.busyMs), align: 'right' },
  { header: 'Main thread\n/ fetch', cell: (r) => formatRatio(r.busyVsFetch), align: 'right' },
];

const sha16 = (body: Buffer) => createHash('sha256').update(body).digest('hex').slice(0, 16);

async function until(what: string, test: () => boolean | Promise<boolean>, pollMs: number): Promise<void> {
  const deadline = performance.now() + WAIT_MS;
  while (!(await test())) {
    if (performance.now() > deadline) throw new SectionAbort(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, pollMs));
  }
}

/** What the destination server reported (one line per request): counts per path, and the forwarded ones checked. */
function arrivals() {
  const count = new Map<string, number>();
  const state = { signedOk: 0, lastAt: 0, problems: [] as string[], expected: new Set<string>() };
  const onLine = (line: string) => {
    const [path = '', , , sha = '', signature = ''] = line.split(' ');
    state.lastAt = performance.now();
    count.set(path, (count.get(path) ?? 0) + 1);
    if (path !== URL_PATH.forwarder) {
      if (signature !== '-') state.problems.push(`${path}: a signature where none was sent`);
      return;
    }
    if (signature === 'ok') state.signedOk++;
    else state.problems.push(`a forwarded request's signature did not verify (${signature})`);
    if (!state.expected.delete(sha)) state.problems.push('a forwarded body was not one sent, or came twice');
  };
  return { state, onLine, of: (path: Path) => count.get(URL_PATH[path]) ?? 0 };
}

async function run(context: SectionContext) {
  const plan = context.quick ? QUICK : FULL;
  const seen = arrivals();
  const server = await startTsChild<{ port: number }>(
    join(HERE, 'lib/destination-child.ts'),
    60_000,
    seen.onLine,
  );
  const base = `http://127.0.0.1:${server.value.port}`;
  const cwd = mkdtempSync(join(tmpdir(), 'webhook-inbox-forwarding-'));
  const agent = new http.Agent({ keepAlive: true });
  const forwardLines = new Map<string, number>();
  const counting = (level: string) => (message: string) =>
    void forwardLines.set(`${level}: ${message}`, (forwardLines.get(`${level}: ${message}`) ?? 0) + 1);
  const silent: LogSink = { info: () => undefined, warn: () => undefined, error: () => undefined };
  let inbox: LocalInbox | undefined;
  try {
    copyFileSync(join(HERE, '..', 'cdk.json'), join(cwd, 'cdk.json'));
    const config = withForwardTo(loadProjectConfig(cwd), [`${base}${URL_PATH.forwarder}`]);
    const provider = config.providers[PROVIDER];
    const scheme = SCHEMES[provider?.scheme ?? PROVIDER];
    if (!provider || !scheme) throw new SectionAbort(`cdk.json's config has no ${PROVIDER} provider`);
    context.log('forwarding: starting the local pipeline with one --forward-to destination');
    const forward: LogSink = { info: counting('info'), warn: counting('warn'), error: counting('error') };
    inbox = await startLocalInbox({
      config,
      cwd,
      port: 0,
      logs: { verify: silent, process: silent, forward },
    });
    const local = inbox;
    const secrets = readSecretsFile(local.state.secretsFile);
    const secret = secrets[PROVIDER]?.[0];
    const destinationSecret = secrets[localDestinationSecretKey(DESTINATION)]?.[0];
    const made = local.state.destinations?.[DESTINATION];
    if (!secret || !destinationSecret || !made) throw new SectionAbort('local mode made no destination');
    server.send(`secret ${destinationSecret}`);
    const recorder = new CallRecorder();
    recorder.instrument(local.clients);
    /** AWS calls on the forwarder and raw paths, over every round, by `service:Operation`. */
    const calls: Record<'forwarder' | 'raw', Map<string, number>> = { forwarder: new Map(), raw: new Map() };
    const ops = new SqsQueueOps(local.clients.sqs);
    const depth = async (url: string) => {
      const c = await ops.counts(url);
      return c.visible + c.inFlight + c.delayed;
    };
    const run = Date.now().toString(36);
    const deliveries = (tag: string, count: number) =>
      Array.from({ length: count }, (_, i) =>
        signedDelivery(scheme, {
          secret,
          id: `fwd_${run}_${tag}_${i}`,
          size: BODY_BYTES,
          eventType: EVENT_TYPE,
          options: provider.options,
        }),
      );
    const verify = async ({ id, headers, body }: SignedDelivery) => {
      const event = restProxyEvent({ method: 'POST', path: `/webhooks/${PROVIDER}`, headers, body });
      const answer = await local.verify(event);
      if (answer.statusCode !== 202) throw new SectionAbort(`delivery ${id} answered ${answer.statusCode}`);
    };
    const backlog = async (list: SignedDelivery[]) => {
      await local.forwarding.stop();
      for (let i = 0; i < list.length; i += FILL_CONCURRENCY)
        await Promise.all(list.slice(i, i + FILL_CONCURRENCY).map(verify));
      const filled = async () =>
        (await depth(local.state.queueUrl)) === 0 && (await depth(made.queueUrl)) >= list.length;
      await until('the fan-out', filled, 20);
      if ((await depth(made.queueUrl)) !== list.length)
        throw new SectionAbort('the backlog is not what was sent');
    };
    const nodePost = (path: string, body: Buffer) =>
      new Promise<void>((done, fail) => {
        const headers = { 'content-type': 'application/json', 'content-length': body.length };
        const request = http.request(`${base}${path}`, { method: 'POST', agent, headers }, (response) => {
          response.resume();
          response.on('end', () => (response.statusCode === 204 ? done() : fail(new SectionAbort(path))));
        });
        request.on('error', fail);
        request.end(body);
      });
    const fetchPost = async (path: string, body: Buffer) => {
      const headers = { 'content-type': 'application/json' };
      const response = await fetch(`${base}${path}`, { method: 'POST', headers, body });
      await response.arrayBuffer();
      if (response.status !== 204) throw new SectionAbort(`${path}: ${response.status}`);
    };
    const inGroups = async (bodies: Buffer[], post: (body: Buffer) => Promise<void>) => {
      for (let i = 0; i < bodies.length; i += FORWARDER_BATCH_SIZE)
        await Promise.all(bodies.slice(i, i + FORWARDER_BATCH_SIZE).map(post));
    };
    const rawLog = new DynamoForwardLog(local.clients.dynamodb, local.state.tableName);
    const rawStates = new DynamoDestinationStates(local.clients.dynamodb, local.state.tableName);
    /** The forwarder's calls, made directly: no envelope schema, signing, verdict or batch framework. */
    const rawDrain = async (count: number) => {
      for (let done = 0; done < count; ) {
        const batch = await ops.receive(made.queueUrl, { maxMessages: FORWARDER_BATCH_SIZE, waitSeconds: 1 });
        await Promise.all(
          batch.map(async (message) => {
            const envelope = JSON.parse(message.body) as Envelope;
            const pk = inboxKey(envelope.provider, envelope.dedupkey);
            await rawLog.get(pk, RAW_DESTINATION);
            await nodePost(URL_PATH.raw, Buffer.from(envelope.data_base64 ?? '', 'base64'));
            await rawLog.put(pk, {
              destination: RAW_DESTINATION,
              state: 'delivered',
              attempts: 1,
              webhookId: pk,
            });
          }),
        );
        await rawStates.count(RAW_DESTINATION, { delivered: batch.length, failed: 0 }, Date.now());
        await Promise.all(batch.map((message) => ops.delete(made.queueUrl, message.receiptHandle)));
        done += batch.length;
      }
    };
    const work: Record<Path, (list: SignedDelivery[]) => Promise<void>> = {
      forwarder: async (list) => {
        local.forwarding.start();
        // Done when the event source has deleted the last message: the batch's history writes and count before.
        let read = 0;
        let deleted = 0;
        const done = () => {
          for (const recorded = recorder.recorded; read < recorded.length; read++)
            if (recorded[read]?.operation === 'DeleteMessage') deleted++;
          return deleted >= list.length;
        };
        await until('the forwarder', done, 1);
      },
      raw: (list) => rawDrain(list.length),
      fetch: (list) =>
        inGroups(
          list.map((d) => d.body),
          (body) => fetchPost(URL_PATH.fetch, body),
        ),
      'node:http': (list) =>
        inGroups(
          list.map((d) => d.body),
          (body) => nodePost(URL_PATH['node:http'], body),
        ),
    };

    /** One path over a round's deliveries (the raw path's own, under other ids); its backlog built first. */
    const timePath = async (
      path: Path,
      list: SignedDelivery[],
      rawList: SignedDelivery[],
    ): Promise<Window> => {
      const own = path === 'raw' ? rawList : list;
      const before = seen.of(path);
      if (path === 'forwarder' || path === 'raw') await backlog(own);
      if (path === 'forwarder') for (const d of own) seen.state.expected.add(sha16(d.body));
      recorder.begin();
      const loop = performance.eventLoopUtilization();
      const started = performance.now();
      await work[path](own);
      const wallMs = performance.now() - started;
      const busyMs = performance.eventLoopUtilization(loop).active;
      for (const call of recorder.end()) {
        if (path === 'forwarder' || path === 'raw')
          calls[path].set(callKey(call), (calls[path].get(callKey(call)) ?? 0) + 1);
      }
      await until(`${path} arrivals`, () => seen.of(path) >= before + own.length, 5);
      return { wallMs: wallMs / own.length, busyMs: busyMs / own.length };
    };

    context.log(`forwarding: warm-up (${plan.warmup} per path)`);
    for (const path of PATHS)
      await timePath(path, deliveries(`w${path}`, plan.warmup), deliveries(`v${path}`, plan.warmup));
    const results: Record<Path, Window[]> = { forwarder: [], raw: [], fetch: [], 'node:http': [] };
    for (let round = 0; round < plan.rounds; round++) {
      const list = deliveries(`r${round}`, plan.perRound);
      const rawList = deliveries(`q${round}`, plan.perRound);
      // Each path first, second, third and last equally often.
      for (let k = 0; k < PATHS.length; k++) {
        const path = PATHS[(round + k) % PATHS.length] as Path;
        results[path].push(await timePath(path, list, rawList));
      }
      const last = (path: Path) => ms((results[path].at(-1) as Window).wallMs);
      context.log(
        `forwarding: round ${round + 1}/${plan.rounds}: forwarder ${last('forwarder')}, fetch ${last('fetch')}`,
      );
    }

    context.log(`forwarding: ${plan.latency} deliveries one at a time, 202 to arrival`);
    local.forwarding.start();
    const latencies: number[] = [];
    for (const delivery of deliveries('lat', plan.latency)) {
      seen.state.expected.add(sha16(delivery.body));
      const before = seen.of('forwarder');
      await verify(delivery);
      const acceptedAt = performance.now();
      await until('the forwarded delivery', () => seen.of('forwarder') > before, 1);
      latencies.push(seen.state.lastAt - acceptedAt);
    }
    await until('the forwarder', async () => (await depth(made.queueUrl)) === 0, 20);

    const ratio = (path: Path, field: keyof Window, to: Path = 'fetch') =>
      median(results[path].map((w, i) => w[field] / (results[to][i] as Window)[field]));
    const row = (path: Path, label: string): ForwardRow => ({
      path: label,
      deliveries: results[path].length * plan.perRound,
      wallMs: median(results[path].map((w) => w.wallMs)),
      busyMs: median(results[path].map((w) => w.busyMs)),
      wallVsFetch: ratio(path, 'wallMs'),
      busyVsFetch: ratio(path, 'busyMs'),
    });
    const timed = plan.rounds * plan.perRound + plan.warmup;
    const callsPer = (path: 'forwarder' | 'raw') =>
      [...calls[path]]
        .sort()
        .map(([key, count]) => `${key.split(':')[1]} ${(count / timed).toFixed(2)}`)
        .join(', ');
    const forwardCalls = [...calls.forwarder.values()].reduce((a, b) => a + b, 0) / timed;
    const forwarded = timed + plan.latency;
    const { state } = seen;
    const dlq = await depth(made.dlqUrl);
    const check = (ok: boolean) => (ok ? 'ok' : 'FAILED');
    const checks = [
      `every forwarded request verified with the standardwebhooks library under the destination's secret ` +
        `(${state.signedOk} of ${forwarded}): ${check(state.signedOk === forwarded)}`,
      `every forwarded body byte-identical to one sent, none twice, none missing (${state.expected.size} ` +
        `missing, ${state.problems.length} problems): ${check(state.problems.length === 0 && state.expected.size === 0)}`,
      `forwarder lines: ${[...forwardLines].map(([k, v]) => `${k} ${v}`).join(', ')}: ` +
        check(forwardLines.get('info: forward delivered') === forwarded && forwardLines.size === 1),
      `destination DLQ empty (${dlq}): ${check(dlq === 0)}`,
    ];
    const busyVsRaw = ratio('forwarder', 'busyMs', 'raw');
    const f = row('forwarder', `forwarder (local mode, batches of ${FORWARDER_BATCH_SIZE})`);
    const fetchRow = row('fetch', `plain fetch (Node's global fetch), ${FORWARDER_BATCH_SIZE} at a time`);
    const notes = [
      `Forwarding overhead per delivery, against a plain fetch of the same body to the same server in the same ` +
        `rounds: ${formatRatio(f.wallVsFetch)} the wall time (${ms(f.wallMs)} against ${ms(fetchRow.wallMs)}), ` +
        `${formatRatio(f.busyVsFetch)} the main thread's CPU (${ms(f.busyMs)} against ${ms(fetchRow.busyMs)}).`,
      `Target: the forwarder's main-thread CPU per delivery <= ${TARGET.toFixed(2)}x the raw calls, the bar the ` +
        `verify handler has against its raw calls (end-to-end): ${formatRatio(busyVsRaw)}: ` +
        `${busyVsRaw <= TARGET ? 'MET' : 'MISSED'}; wall ${formatRatio(ratio('forwarder', 'wallMs', 'raw'))}. A plain ` +
        `fetch is no target: it is one request, where forwarding makes ${forwardCalls.toFixed(2)} AWS calls per ` +
        `delivery besides its POST (forwarder ${callsPer('forwarder')}; raw ${callsPer('raw')}; warm-up included).`,
      `The forwarder path, per batch of ${FORWARDER_BATCH_SIZE}: local mode's event source (the destination state ` +
        'before each poll, cached 1 s; ReceiveMessage from fauxqs; a DeleteMessage per record after the batch) and ' +
        'the real forwarder (middy chain, Powertools BatchProcessor, records in parallel): per record the envelope ' +
        'schema, the destination state (cached), the history (a consistent GetItem from dynalite), the body, ' +
        'Standard Webhooks signing (HMAC-SHA256), the SSRF guard (the URL is an IP literal, checked per attempt; the ' +
        'lookup and peer checks run per new connection, kept alive), the POST, the verdict, the history UpdateItem; ' +
        'then the count UpdateItem. Its log lines are counted, not printed.',
      'The raw path: the same calls through the same SDK clients and adapters (DynamoForwardLog, ' +
        'DynamoDestinationStates.count, SqsQueueOps), JSON.parse of the envelope and an unsigned node:http POST. ' +
        `Fetch and node:http: the same bodies with a JSON content type, ${FORWARDER_BATCH_SIZE} in parallel, one ` +
        'group at a time as the batches go; no queue, table, signature or history.',
      `Method: ${plan.rounds} rounds of ${plan.perRound} deliveries per path after a ${plan.warmup}-delivery ` +
        'warm-up; each path alone, order rotated per round; forwarder, fetch and node:http post the same ' +
        `${BODY_BYTES}-byte bodies, raw bodies of that size under other ids (records of their own). A forwarder or ` +
        'raw round starts on its full backlog and ends when the last message is deleted; a fetch round when its ' +
        "last answer is read. Per delivery = the round's time / its deliveries; medians over rounds, and ratios " +
        "medians of per-round ratios. Main thread CPU = this process's event-loop utilization (active time): the " +
        "SDK clients, the forwarder, the HTTP clients; the emulators' worker thread and the server's process are " +
        'not in it, their wait is in the wall time.',
      `202 to arrival (verify's answer to the request reaching the server: the processor's poll and fan-out, the ` +
        `forwarder's poll and attempt), ${latencies.length} deliveries one at a time: p50 ` +
        `${ms(percentile(latencies, 50))}, p95 ${ms(percentile(latencies, 95))}, max ${ms(Math.max(...latencies))}.`,
      ...checks.map((c) => `  check: ${c}`),
    ];
    const failed = checks.filter((c) => c.endsWith('FAILED')).length;
    if (failed > 0) notes.push(`${failed} check(s) FAILED`);
    return {
      columns,
      rows: [
        f,
        row('raw', 'raw: the same calls, made directly'),
        fetchRow,
        row('node:http', `node:http keep-alive agent, ${FORWARDER_BATCH_SIZE} at a time`),
      ],
      notes,
    };
  } finally {
    await inbox?.stop().catch(() => undefined);
    agent.destroy();
    await server.stop();
    rmSync(cwd, { recursive: true, force: true });
  }
}

export default defineSection<ForwardRow>({ name: 'forwarding', title: 'Forwarding, local', run });
