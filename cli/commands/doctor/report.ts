// The checklist as people read it (one line per item, the fix under each failure, what was written) and
// as scripts read it (--json).
import pc from 'picocolors';
import { print, printJson } from '../../shared/output';
import { type CheckResult, type CheckStatus, summarize } from './checklist';

const LABEL: Record<CheckStatus, string> = {
  pass: pc.green('PASS'),
  fail: pc.red('FAIL'),
  'cannot-check': pc.yellow('CANNOT CHECK'),
  skipped: pc.dim('SKIPPED'),
};

/** One item, printed as soon as it is known: the delivery and the alarm take seconds each. */
export function printResult(result: CheckResult): void {
  print(`${LABEL[result.status]}  ${result.title}`);
  print(pc.dim(`      ${result.detail}`));
  if (result.fix) print(`      ${pc.bold('fix:')} ${result.fix}`);
  if (result.wrote) print(pc.dim(`      wrote: ${result.wrote}`));
}

export function printSummary(results: readonly CheckResult[]): void {
  const { ok, counts } = summarize(results);
  const line = `${counts.pass} passed, ${counts.fail} failed, ${counts['cannot-check']} could not be checked, ${counts.skipped} skipped`;
  print();
  print(ok ? (counts['cannot-check'] > 0 ? pc.yellow(line) : pc.green(line)) : pc.red(line));
}

export function printJsonReport(
  stack: { name: string; region: string },
  results: readonly CheckResult[],
): void {
  const { ok, counts } = summarize(results);
  printJson({ stack: stack.name, region: stack.region, ok, counts, checks: results });
}
