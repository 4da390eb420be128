// Section: cold start. Builds the two Lambda bundles exactly as the CDK NodejsFunction does (esbuild,
// ESM, node22, minified, createRequire banner, the AWS SDK bundled in), each next to an SDK-only reference
// bundle of the clients it constructs, then times `await import(bundle)` in fresh Node processes: what a
// Lambda init pays before the first invocation, minus the runtime's own start.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { type BuildOptions, build, type Metafile, type Plugin } from 'esbuild';
import { parseConfig } from '../config';
import { encodeLambdaConfig } from '../config/lambda-config';
import { ENV } from '../config/runtime';
import { formatRatio } from './lib/format';
import { median } from './lib/measure';
import {
  findPowertools,
  POWERTOOLS_DIR_ENV,
  POWERTOOLS_INSTALL,
  type PowertoolsInstall,
  powertoolsPlugin,
} from './lib/powertools-variant';
import { type Column, defineSection, SectionAbort, type SectionContext } from './lib/section';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const RUNS = 15;
const QUICK_RUNS = 3;
/** Each Lambda's ceiling, as a multiple of its own reference, in bytes and in import CPU. */
const TARGET = { verify: 1.15, processor: 1.4 } as const;
const TOP_PACKAGES = 8;
const RUN_TIMEOUT_MS = 60_000;

/** lib/webhook-inbox.ts's ESM_REQUIRE_BANNER, verbatim. */
const ESM_REQUIRE_BANNER =
  "import { createRequire } from 'module'; const require = createRequire(import.meta.url);";

/** The NodejsFunction bundling in lib/webhook-inbox.ts, as esbuild options. */
const CDK_LIKE: BuildOptions = {
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node22',
  mainFields: ['module', 'main'],
  minify: true,
  sourcemap: true,
  sourcesContent: false,
  banner: { js: ESM_REQUIRE_BANNER },
  external: [],
  metafile: true,
  logLevel: 'silent',
  absWorkingDir: ROOT,
};

/**
 * The reference as the brief words it: the three SDK clients the verify Lambda constructs (DynamoDB, SQS,
 * Secrets Manager), imported and constructed, nothing else. Verify writes to S3 without S3Client
 * (lambdas/adapters/s3-payload-writer.ts), so this is the floor for any verify bundle that bundles the SDK.
 */
const REFERENCE_ENTRY = `
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { SQSClient } from '@aws-sdk/client-sqs';
const clients = [new DynamoDBClient({}), new SQSClient({}), new SecretsManagerClient({})];
export const handler = async () => clients.length;
`;

/**
 * The processor's reference: the clients it constructs (DynamoDB, SQS, S3), imported and constructed. It
 * reads payloads with S3Client and never reads a secret.
 */
const PROCESSOR_REFERENCE_ENTRY = `
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { S3Client } from '@aws-sdk/client-s3';
import { SQSClient } from '@aws-sdk/client-sqs';
const clients = [new DynamoDBClient({}), new SQSClient({}), new S3Client({})];
export const handler = async () => clients.length;
`;

/** The reference plus S3Client: what the verify bundle would start from if it used the S3 client. */
const REFERENCE_WITH_S3_ENTRY = `
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { S3Client } from '@aws-sdk/client-s3';
import { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { SQSClient } from '@aws-sdk/client-sqs';
const clients = [new DynamoDBClient({}), new SQSClient({}), new SecretsManagerClient({}), new S3Client({})];
export const handler = async () => clients.length;
`;

/** What runtimeFromEnv() needs at import, and what a Lambda's environment would have. */
const HANDLER_ENV: Record<string, string> = {
  // The default eleven providers, encoded as the construct writes them.
  [ENV.config]: encodeLambdaConfig(parseConfig({})),
  [ENV.table]: 'webhook-inbox-inbox',
  [ENV.queueUrl]: 'https://sqs.us-east-1.amazonaws.com/123456789012/webhook-inbox-queue',
  [ENV.dlqUrl]: 'https://sqs.us-east-1.amazonaws.com/123456789012/webhook-inbox-dlq',
  [ENV.bucket]: 'webhook-inbox-payloads',
  [ENV.bucketUrl]: 'https://webhook-inbox-payloads.s3.us-east-1.amazonaws.com/',
  AWS_REGION: 'us-east-1',
  AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
  POWERTOOLS_SERVICE_NAME: 'bench',
  POWERTOOLS_METRICS_NAMESPACE: 'bench',
  POWERTOOLS_LOG_LEVEL: 'WARN',
};

/** Runs in a fresh `node` process: CPU and wall time around the bundle's import, as one JSON line. */
const RUNNER = `
const url = process.argv[1];
const wall = performance.now();
const cpu = process.cpuUsage();
const mod = await import(url);
const used = process.cpuUsage(cpu);
const wallMs = performance.now() - wall;
if (typeof mod.handler !== 'function') throw new Error('no handler export');
process.stdout.write(JSON.stringify({ cpuMs: (used.user + used.system) / 1000, wallMs }) + '\\n');
`;

type CandidateId =
  | 'verify'
  | 'processor'
  | 'reference'
  | 'reference-processor'
  | 'reference-s3'
  | 'verify-powertools'
  | 'processor-powertools';

interface BundleSpec {
  id: CandidateId;
  label: string;
  /** The bundle its ratios are against. */
  referenceId: CandidateId;
  entry: { file: string } | { contents: string };
  plugins?: Plugin[];
}

/** Each Lambda next to the reference of the clients it constructs. */
const BUNDLES: BundleSpec[] = [
  {
    id: 'verify',
    label: 'verify (lambdas/verify/entry.ts)',
    referenceId: 'reference',
    entry: { file: 'lambdas/verify/entry.ts' },
  },
  {
    id: 'processor',
    label: 'processor (lambdas/process/entry.ts)',
    referenceId: 'reference-processor',
    entry: { file: 'lambdas/process/entry.ts' },
  },
  {
    id: 'reference',
    label: 'verify reference (DynamoDB, SQS, Secrets Manager)',
    referenceId: 'reference',
    entry: { contents: REFERENCE_ENTRY },
  },
  {
    id: 'reference-processor',
    label: 'processor reference (DynamoDB, SQS, S3)',
    referenceId: 'reference-processor',
    entry: { contents: PROCESSOR_REFERENCE_ENTRY },
  },
  {
    id: 'reference-s3',
    label: 'verify reference + S3Client (for comparison)',
    referenceId: 'reference',
    entry: { contents: REFERENCE_WITH_S3_ENTRY },
  },
];

/** The same two entries with Powertools Logger and Metrics in place of the hand-written telemetry. */
function powertoolsBundles(install: PowertoolsInstall): BundleSpec[] {
  const plugins = [powertoolsPlugin(ROOT, install)];
  return [
    {
      id: 'verify-powertools',
      label: `verify with Powertools Logger + Metrics middlewares (${install.versions})`,
      referenceId: 'reference',
      entry: { file: 'lambdas/verify/entry.ts' },
      plugins,
    },
    {
      id: 'processor-powertools',
      label: 'processor with Powertools Logger + Metrics middlewares',
      referenceId: 'reference-processor',
      entry: { file: 'lambdas/process/entry.ts' },
      plugins,
    },
  ];
}

interface Candidate extends BundleSpec {
  file: string;
  bytes: number;
  metafile: Metafile;
}

interface ColdStartRow extends Record<string, unknown> {
  bundle: string;
  reference: string;
  bytes: number;
  importCpuMs: number;
  importWallMs: number;
  cpuSamplesMs: number[];
  bytesOverReference: number;
  cpuOverReference: number;
}

function kib(bytes: number): string {
  return `${(bytes / 1024).toFixed(1)} KiB`;
}

function ms(value: number): string {
  return `${value.toFixed(1)} ms`;
}

async function buildBundle(spec: BundleSpec, outDir: string): Promise<Candidate> {
  const { id, entry } = spec;
  const outfile = join(outDir, id, 'index.mjs');
  const result = await build({
    ...CDK_LIKE,
    outfile,
    plugins: spec.plugins ?? [],
    ...('file' in entry
      ? { entryPoints: [entry.file] }
      : { stdin: { contents: entry.contents, resolveDir: ROOT, loader: 'ts', sourcefile: 'reference.ts' } }),
  });
  if (result.errors.length > 0) throw new SectionAbort(`esbuild failed for ${id}: ${result.errors[0]?.text}`);
  return { ...spec, file: outfile, bytes: statSync(outfile).size, metafile: result.metafile as Metafile };
}

function importOnce(file: string): Promise<{ cpuMs: number; wallMs: number }> {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(process.execPath, ['--input-type=module', '-e', RUNNER, pathToFileURL(file).href], {
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...HANDLER_ENV },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString();
    });
    child.stderr.on('data', (chunk: Buffer) => {
      err += chunk.toString();
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), RUN_TIMEOUT_MS);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      const line = out.trim().split('\n').pop();
      if (code !== 0 || !line) {
        reject(new SectionAbort(`import of ${file} failed (exit ${code}): ${err.trim().slice(0, 500)}`));
        return;
      }
      resolvePromise(JSON.parse(line) as { cpuMs: number; wallMs: number });
    });
  });
}

/** The package an input path belongs to: the last node_modules segment, or the project's top folder. */
function packageOf(path: string): string {
  const parts = path.split('/');
  const at = parts.lastIndexOf('node_modules');
  if (at === -1) return `(project) ${parts[0] === '<stdin>' ? 'entry' : `${parts[0]}/`}`;
  const name = parts[at + 1] ?? '?';
  return name.startsWith('@') ? `${name}/${parts[at + 2] ?? '?'}` : name;
}

function packageBytes(candidate: Candidate): Map<string, number> {
  const output = Object.entries(candidate.metafile.outputs).find(([name]) => name.endsWith('.mjs'))?.[1];
  const totals = new Map<string, number>();
  for (const [path, input] of Object.entries(output?.inputs ?? {})) {
    const name = packageOf(path);
    totals.set(name, (totals.get(name) ?? 0) + input.bytesInOutput);
  }
  return totals;
}

function topPackages(totals: Map<string, number>, limit: number): { name: string; bytes: number }[] {
  return [...totals.entries()]
    .map(([name, bytes]) => ({ name, bytes }))
    .filter((p) => p.bytes > 0)
    .sort((a, b) => b.bytes - a.bytes)
    .slice(0, limit);
}

function targetLine(lambda: keyof typeof TARGET, row: ColdStartRow): string {
  const target = TARGET[lambda];
  const verdict = (value: number) => (value <= target ? 'MET' : 'MISSED');
  return (
    `Target: ${lambda} <= ${target.toFixed(2)}x its SDK-only reference. ` +
    `Bytes ${formatRatio(row.bytesOverReference)}: ${verdict(row.bytesOverReference)}. ` +
    `Import CPU ${formatRatio(row.cpuOverReference)}: ${verdict(row.cpuOverReference)}.`
  );
}

/** What a bundle adds over another, by package: `over` names the other in the heading. */
function addedOver(candidate: Candidate, other: Candidate, over: string): string[] {
  const own = packageBytes(candidate);
  const otherPackages = packageBytes(other);
  const added = topPackages(
    new Map([...own].map(([name, bytes]) => [name, bytes - (otherPackages.get(name) ?? 0)])),
    TOP_PACKAGES,
  );
  return [
    `What ${candidate.id} adds over ${over} (${kib(candidate.bytes - other.bytes)} in all), by package, ` +
      `top ${TOP_PACKAGES}:`,
    ...added.map((p) => `  ${p.name.padEnd(44)} ${`+${kib(p.bytes)}`.padStart(11)}`),
  ];
}

/** The bundle's largest packages, and what it adds over its reference: what to cut if a target is missed. */
function composition(candidate: Candidate, reference: Candidate): string[] {
  return [
    `Largest contributors to the ${candidate.id} bundle (esbuild metafile, bytes in output, top ${TOP_PACKAGES}):`,
    ...topPackages(packageBytes(candidate), TOP_PACKAGES).map(
      (p) =>
        `  ${p.name.padEnd(44)} ${kib(p.bytes).padStart(10)}  ${((p.bytes / candidate.bytes) * 100).toFixed(1)}%`,
    ),
    ...addedOver(candidate, reference, 'its reference'),
  ];
}

/** Would Powertools Logger + Metrics keep the Lambda within its TARGET, per Lambda: can they be adopted. */
function powertoolsVerdict(
  lambda: keyof typeof TARGET,
  variant: ColdStartRow,
  shipped: ColdStartRow,
  bytesAdded: number,
): string {
  const target = TARGET[lambda];
  // Three decimals where two would print the target itself for a ratio just over it.
  const ratio = (value: number) =>
    value > target && formatRatio(value) === formatRatio(target)
      ? `${value.toFixed(3)}x`
      : formatRatio(value);
  const over = [
    ...(variant.bytesOverReference > target ? ['bytes'] : []),
    ...(variant.cpuOverReference > target ? ['CPU'] : []),
  ];
  return (
    `Powertools Logger + Metrics would put ${lambda} at ${ratio(variant.bytesOverReference)} bytes / ` +
    `${ratio(variant.cpuOverReference)} CPU (target ${target.toFixed(2)}x; shipped ` +
    `${formatRatio(shipped.bytesOverReference)} / ${formatRatio(shipped.cpuOverReference)}): ` +
    `+${kib(bytesAdded)} and ${formatRatio(variant.importCpuMs / shipped.importCpuMs)} the shipped import CPU. ` +
    (over.length === 0
      ? 'Within the target: the Powertools middlewares would do.'
      : `Over the target in ${over.join(' and ')}: kept the hand-written adapter.`)
  );
}

/** The Powertools rows' verdicts, how they are built, and where their extra bytes come from. */
function powertoolsNotes(
  candidateOf: (id: CandidateId) => Candidate,
  rowOf: (id: CandidateId) => ColdStartRow,
): string[] {
  const pairs = [
    ['verify', 'verify-powertools'],
    ['processor', 'processor-powertools'],
  ] as const;
  return [
    ...pairs.map(([lambda, variant]) =>
      powertoolsVerdict(
        lambda,
        rowOf(variant),
        rowOf(lambda),
        candidateOf(variant).bytes - candidateOf(lambda).bytes,
      ),
    ),
    'The Powertools rows bundle the same handler entries with two modules swapped ' +
      '(bench/lib/powertools-variant.ts): the JSON/EMF adapter for a LogSink/MetricSink over `new Logger()` ' +
      'and `new Metrics()`, constructed at import as a Powertools handler does, and the log-context ' +
      'middleware for `injectLambdaContext(logger)` and `logMetrics(metrics)`.',
    ...addedOver(candidateOf('verify-powertools'), candidateOf('verify'), 'the shipped verify'),
  ];
}

const POWERTOOLS_SKIPPED =
  'Powertools rows skipped: @aws-lambda-powertools/logger and metrics are not both installed (Logger is ' +
  `not a project dependency). To measure them: \`${POWERTOOLS_INSTALL}\` in a scratch folder, then ` +
  `\`${POWERTOOLS_DIR_ENV}=<that folder> npm run bench -- --only cold-start\`. Last figures: bench/RESULTS.md.`;

const columns: Column<ColdStartRow>[] = [
  { header: 'Bundle', cell: (r) => r.bundle },
  { header: 'Against', cell: (r) => r.reference },
  { header: 'Bytes', cell: (r) => kib(r.bytes), align: 'right' },
  { header: 'Bytes / ref', cell: (r) => formatRatio(r.bytesOverReference), align: 'right' },
  { header: 'Import CPU (median)', cell: (r) => ms(r.importCpuMs), align: 'right' },
  { header: 'CPU / ref', cell: (r) => formatRatio(r.cpuOverReference), align: 'right' },
  { header: 'Import wall (median)', cell: (r) => ms(r.importWallMs), align: 'right' },
  {
    header: 'CPU min..max',
    cell: (r) => `${ms(Math.min(...r.cpuSamplesMs))}..${ms(Math.max(...r.cpuSamplesMs))}`,
    align: 'right',
  },
];

async function run(context: SectionContext) {
  const runs = context.quick ? QUICK_RUNS : RUNS;
  const outDir = mkdtempSync(join(tmpdir(), 'webhook-inbox-cold-start-'));
  try {
    context.log('cold-start: building bundles with esbuild (CDK NodejsFunction options)');
    const candidates: Candidate[] = [];
    const powertools = findPowertools(ROOT);
    for (const spec of [...BUNDLES, ...(powertools ? powertoolsBundles(powertools) : [])]) {
      candidates.push(await buildBundle(spec, outDir));
    }

    // One warm-up import each (page cache, compile cache is not persisted between processes).
    for (const candidate of candidates) await importOnce(candidate.file);
    const samples = new Map<string, { cpuMs: number; wallMs: number }[]>(candidates.map((c) => [c.id, []]));
    for (let i = 0; i < runs; i++) {
      // Rotate the order so each candidate runs first, second and third equally often.
      const order = candidates.map((_, k) => candidates[(i + k) % candidates.length] as Candidate);
      for (const candidate of order) samples.get(candidate.id)?.push(await importOnce(candidate.file));
      context.log(`cold-start: run ${i + 1}/${runs}`);
    }

    const candidateOf = (id: CandidateId) => candidates.find((c) => c.id === id) as Candidate;
    const cpuOf = (id: CandidateId) => median((samples.get(id) ?? []).map((s) => s.cpuMs));
    const rows: ColdStartRow[] = candidates.map((candidate) => {
      const own = samples.get(candidate.id) ?? [];
      const cpu = median(own.map((s) => s.cpuMs));
      const reference = candidateOf(candidate.referenceId);
      return {
        bundle: candidate.label,
        reference:
          candidate.referenceId === candidate.id ? '(itself)' : (reference.label.split(' (')[0] ?? ''),
        bytes: candidate.bytes,
        importCpuMs: cpu,
        importWallMs: median(own.map((s) => s.wallMs)),
        cpuSamplesMs: own.map((s) => Math.round(s.cpuMs * 10) / 10),
        bytesOverReference: candidate.bytes / reference.bytes,
        cpuOverReference: cpu / cpuOf(candidate.referenceId),
      };
    });
    const rowOf = (id: CandidateId) => rows[candidates.findIndex((c) => c.id === id)] as ColdStartRow;
    const withS3 = rowOf('reference-s3');
    const notes = [
      targetLine('verify', rowOf('verify')),
      targetLine('processor', rowOf('processor')),
      'The verify reference imports and constructs DynamoDBClient, SQSClient and SecretsManagerClient, the ' +
        'clients the verify Lambda constructs; the processor reference DynamoDBClient, SQSClient and ' +
        'S3Client, the ones the processor constructs. Verify writes large bodies to S3 with a signed PUT ' +
        "made with the SDK's own signer and HTTP handler (S3PayloadWriter), not with S3Client: the last row " +
        `shows what S3Client alone would add to it (${kib(withS3.bytes - rowOf('reference').bytes)}, ` +
        `${formatRatio(withS3.cpuOverReference)} import CPU).`,
      `Method: esbuild ${CDK_LIKE.format}/${CDK_LIKE.target}, bundle, minify, sourcemap (external file, not counted), ` +
        'createRequire banner, nothing external. Import time = process.cpuUsage() (user+system) around ' +
        `\`await import(bundle)\` in a fresh \`node -e\` process, ${runs} processes per bundle, order rotated ` +
        'each run; median. Node startup itself is not included; NODE_OPTIONS=--enable-source-maps ' +
        `(set on the Lambdas) was not. Node ${process.version} here; Lambda runs nodejs22.x on arm64.`,
      ...composition(candidateOf('verify'), candidateOf('reference')),
      ...composition(candidateOf('processor'), candidateOf('reference-processor')),
      ...(powertools ? powertoolsNotes(candidateOf, rowOf) : [POWERTOOLS_SKIPPED]),
    ];
    return { columns, rows, notes };
  } finally {
    rmSync(outDir, { recursive: true, force: true });
  }
}

export default defineSection<ColdStartRow>({ name: 'cold-start', title: 'Cold start', run });
