// Conditions and updates over one stored item, as data. The lifecycle's transitions are written in these
// terms once; the DynamoDB adapter renders them as ConditionExpression and UpdateExpression strings, and
// evaluate.ts applies them in memory. Only what the inbox's transitions use is here.

export type Scalar = string | number;

/**
 * A path is an attribute name, or a list element (`attemptLog[0]`) in a REMOVE. Names are rendered as
 * placeholders, so reserved words (`status`) and names with `:` (`forward:<id>`) need no care.
 */
export type Condition =
  | { kind: 'all'; of: readonly Condition[] }
  | { kind: 'any'; of: readonly Condition[] }
  | { kind: 'not'; of: Condition }
  | { kind: 'exists'; path: string }
  | { kind: 'missing'; path: string }
  | { kind: 'compare'; path: string; op: CompareOp; value: Scalar }
  | { kind: 'in'; path: string; values: readonly Scalar[] }
  /** A string set or list that holds the value. */
  | { kind: 'contains'; path: string; value: string }
  | { kind: 'beginsWith'; path: string; value: string }
  /** The number of elements of a list or set. */
  | { kind: 'size'; path: string; value: number };

export type CompareOp = '=' | '<>' | '<' | '<=' | '>' | '>=';

/** A stored value: a string, a number, or a list of strings. String sets are written by `add` only. */
export type StoredValue = string | number | readonly string[];

export type SetAction =
  | { kind: 'value'; value: StoredValue }
  /** Keeps what is there: `if_not_exists(path, value)`. */
  | { kind: 'ifMissing'; value: StoredValue }
  /** Appends to a list, starting one if there is none. */
  | { kind: 'append'; value: readonly string[] };

export interface Update {
  set: readonly { path: string; action: SetAction }[];
  remove: readonly string[];
  /** A number added to a number, or strings added to a string set (DynamoDB's ADD). */
  add: readonly { path: string; value: number | { stringSet: readonly string[] } }[];
}

export const all = (...of: Condition[]): Condition => ({ kind: 'all', of });
export const any = (...of: Condition[]): Condition => ({ kind: 'any', of });
export const not = (of: Condition): Condition => ({ kind: 'not', of });
export const exists = (path: string): Condition => ({ kind: 'exists', path });
export const missing = (path: string): Condition => ({ kind: 'missing', path });
export const eq = (path: string, value: Scalar): Condition => ({ kind: 'compare', path, op: '=', value });
export const ne = (path: string, value: Scalar): Condition => ({ kind: 'compare', path, op: '<>', value });
export const lt = (path: string, value: Scalar): Condition => ({ kind: 'compare', path, op: '<', value });
export const gte = (path: string, value: Scalar): Condition => ({ kind: 'compare', path, op: '>=', value });
export const isIn = (path: string, values: readonly Scalar[]): Condition => ({ kind: 'in', path, values });
export const contains = (path: string, value: string): Condition => ({ kind: 'contains', path, value });
export const beginsWith = (path: string, value: string): Condition => ({ kind: 'beginsWith', path, value });
export const sizeIs = (path: string, value: number): Condition => ({ kind: 'size', path, value });
/** No condition: the write always applies. */
export const ALWAYS: Condition = all();

/** An update built from its parts; an empty part is left out of the rendered expression. */
export function update(parts: Partial<Update>): Update {
  return { set: parts.set ?? [], remove: parts.remove ?? [], add: parts.add ?? [] };
}

export const setTo = (path: string, value: StoredValue) => ({
  path,
  action: { kind: 'value', value } as const,
});
export const setIfMissing = (path: string, value: StoredValue) => ({
  path,
  action: { kind: 'ifMissing', value } as const,
});
export const appendTo = (path: string, value: readonly string[]) => ({
  path,
  action: { kind: 'append', value } as const,
});
