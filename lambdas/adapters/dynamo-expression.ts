// Renders the lifecycle's conditions and updates (core/lifecycle/expression.ts) as DynamoDB expressions.
// Every attribute name becomes a `#nK` placeholder and every value a `:vK` one, so no expression for the
// inbox record is written by hand: the kernel holds the rules, this only spells them.
import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import type { Condition, Scalar, StoredValue, Update } from '../core/lifecycle/expression';
import { BINARY_ATTRIBUTES } from './inbox-item';

export interface RenderedWrite {
  ConditionExpression?: string;
  UpdateExpression?: string;
  ExpressionAttributeNames?: Record<string, string>;
  ExpressionAttributeValues?: Record<string, AttributeValue>;
}

class Placeholders {
  readonly names: Record<string, string> = {};
  readonly values: Record<string, AttributeValue> = {};
  private readonly byName = new Map<string, string>();

  name(path: string): string {
    const element = /^(.+)(\[\d+\])$/.exec(path);
    if (element) return `${this.name(element[1] as string)}${element[2]}`;
    let placeholder = this.byName.get(path);
    if (placeholder === undefined) {
      placeholder = `#n${this.byName.size}`;
      this.byName.set(path, placeholder);
      this.names[placeholder] = path;
    }
    return placeholder;
  }

  value(value: AttributeValue): string {
    const placeholder = `:v${Object.keys(this.values).length}`;
    this.values[placeholder] = value;
    return placeholder;
  }
}

function scalar(value: Scalar): AttributeValue {
  return typeof value === 'number' ? { N: String(value) } : { S: value };
}

/** A stored value as DynamoDB holds it at `path`: binary attributes as bytes, string lists as lists. */
function stored(path: string, value: StoredValue): AttributeValue {
  if (typeof value !== 'object') {
    if (typeof value === 'string' && BINARY_ATTRIBUTES.has(path)) return { B: Buffer.from(value, 'base64') };
    return scalar(value);
  }
  return { L: value.map((entry) => ({ S: entry })) };
}

/**
 * How loosely a rendered condition binds: OR loosest, then AND, then NOT; comparisons and functions bind
 * tightest. A NOT directly after a NOT is parenthesised: DynamoDB's grammar wants a condition there.
 */
type Binding = 'or' | 'and' | 'not' | 'tight';

/**
 * A condition's text with only the parentheses DynamoDB's precedence needs (NOT binds tighter than AND,
 * AND than OR), nested groups of the same kind flattened. Fewer levels of parentheses are not only easier
 * to read in a log: an emulator's parser backtracks at every level, so deep nesting costs it time.
 */
function condition(c: Condition, p: Placeholders): string {
  return bound(c, p).text;
}

/** The text, and how loosely it binds, so the caller parenthesises only what would otherwise regroup. */
function bound(c: Condition, p: Placeholders): { text: string; binding: Binding } {
  switch (c.kind) {
    case 'all':
    case 'any': {
      if (c.of.length === 0) throw new Error(`an empty ${c.kind}() cannot be rendered`);
      const parts = c.of.map((part) => bound(part, p));
      if (parts.length === 1) return parts[0] as { text: string; binding: Binding };
      // Within AND only an OR needs parentheses; within OR nothing does.
      const text = parts
        .map((part) => (c.kind === 'all' && part.binding === 'or' ? `(${part.text})` : part.text))
        .join(c.kind === 'all' ? ' AND ' : ' OR ');
      return { text, binding: c.kind === 'all' ? 'and' : 'or' };
    }
    case 'not': {
      const inner = bound(c.of, p);
      return {
        text: inner.binding === 'tight' ? `NOT ${inner.text}` : `NOT (${inner.text})`,
        binding: 'not',
      };
    }
    default:
      return { text: atom(c, p), binding: 'tight' };
  }
}

function atom(c: Exclude<Condition, { kind: 'all' | 'any' | 'not' }>, p: Placeholders): string {
  switch (c.kind) {
    case 'exists':
      return `attribute_exists(${p.name(c.path)})`;
    case 'missing':
      return `attribute_not_exists(${p.name(c.path)})`;
    case 'compare':
      return `${p.name(c.path)} ${c.op} ${p.value(scalar(c.value))}`;
    case 'in':
      return `${p.name(c.path)} IN (${c.values.map((v) => p.value(scalar(v))).join(', ')})`;
    case 'contains':
      return `contains(${p.name(c.path)}, ${p.value({ S: c.value })})`;
    case 'beginsWith':
      return `begins_with(${p.name(c.path)}, ${p.value({ S: c.value })})`;
    case 'size':
      return `size(${p.name(c.path)}) = ${p.value({ N: String(c.value) })}`;
  }
}

function updateExpression(u: Update, p: Placeholders): string | undefined {
  const sets = u.set.map(({ path, action }) => {
    const name = p.name(path);
    if (action.kind === 'value') return `${name} = ${p.value(stored(path, action.value))}`;
    if (action.kind === 'ifMissing')
      return `${name} = if_not_exists(${name}, ${p.value(stored(path, action.value))})`;
    return `${name} = list_append(if_not_exists(${name}, ${p.value({ L: [] })}), ${p.value(stored(path, action.value))})`;
  });
  const adds = u.add.map(({ path, value }) => {
    const operand: AttributeValue =
      typeof value === 'number' ? { N: String(value) } : { SS: [...value.stringSet] };
    return `${p.name(path)} ${p.value(operand)}`;
  });
  const clauses = [
    sets.length > 0 ? `SET ${sets.join(', ')}` : '',
    u.remove.length > 0 ? `REMOVE ${u.remove.map((path) => p.name(path)).join(', ')}` : '',
    adds.length > 0 ? `ADD ${adds.join(', ')}` : '',
  ].filter((clause) => clause !== '');
  return clauses.length === 0 ? undefined : clauses.join(' ');
}

/** A condition and an update as one write's expressions; an always-true condition is left out. */
export function renderWrite(write: { condition: Condition; update?: Update }): RenderedWrite {
  const p = new Placeholders();
  const always = write.condition.kind === 'all' && write.condition.of.length === 0;
  const rendered: RenderedWrite = {};
  if (!always) rendered.ConditionExpression = condition(write.condition, p);
  const updateText = write.update ? updateExpression(write.update, p) : undefined;
  if (updateText !== undefined) rendered.UpdateExpression = updateText;
  if (Object.keys(p.names).length > 0) rendered.ExpressionAttributeNames = p.names;
  if (Object.keys(p.values).length > 0) rendered.ExpressionAttributeValues = p.values;
  return rendered;
}

/** One lifecycle transition's write, rendered for its parameters. */
export function renderTransition<P>(
  transition: { condition(params: P): Condition; update(params: P): Update },
  params: P,
): RenderedWrite {
  return renderWrite({ condition: transition.condition(params), update: transition.update(params) });
}

/**
 * `status` is a DynamoDB reserved word: the listing's reads (filters and projections, not transitions)
 * name it through this placeholder.
 */
export const STATUS_NAME = { '#status': 'status' };
