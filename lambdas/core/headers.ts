import type { HeaderMap } from './schemes/types';

type RawHeaders = Readonly<Record<string, string | readonly string[] | undefined | null>>;

/**
 * Lowercases header names and merges every source into one map. `multi` (API Gateway's
 * multiValueHeaders) wins over `single` for the same name, because `single` holds only the last copy and
 * would hide a repeated signature header. Names that differ only in case are merged, not overwritten.
 */
export function normalizeHeaders(
  single: RawHeaders | null | undefined,
  multi?: RawHeaders | null,
): HeaderMap {
  const out: Record<string, string | string[]> = {};
  const add = (name: string, value: string) => {
    const key = name.toLowerCase();
    const existing = out[key];
    if (existing === undefined) out[key] = value;
    else if (typeof existing === 'string') out[key] = [existing, value];
    else existing.push(value);
  };
  const fromMulti = new Set<string>();
  if (multi) {
    for (const [name, values] of Object.entries(multi)) {
      if (values == null) continue;
      fromMulti.add(name.toLowerCase());
      for (const value of typeof values === 'string' ? [values] : values) add(name, value);
    }
  }
  if (single) {
    for (const [name, value] of Object.entries(single)) {
      if (value == null || fromMulti.has(name.toLowerCase())) continue;
      for (const v of typeof value === 'string' ? [value] : value) add(name, v);
    }
  }
  return out;
}
