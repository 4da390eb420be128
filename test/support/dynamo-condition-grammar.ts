// A reader of condition expressions by the grammar and precedence DynamoDB documents (comparisons, IN and
// functions bind tightest, then NOT, then AND, then OR; parentheses group), independent of any emulator's
// parser. It reads the renderer's placeholders back into a Condition, so the grouping a rendered text
// carries can be compared with the tree it was rendered from.
import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import {
  all,
  any,
  beginsWith,
  type CompareOp,
  type Condition,
  contains,
  exists,
  isIn,
  missing,
  not,
  type Scalar,
  sizeIs,
} from '../../lambdas/core/lifecycle/expression';

const TOKEN =
  /attribute_exists|attribute_not_exists|begins_with|contains|size|NOT|AND|OR|IN|<>|<=|>=|[=<>(),]|#n\d+|:v\d+/g;
const COMPARATORS = new Set(['=', '<>', '<', '<=', '>', '>=']);

export function readCondition(
  text: string,
  names: Record<string, string>,
  values: Record<string, AttributeValue>,
): Condition {
  const tokens = text.match(TOKEN) ?? [];
  if (tokens.join('').length !== text.replace(/\s+/g, '').length) throw new Error(`unread text in ${text}`);
  let at = 0;
  const peek = () => tokens[at];
  const take = (expected?: string): string => {
    const token = tokens[at++];
    if (token === undefined || (expected !== undefined && token !== expected))
      throw new Error(`expected ${expected ?? 'a token'} at ${at} in ${text}`);
    return token;
  };
  /** Takes the token, then reads what follows it. */
  const then = <T>(token: string, read: () => T): T => {
    take(token);
    return read();
  };
  const path = () => names[take()] as string;
  const scalar = (): Scalar => {
    const value = values[take()] as AttributeValue;
    return value.N !== undefined ? Number(value.N) : (value.S as string);
  };
  const or = (): Condition => {
    const parts = [and()];
    while (peek() === 'OR') parts.push(then('OR', and));
    return parts.length === 1 ? (parts[0] as Condition) : any(...parts);
  };
  const and = (): Condition => {
    const parts = [negation()];
    while (peek() === 'AND') parts.push(then('AND', negation));
    return parts.length === 1 ? (parts[0] as Condition) : all(...parts);
  };
  const negation = (): Condition => (peek() === 'NOT' ? then('NOT', () => not(negation())) : primary());
  const call = <T>(read: () => T): T => {
    take('(');
    const result = read();
    take(')');
    return result;
  };
  const primary = (): Condition => {
    const token = peek();
    if (token === '(') return call(or);
    if (token === 'attribute_exists') return then(token, () => exists(call(path)));
    if (token === 'attribute_not_exists') return then(token, () => missing(call(path)));
    if (token === 'contains' || token === 'begins_with') {
      take();
      const [name, value] = call(() => [path(), then(',', () => String(scalar()))] as const);
      return token === 'contains' ? contains(name, value) : beginsWith(name, value);
    }
    if (token === 'size') {
      take();
      const name = call(path);
      take('=');
      return sizeIs(name, Number(scalar()));
    }
    const name = path();
    const op = take();
    if (op === 'IN')
      return isIn(
        name,
        call(() => {
          const listed = [scalar()];
          while (peek() === ',') listed.push(then(',', scalar));
          return listed;
        }),
      );
    if (!COMPARATORS.has(op)) throw new Error(`expected a comparator, got ${op} in ${text}`);
    return { kind: 'compare', path: name, op: op as CompareOp, value: scalar() };
  };
  const condition = or();
  if (at !== tokens.length) throw new Error(`unread tokens from ${at} in ${text}`);
  return condition;
}
