// An id given whole or as a unique prefix, as people copy them from a table: too short a prefix says the
// minimum, an ambiguous one lists what it matches. Usage errors (exit 2): the command line needs more.
import { UsageError } from '../shared/output';

export const MIN_PREFIX_CHARS = 6;
const LISTED = 10;

/** Refuses a prefix too short to look for: before a lookup that has a cost (a DLQ peek counts a receive). */
export function requirePrefixLength(wanted: string, what: string): void {
  const prefix = wanted.replace(/…$/, '');
  if (prefix.length < MIN_PREFIX_CHARS) {
    throw new UsageError(
      `no ${what} ${wanted}; a prefix needs at least ${MIN_PREFIX_CHARS} characters (it has ${prefix.length})`,
    );
  }
}

/**
 * The one item whose id is `wanted`, or starts with it; undefined if none does. `what` names the id in
 * messages (`message id`). A trailing `…` (a shortened table cell) is ignored.
 */
export function byIdPrefix<T>(
  items: readonly T[],
  idOf: (item: T) => string,
  wanted: string,
  what: string,
): T | undefined {
  const exact = items.find((item) => idOf(item) === wanted);
  if (exact) return exact;
  requirePrefixLength(wanted, what);
  const prefix = wanted.replace(/…$/, '');
  const matches = items.filter((item) => idOf(item).startsWith(prefix));
  if (matches.length > 1) {
    const ids = matches.slice(0, LISTED).map(idOf);
    const more = matches.length > LISTED ? `, and ${matches.length - LISTED} more` : '';
    throw new UsageError(
      `"${prefix}" matches ${matches.length} ${what}s: ${ids.join(', ')}${more}; give more of it`,
    );
  }
  return matches[0];
}
