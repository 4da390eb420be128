// The lifecycle's conditions and updates applied in memory, as DynamoDB documents them: a condition
// that compares a missing attribute is false; an update's right-hand sides all read the item as it was
// before the update; SET, then REMOVE, then ADD; an update of a missing item creates it from its key.
// The core's classifications, the in-memory inbox and the interleaving checker run on this; a property
// test holds it to DynamoDB's own decisions.
import type { Condition, Scalar, StoredValue, Update } from './expression';

/** A stored item as the core sees it: strings, numbers, and lists or string sets of strings. */
export type StoredItem = Readonly<Record<string, StoredValue | undefined>>;

function valueAt(item: StoredItem | undefined, path: string): StoredValue | undefined {
  return item?.[path];
}

/** DynamoDB orders strings by their UTF-8 bytes (JavaScript's `<` compares UTF-16 code units). */
function order(left: Scalar, right: Scalar): number {
  if (typeof left === 'number' && typeof right === 'number') return left - right;
  return Buffer.compare(Buffer.from(String(left), 'utf8'), Buffer.from(String(right), 'utf8'));
}

function compare(left: StoredValue, op: string, right: Scalar): boolean {
  // Values of different types are never equal and never ordered.
  if (typeof left !== typeof right) return op === '<>';
  const l = left as Scalar;
  if (op === '=') return l === right;
  if (op === '<>') return l !== right;
  const sign = order(l, right);
  if (op === '<') return sign < 0;
  if (op === '<=') return sign <= 0;
  if (op === '>') return sign > 0;
  if (op === '>=') return sign >= 0;
  throw new Error(`unknown comparison ${op}`);
}

export function holds(condition: Condition, item: StoredItem | undefined): boolean {
  switch (condition.kind) {
    case 'all':
      return condition.of.every((part) => holds(part, item));
    case 'any':
      return condition.of.some((part) => holds(part, item));
    case 'not':
      return !holds(condition.of, item);
    case 'exists':
      return valueAt(item, condition.path) !== undefined;
    case 'missing':
      return valueAt(item, condition.path) === undefined;
    case 'compare': {
      const value = valueAt(item, condition.path);
      if (value === undefined) {
        // Left unspecified on purpose: the lifecycle guards every `<>` with the attribute's existence.
        if (condition.op === '<>') throw new Error(`unguarded <> on a missing ${condition.path}`);
        return false;
      }
      return compare(value, condition.op, condition.value);
    }
    case 'in': {
      const value = valueAt(item, condition.path);
      return value !== undefined && condition.values.some((candidate) => compare(value, '=', candidate));
    }
    case 'contains': {
      const value = valueAt(item, condition.path);
      if (Array.isArray(value)) return value.includes(condition.value);
      return typeof value === 'string' && value.includes(condition.value);
    }
    case 'beginsWith': {
      const value = valueAt(item, condition.path);
      return typeof value === 'string' && value.startsWith(condition.value);
    }
    case 'size': {
      const value = valueAt(item, condition.path);
      if (value === undefined || typeof value === 'number') return false;
      return value.length === condition.value;
    }
  }
}

const LIST_ELEMENT = /^(.+)\[(\d+)\]$/;

/** The item an update leaves, from the item before it (undefined: none yet) and the table key. */
export function applyUpdate(
  before: StoredItem | undefined,
  key: Readonly<Record<string, string>>,
  change: Update,
): Record<string, StoredValue> {
  const paths = [
    ...change.set.map((entry) => entry.path),
    ...change.remove.map((path) => path),
    ...change.add.map((entry) => entry.path),
  ];
  if (new Set(paths).size !== paths.length)
    throw new Error(`an update names a path twice: ${paths.join(', ')}`);
  const after: Record<string, StoredValue> = {};
  for (const [name, value] of Object.entries(before ?? key)) if (value !== undefined) after[name] = value;
  const setValues = change.set.map(({ path, action }) => {
    const current = valueAt(before, path);
    if (action.kind === 'value') return [path, action.value] as const;
    if (action.kind === 'ifMissing') return [path, current ?? action.value] as const;
    const list = Array.isArray(current) ? (current as string[]) : [];
    return [path, [...list, ...action.value]] as const;
  });
  for (const [path, value] of setValues) after[path] = value;
  const dropped = new Map<string, number[]>();
  for (const path of change.remove) {
    const element = LIST_ELEMENT.exec(path);
    if (!element) {
      delete after[path];
      continue;
    }
    const [, name, index] = element as unknown as [string, string, string];
    dropped.set(name, [...(dropped.get(name) ?? []), Number(index)]);
  }
  for (const [name, indexes] of dropped) {
    const list = valueAt(before, name);
    if (!Array.isArray(list)) continue;
    after[name] = list.filter((_, i) => !indexes.includes(i));
  }
  for (const { path, value } of change.add) {
    const current = valueAt(before, path);
    if (typeof value === 'number') after[path] = (typeof current === 'number' ? current : 0) + value;
    else {
      const members = new Set([...(Array.isArray(current) ? current : []), ...value.stringSet]);
      after[path] = [...members].sort();
    }
  }
  return after;
}
