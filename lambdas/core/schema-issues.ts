// Why a body did not match its handler's schema, as the record, the log and the CLI show it: each failing
// field's path and zod's issue code, `data.object.amount invalid_type; type invalid_value`. Never a value:
// zod's messages quote the input ("expected one of ...", the received type, a too-long string's length),
// so only the code is kept, and a path segment the schema does not declare (a z.record key, which is
// payload data such as an email address) is shown as `*`. Pure.
import type * as z from 'zod';

/** Fits the record and a log line; the contract of `lastErrorDetail`. */
export const SCHEMA_DETAIL_MAX_CHARS = 512;

type Def = Record<string, unknown>;

const isSchema = (value: unknown): value is z.core.$ZodType =>
  typeof value === 'object' && value !== null && '_zod' in value;

/** Every object key the schema declares, however deeply nested (objects inside unions, arrays, pipes...). */
function declaredKeys(schema: z.core.$ZodType): Set<string> {
  const keys = new Set<string>();
  const seen = new Set<unknown>();
  const visit = (value: unknown): void => {
    if (seen.has(value)) return;
    seen.add(value);
    if (isSchema(value)) {
      const def = value._zod.def as unknown as Def;
      if (def.type === 'lazy' && typeof def.getter === 'function') visit((def.getter as () => unknown)());
      for (const [name, part] of Object.entries(def)) {
        if (name === 'shape' && typeof part === 'object' && part !== null) {
          for (const key of Object.keys(part)) keys.add(key);
        }
        visit(part);
      }
    } else if (Array.isArray(value)) {
      for (const item of value) visit(item);
    } else if (
      typeof value === 'object' &&
      value !== null &&
      Object.getPrototypeOf(value) === Object.prototype
    ) {
      for (const item of Object.values(value)) visit(item);
    }
  };
  visit(schema);
  return keys;
}

function pathText(path: readonly PropertyKey[], declared: Set<string>): string {
  if (path.length === 0) return '(root)';
  return path
    .map((segment) =>
      typeof segment === 'number' ? String(segment) : declared.has(String(segment)) ? String(segment) : '*',
    )
    .join('.');
}

/** `path code; path code`, each issue once, cut at an issue boundary to fit SCHEMA_DETAIL_MAX_CHARS. */
export function describeSchemaIssues(schema: z.core.$ZodType, issues: readonly z.core.$ZodIssue[]): string {
  const declared = declaredKeys(schema);
  const parts = [...new Set(issues.map((issue) => `${pathText(issue.path, declared)} ${issue.code}`))];
  let text = '';
  for (const [index, part] of parts.entries()) {
    const next = text === '' ? part : `${text}; ${part}`;
    const rest = parts.length - index - 1;
    const more = rest > 0 ? `; +${rest} more` : '';
    if (next.length + more.length > SCHEMA_DETAIL_MAX_CHARS) {
      const left = parts.length - index;
      return text === '' ? `+${left} issues` : `${text}; +${left} more`;
    }
    text = next;
  }
  return text;
}
