// `npm run bench`: runs the benchmark sections in order and prints a table per section.
//
//   npm run bench                          every section, as tables
//   npm run bench -- --json                machine-readable output on stdout (progress goes to stderr)
//   npm run bench -- --only <section>      one section (repeatable)
//   npm run bench -- --quick               short rounds: checks the bench works, numbers are rough
//
// A section is a module in bench/ whose default export is a `Section` (bench/lib/section.ts). Add new
// ones to SECTIONS below; each is imported only when it runs.
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { renderTable } from './lib/format';
import { describeMachine } from './lib/machine';
import { type Row, type Section, SectionAbort, type SectionResult } from './lib/section';

// The AWS SDK versions are pinned on purpose (package.json); its Node 22 notice, printed when the first
// client is built, is noise in the bench's output as in the CLI's (cli/bin.mjs). Sections build their
// clients after this line runs.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';

interface SectionEntry {
  name: string;
  load: () => Promise<{ default: Section }>;
}

const SECTIONS: SectionEntry[] = [
  {
    name: 'verify-throughput',
    load: () => import('./verify-throughput') as Promise<{ default: Section<Row> }>,
  },
  { name: 'cold-start', load: () => import('./cold-start') as Promise<{ default: Section<Row> }> },
  { name: 'end-to-end', load: () => import('./end-to-end') as Promise<{ default: Section<Row> }> },
  { name: 'local-ready', load: () => import('./local-ready') as Promise<{ default: Section<Row> }> },
  { name: 'forwarding', load: () => import('./forwarding') as Promise<{ default: Section<Row> }> },
  { name: 'cost-model', load: () => import('./cost-model') as Promise<{ default: Section<Row> }> },
  { name: 'list-cost', load: () => import('./list-cost') as Promise<{ default: Section<Row> }> },
  { name: 'lifecycle', load: () => import('./lifecycle') as Promise<{ default: Section<Row> }> },
];

interface SectionReport {
  name: string;
  title: string;
  ok: boolean;
  error?: string;
  durationSeconds: number;
  rows: Row[];
  notes: string[];
}

const USAGE = `Usage: npm run bench -- [--json] [--only <section>]... [--quick]
Sections, in order: ${SECTIONS.map((s) => s.name).join(', ')}
cost-model prices the synthesized stack from bench/data/aws-prices.json (see its date) with handler
times measured in the same run, and what each destination type adds; forwarding times local mode's
forwarder against a plain fetch of the same bodies; list-cost counts the items one deliveries list reads
from 100,000 records, by Scan and by the listing index; --quick measures fewer deliveries.`;

async function main(): Promise<number> {
  let args: ReturnType<typeof parse>;
  try {
    args = parse();
  } catch (error) {
    console.error(`${(error as Error).message}\n${USAGE}`);
    return 2;
  }
  if (args.help) {
    console.log(USAGE);
    return 0;
  }
  const only = args.only ?? [];
  const unknown = only.filter((name) => !SECTIONS.some((s) => s.name === name));
  if (unknown.length > 0) {
    console.error(`Unknown section: ${unknown.join(', ')}\n${USAGE}`);
    return 2;
  }
  const selected = only.length ? SECTIONS.filter((s) => only.includes(s.name)) : SECTIONS;
  const json = args.json === true;
  const quick = args.quick === true;

  const machine = describeMachine();
  if (!json) {
    console.log(`webhook-inbox bench, ${machine.date}`);
    console.log(
      `Machine: ${machine.cpu} x${machine.cores}, ${machine.memoryGiB} GiB, ${machine.platform}; Node ${machine.node}; load average ${machine.loadAverage1m}`,
    );
    if (quick) console.log('--quick: short rounds; the numbers are rough.');
  }

  const reports: SectionReport[] = [];
  for (const entry of selected) {
    const started = performance.now();
    const log = (message: string) => process.stderr.write(`${message}\n`);
    let section: Section | undefined;
    let result: SectionResult<Row> | undefined;
    let error: string | undefined;
    try {
      section = (await entry.load()).default;
      result = await section.run({ quick, log });
    } catch (caught) {
      error =
        caught instanceof SectionAbort
          ? caught.message
          : `unexpected error: ${(caught as Error)?.stack ?? String(caught)}`;
    }
    const report: SectionReport = {
      name: entry.name,
      title: section?.title ?? entry.name,
      ok: error === undefined,
      durationSeconds: Math.round((performance.now() - started) / 100) / 10,
      rows: result?.rows ?? [],
      notes: result?.notes ?? [],
      ...(error === undefined ? {} : { error }),
    };
    reports.push(report);
    if (!json) {
      console.log(`\n== ${report.title} [${report.name}] (${report.durationSeconds} s)`);
      if (error !== undefined) console.log(`ABORTED: ${error}`);
      if (result) {
        console.log(renderTable(result.columns, result.rows));
        for (const note of result.notes ?? []) console.log(note.startsWith('  ') ? note : `- ${note}`);
      }
    }
  }

  if (json) console.log(JSON.stringify({ machine, quick, sections: reports }, null, 2));
  return reports.every((r) => r.ok) ? 0 : 1;
}

function parse() {
  return parseArgs({
    options: {
      json: { type: 'boolean' },
      only: { type: 'string', multiple: true },
      quick: { type: 'boolean' },
      help: { type: 'boolean', short: 'h' },
    },
    strict: true,
    allowPositionals: false,
  }).values;
}

process.exitCode = await main();
