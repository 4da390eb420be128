// What `webhook-inbox doctor` reports: one result per item, each a pass, a failure with its fix, "cannot
// check" with the reason, or skipped on request. A result never claims more than its check saw: an item
// whose prerequisite did not pass is "cannot check", naming that prerequisite, rather than a second failure.

export type CheckStatus = 'pass' | 'fail' | 'cannot-check' | 'skipped';

export interface CheckResult {
  /** Stable, for scripts: `outputs`, `read:table`, `secret:github`, `delivery`, `alarm`, ... */
  id: string;
  title: string;
  status: CheckStatus;
  /** What the check saw, or why it could not look. */
  detail: string;
  /** What to do about a failure. */
  fix?: string;
  /** What the check changed on the stack (a delivery sent, an alarm state set), when it changed anything. */
  wrote?: string;
}

type Extra = Pick<CheckResult, 'wrote'>;

export function pass(id: string, title: string, detail: string, extra: Extra = {}): CheckResult {
  return { id, title, status: 'pass', detail, ...extra };
}

export function fail(id: string, title: string, detail: string, fix: string, extra: Extra = {}): CheckResult {
  return { id, title, status: 'fail', detail, fix, ...extra };
}

export function cannotCheck(id: string, title: string, reason: string, extra: Extra = {}): CheckResult {
  return { id, title, status: 'cannot-check', detail: reason, ...extra };
}

export function skipped(id: string, title: string, reason: string): CheckResult {
  return { id, title, status: 'skipped', detail: `not checked (skipped: ${reason})` };
}

/**
 * Why an item cannot be checked when the results it depends on did not all pass, or undefined when they
 * did. A prerequisite that was never run (its own prerequisite failed) counts as not passed.
 */
export function blockedBy(results: readonly CheckResult[], ids: readonly string[]): string | undefined {
  for (const id of ids) {
    const result = results.find((r) => r.id === id);
    if (result === undefined) return `needs "${id}", which was not checked`;
    if (result.status !== 'pass') return `needs "${result.title}", which ${verb(result.status)}`;
  }
  return undefined;
}

function verb(status: Exclude<CheckStatus, 'pass'>): string {
  return { fail: 'failed', 'cannot-check': 'could not be checked', skipped: 'was skipped' }[status];
}

export interface Summary {
  /** False when any item failed: the command's exit code is then 1. */
  ok: boolean;
  counts: Record<CheckStatus, number>;
}

export function summarize(results: readonly CheckResult[]): Summary {
  const counts: Record<CheckStatus, number> = { pass: 0, fail: 0, 'cannot-check': 0, skipped: 0 };
  for (const result of results) counts[result.status]++;
  return { ok: counts.fail === 0, counts };
}
