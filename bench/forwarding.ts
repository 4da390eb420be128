// Section: forwarding, local. What local mode's forwarder spends per delivery, next to a plain POST of the
// same body to the same server in the same run. The pipeline is startLocalInbox with one `--forward-to`
// destination (local/forward-to.ts) whose server runs in a child process (bench/lib/destination-child.ts),
// so this process's CPU and main loop hold the client side only. Each round builds a backlog on the
// destination's queue with the forwarder stopped (verify and the processor's fan-out do that, untimed),
// then times one path draining it, or posting the same bodies itself:
// - forwarder: local mode's own event source and forwarder (LocalInbox.forwarding), batches of 5;
// - raw: the calls that forwarder makes, made directly through the same clients (receive, per record the
//   history GetItem, a node:http POST and the history UpdateItem, then the count UpdateItem and the deletes);
// - fetch: Node's global fetch (undici) of each body, 5 at a time;
// - node:http: http.request with a keep-alive agent (the sender's own client), 5 at a time.
import { createHash } from 'node:crypto';
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import http from 'node:http';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
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
const ROOT = resolve(HERE, '..');
const PROVIDER = 'standard-webhooks';
const EVENT_TYPE = 'invoice.paid';
const BODY_BYTES = 1024;
const DESTINATION = forwardToId(0);
const RAW_DESTINATION = 'bench-raw';
/** Deliveries sent at once while a backlog is built (untimed). */
const FILL_CONCURRENCY = 16;
/** Forwarder main-thread CPU per delivery against the raw calls: the verify handler's bar (end-to-end). */
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

interface Window {
  wallMs: number;
  busyMs: number;
  cpuMs: number;
}

interface ForwardRow extends Record<string, unknown> {
  path: string;
  deliveries: number;
  /** Medians over rounds, per delivery. */
  wallMs: number;
  busyMs: number;
  cpuMs: number;
  /** Medians of the per-round ratios to fetch. */
  wallVsFetch: number;
  busyVsFetch: number;
  cpuVsFetch: number;
}

const ms = (value: number) => `${value.toFixed(value < 1 ? 3 : 2)} ms`;

const columns: Column<ForwardRow>[] = [
  { header: 'Path', cell: (r) => r.path },
  { header: 'Deliveries', cell: (r) => String(r.deliveries), align: 'right' },
  { header: 'Wall per\ndelivery', cell: (r) => ms(r.wallMs), align: 'right' },
  { header: 'Wall\n/ fetch', cell: (r) => formatRatio(r.wallVsFetch), align: 'right' },
  { header: 'Main thread\nCPU per delivery', cell: (r) => ms(r.busyMs), align: 'right' },
  { header: 'Main thread\n/ fetch', cell: (r) => formatRatio(r.busyVsFetch), align: 'right' },
  { header: 'Process CPU\nper delivery', cell: (r) => ms(r.cpuMs), align: 'right' },
  { header: 'Process CPU\n/ fetch', cell: (r) => formatRatio(r.cpuVsFetch), align: 'right' },
];

const sha16 = (body: Buffer) => createHash('sha256').update(body).digest('hex').slice(0, 16);

/** Wall time, main-thread busy time (event-loop utilization) and process CPU (all threads) of `work`. */
async function measureWindow(work: () => Promise<void>): Promise<Window> {
  const loop = performance.eventLoopUtilization();
  const cpu = process.cpuUsage();
  const started = performance.now();
  await work();
  const wallMs = performance.now() - started;
  const used = process.cpuUsage(cpu);
  return {
    wallMs,
    busyMs: performance.eventLoopUtilization(loop).active,
    cpuMs: (used.user + used.system) / 1000,
  };
}

async function until(what: string, test: () => Promise<boolean>, pollMs: number): Promise<void> {
  const deadline = performance.now() + WAIT_MS;
  while (!(await test())) {
    if (performance.now() > deadline) throw new SectionAbort(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, pollMs));
  }
}

/** What the destination server reported: per path, how many arrived; and what the forwarded requests were. */
class Arrivals {
  readonly count = new Map<string, number>();
  /** Body hashes of deliveries sent and not yet forwarded. */
  readonly expected = new Set<string>();
  readonly problems: string[] = [];
  signedOk = 0;
  lastAt = 0;
  private waiter: { path: string; count: number; resolve: () => void } | undefined;

  onLine = (line: string) => {
    const [path = '', , , sha = '', signature = ''] = line.split(' ');
    this.lastAt = performance.now();
    const count = (this.count.get(path) ?? 0) + 1;
    this.count.set(path, count);
    if (path === URL_PATH.forwarder) {
      if (signature === 'ok') this.signedOk++;
      else this.problems.push(`a forwarded request's signature did not verify (${signature})`);
      if (!this.expected.delete(sha)) this.problems.push('a forwarded body was not one sent, or came twice');
    } else if (signature !== '-') this.problems.push(`${path}: a signature where none was sent`);
    if (this.waiter?.path === path && count >= this.waiter.count) this.waiter.resolve();
  };

  of(path: Path): number {
    return this.count.get(URL_PATH[path]) ?? 0;
  }

  /** Resolves once `count` requests of `path` have arrived in all. */
  reach(path: Path, count: number): Promise<void> {
    if (this.of(path) >= count) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new SectionAbort(`${path}: ${count} arrivals never came`)),
        WAIT_MS,
      );
      this.waiter = {
        path: URL_PATH[path],
        count,
        resolve: () => {
          clearTimeout(timer);
          this.waiter = undefined;
          resolve();
        },
      };
    });
  }
}

async function run(context: SectionContext) {
  const plan = context.quick ? QUICK : FULL;
  const arrivals = new Arrivals();
  const server = await startTsChild<{ port: number }>(
    join(HERE, 'lib/destination-child.ts'),
    60_000,
    arrivals.onLine,
  );
  const base = `http://127.0.0.1:${server.value.port}`;
  const cwd = mkdtempSync(join(tmpdir(), 'webhook-inbox-forwarding-'));
  const agent = new http.Agent({ keepAlive: true });
  const forwardLines = new Map<string, number>();
  const counting = (level: string) => (message: string) =>
    void forwardLines.set(`${level}: ${message}`, (forwardLines.get(`${level}: ${message}`) ?? 0) + 1);
  const forwardLog: LogSink = { info: counting('info'), warn: counting('warn'), error: counting('error') };
  const silent: LogSink = { info: () => undefined, warn: () => undefined, error: () => undefined };
  let inbox: LocalInbox | undefined;
  try {
    copyFileSync(join(ROOT, 'cdk.json'), join(cwd, 'cdk.json'));
    const config = withForwardTo(loadProjectConfig(cwd), [`${base}${URL_PATH.forwarder}`]);
    const provider = config.providers[PROVIDER];
    const scheme = SCHEMES[provider?.scheme ?? PROVIDER];
    if (!provider || !scheme) throw new SectionAbort(`cdk.json's config has no ${PROVIDER} provider`);
    context.log('forwarding: starting the local pipeline with one --forward-to destination');
    inbox = await startLocalInbox({
      config,
      cwd,
      port: 0,
      logs: { verify: silent, process: silent, forward: forwardLog },
      handlers: [],
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
    /** AWS calls on the forwarder and raw paths, summed over rounds, by `service:Operation`. */
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
    const verify = async (delivery: SignedDelivery) => {
      const answer = await local.verify(
        restProxyEvent({
          method: 'POST',
          path: `/webhooks/${PROVIDER}`,
          headers: delivery.headers,
          body: delivery.body,
        }),
      );
      if (answer.statusCode !== 202)
        throw new SectionAbort(`delivery ${delivery.id} answered ${answer.statusCode}`);
    };
    /** Untimed: the deliveries through verify and the processor's fan-out, onto the stopped forwarder's queue. */
    const backlog = async (list: SignedDelivery[]) => {
      await local.forwarding.stop();
      for (let i = 0; i < list.length; i += FILL_CONCURRENCY)
        await Promise.all(list.slice(i, i + FILL_CONCURRENCY).map(verify));
      await until(
        'the fan-out',
        async () => (await depth(local.state.queueUrl)) === 0 && (await depth(made.queueUrl)) >= list.length,
        20,
      );
      if ((await depth(made.queueUrl)) !== list.length)
        throw new SectionAbort('the backlog is not what was sent');
    };
    const nodePost = (path: string, body: Buffer) =>
      new Promise<void>((done, fail) => {
        const request = http.request(
          `${base}${path}`,
          {
            method: 'POST',
            agent,
            headers: { 'content-type': 'application/json', 'content-length': body.length },
          },
          (response) => {
            response.resume();
            response.on('end', () =>
              response.statusCode === 204
                ? done()
                : fail(new SectionAbort(`${path}: ${response.statusCode}`)),
            );
          },
        );
        request.on('error', fail);
        request.end(body);
      });
    const fetchPost = async (path: string, body: Buffer) => {
      const response = await fetch(`${base}${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body,
      });
      await response.arrayBuffer();
      if (response.status !== 204) throw new SectionAbort(`${path}: ${response.status}`);
    };
    const inGroups = async (bodies: Buffer[], post: (body: Buffer) => Promise<void>) => {
      for (let i = 0; i < bodies.length; i += FORWARDER_BATCH_SIZE)
        await Promise.all(bodies.slice(i, i + FORWARDER_BATCH_SIZE).map(post));
    };
    const rawLog = new DynamoForwardLog(local.clients.dynamodb, local.state.tableName);
    const rawStates = new DynamoDestinationStates(local.clients.dynamodb, local.state.tableName);
    /** The forwarder's calls for one backlog, made directly: no envelope schema, signing, verdict or batch framework. */
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
              webhookId: envelope.id,
            });
          }),
        );
        await rawStates.count(RAW_DESTINATION, { delivered: batch.length, failed: 0 }, Date.now());
        await Promise.all(batch.map((message) => ops.delete(made.queueUrl, message.receiptHandle)));
        done += batch.length;
      }
    };

    /** One path over one round's deliveries; the backlog (forwarder, raw) is built before the clock starts. */
    const timePath = async (
      path: Path,
      list: SignedDelivery[],
      rawList: SignedDelivery[],
    ): Promise<Window> => {
      const before = arrivals.of(path);
      const bodies = list.map((d) => d.body);
      let window: Window;
      if (path === 'forwarder') {
        await backlog(list);
        for (const d of list) arrivals.expected.add(sha16(d.body));
        recorder.begin();
        window = await measureWindow(async () => {
          local.forwarding.start();
          await arrivals.reach(path, before + list.length);
          // Then the last batch's history write and count, and the event source's deletes.
          const deleted = () => recorder.recorded.filter((c) => c.operation === 'DeleteMessage').length;
          await until('the forwarder to finish', async () => deleted() >= list.length, 1);
        });
      } else if (path === 'raw') {
        await backlog(rawList);
        recorder.begin();
        window = await measureWindow(() => rawDrain(rawList.length));
      } else if (path === 'fetch') {
        window = await measureWindow(() => inGroups(bodies, (body) => fetchPost(URL_PATH.fetch, body)));
      } else {
        window = await measureWindow(() => inGroups(bodies, (body) => nodePost(URL_PATH['node:http'], body)));
      }
      if (path === 'forwarder' || path === 'raw') {
        for (const call of recorder.end())
          calls[path].set(callKey(call), (calls[path].get(callKey(call)) ?? 0) + 1);
      }
      await arrivals.reach(path, before + list.length);
      const n = list.length;
      return { wallMs: window.wallMs / n, busyMs: window.busyMs / n, cpuMs: window.cpuMs / n };
    };

    context.log(`forwarding: warm-up (${plan.warmup} per path)`);
    for (const path of PATHS)
      await timePath(path, deliveries(`w${path}`, plan.warmup), deliveries(`wr${path}`, plan.warmup));
    const results: Record<Path, Window[]> = { forwarder: [], raw: [], fetch: [], 'node:http': [] };
    for (let round = 0; round < plan.rounds; round++) {
      const list = deliveries(`r${round}`, plan.perRound);
      const rawList = deliveries(`q${round}`, plan.perRound);
      // Each path first, second, third and last equally often.
      for (let k = 0; k < PATHS.length; k++) {
        const path = PATHS[(round + k) % PATHS.length] as Path;
        results[path].push(await timePath(path, list, rawList));
      }
      const f = results.forwarder.at(-1) as Window;
      context.log(
        `forwarding: round ${round + 1}/${plan.rounds}: forwarder ${ms(f.wallMs)}, fetch ` +
          `${ms((results.fetch.at(-1) as Window).wallMs)} per delivery`,
      );
    }

    // 202 to arrival, one delivery at a time, with the forwarder running as local mode runs it.
    context.log(`forwarding: ${plan.latency} deliveries one at a time, 202 to arrival`);
    local.forwarding.start();
    const latencies: number[] = [];
    for (const delivery of deliveries('lat', plan.latency)) {
      arrivals.expected.add(sha16(delivery.body));
      const before = arrivals.of('forwarder');
      await verify(delivery);
      const acceptedAt = performance.now();
      await arrivals.reach('forwarder', before + 1);
      latencies.push(arrivals.lastAt - acceptedAt);
    }
    await until('the forwarder to finish', async () => (await depth(made.queueUrl)) === 0, 20);

    const ratio = (path: Path, field: keyof Window, to: Path = 'fetch') =>
      median(results[path].map((w, i) => w[field] / (results[to][i] as Window)[field]));
    const row = (path: Path, label: string): ForwardRow => ({
      path: label,
      deliveries: results[path].length * plan.perRound,
      wallMs: median(results[path].map((w) => w.wallMs)),
      busyMs: median(results[path].map((w) => w.busyMs)),
      cpuMs: median(results[path].map((w) => w.cpuMs)),
      wallVsFetch: ratio(path, 'wallMs'),
      busyVsFetch: ratio(path, 'busyMs'),
      cpuVsFetch: ratio(path, 'cpuMs'),
    });
    const forwarded = plan.rounds * plan.perRound + plan.warmup + plan.latency;
    const delivered = forwardLines.get('info: forward delivered') ?? 0;
    const dlq = await depth(made.dlqUrl);
    const check = (ok: boolean) => (ok ? 'ok' : 'FAILED');
    const checks = [
      `every forwarded request verified with the standardwebhooks library under the destination's secret ` +
        `(${arrivals.signedOk} of ${arrivals.of('forwarder')}): ${check(arrivals.signedOk === forwarded)}`,
      `every forwarded body byte-identical to one sent, none twice, none missing (${arrivals.expected.size} missing, ` +
        `${arrivals.problems.length} problems): ${check(arrivals.problems.length === 0 && arrivals.expected.size === 0)}`,
      `forwarder lines: ${[...forwardLines].map(([k, v]) => `${k} ${v}`).join(', ')}: ${check(delivered === forwarded && forwardLines.size === 1)}`,
      `destination DLQ empty (${dlq}): ${check(dlq === 0)}`,
    ];
    const timed = plan.rounds * plan.perRound + plan.warmup;
    const perDelivery = (path: 'forwarder' | 'raw') => {
      const total = [...calls[path].values()].reduce((a, b) => a + b, 0) / timed;
      const each = [...calls[path]]
        .sort()
        .map(([key, count]) => `${key.split(':')[1]} ${(count / timed).toFixed(2)}`);
      return { total: total.toFixed(2), each: each.join(', ') };
    };
    const busyVsRaw = ratio('forwarder', 'busyMs', 'raw');
    const wallVsRaw = ratio('forwarder', 'wallMs', 'raw');
    const f = row('forwarder', `forwarder (local mode, batches of ${FORWARDER_BATCH_SIZE})`);
    const notes = [
      `Forwarding overhead per delivery, against a plain fetch of the same body to the same server in the same ` +
        `rounds: ${formatRatio(f.wallVsFetch)} the wall time (${ms(f.wallMs)} against ` +
        `${ms(median(results.fetch.map((w) => w.wallMs)))}), ${formatRatio(f.busyVsFetch)} the main thread's CPU ` +
        `(${ms(f.busyMs)} against ${ms(median(results.fetch.map((w) => w.busyMs)))}).`,
      `Target: the forwarder's main-thread CPU per delivery <= ${TARGET.toFixed(2)}x the raw calls (the bar the ` +
        `verify handler has against its raw calls in end-to-end): ${formatRatio(busyVsRaw)}: ` +
        `${busyVsRaw <= TARGET ? 'MET' : 'MISSED'}; wall ${formatRatio(wallVsRaw)}. A plain fetch is no target: ` +
        `it makes one request where forwarding a delivery makes ${perDelivery('forwarder').total} AWS calls besides ` +
        `its POST. AWS calls per delivery (warm-up included): forwarder ${perDelivery('forwarder').each}; raw ` +
        `${perDelivery('raw').each}.`,
      `What the forwarder path includes, per batch of ${FORWARDER_BATCH_SIZE}: local mode's event source (the ` +
        'destination state read before each poll, cached 1 s; ReceiveMessage from fauxqs; one DeleteMessage per ' +
        'record after the batch), and the real forwarder (the middy chain, Powertools BatchProcessor, records in ' +
        'parallel): per record the envelope schema, the destination state (cached), a consistent GetItem of the ' +
        'history from dynalite, the body from the envelope, Standard Webhooks signing (HMAC-SHA256), the SSRF ' +
        'guard (the URL is an IP literal, checked per attempt; the lookup and the peer check run once per new ' +
        'connection, and node:http keeps it alive), the POST, the verdict and the history UpdateItem; then one ' +
        'count UpdateItem for the batch. Log lines are counted, not printed.',
      'The raw path makes the same calls through the same SDK clients and adapters (DynamoForwardLog, ' +
        'DynamoDestinationStates.count, SqsQueueOps) in the same order, with JSON.parse of the envelope and an ' +
        'unsigned node:http POST. Fetch and node:http post the same bodies with a JSON content type and nothing ' +
        `else, ${FORWARDER_BATCH_SIZE} in parallel and one group at a time, as the forwarder's batches go: no ` +
        'queue, no table, no signature, no history.',
      `Method: ${plan.rounds} rounds of ${plan.perRound} deliveries per path after a ${plan.warmup}-delivery ` +
        'warm-up; in each round every path runs alone, order rotated; the forwarder, fetch and node:http paths ' +
        `post the same ${BODY_BYTES}-byte bodies, the raw path bodies of the same size under other ids (each needs ` +
        'records of its own). A forwarder or raw round starts on a full backlog (built untimed with the forwarder ' +
        'stopped) and ends when the event source has deleted the last message; the fetch rounds when the last answer ' +
        'is read. Per delivery = ' +
        "the round's total / its deliveries; figures are medians over rounds, ratios medians of per-round ratios.",
      'Main thread CPU = event-loop utilization (active time) of this process, which runs the SDK clients, the ' +
        "forwarder and the HTTP clients; process CPU adds this process's other threads, mostly the emulators' " +
        "worker (dynalite and fauxqs), so on the forwarder and raw paths it carries the emulators' work too. The " +
        'destination server is a child process and counts in neither.',
      `202 to arrival (verify's answer to the request reaching the server: the processor's poll and fan-out, the ` +
        `forwarder's poll and attempt), ${latencies.length} deliveries one at a time: p50 ` +
        `${ms(percentile(latencies, 50))}, p95 ${ms(percentile(latencies, 95))}, max ${ms(Math.max(...latencies))}.`,
      'Everything on a shared 2-core machine: read the ratios, not the absolute times.',
      ...checks.map((c) => `  check: ${c}`),
    ];
    const failed = checks.filter((c) => c.endsWith('FAILED'));
    if (failed.length > 0) notes.push(`${failed.length} check(s) FAILED`);
    return {
      columns,
      rows: [
        f,
        row('raw', 'raw: the same calls, made directly'),
        row('fetch', 'plain fetch (Node global fetch), 5 at a time'),
        row('node:http', 'node:http keep-alive agent, 5 at a time'),
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
