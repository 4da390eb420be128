// The renderer writes only the parentheses DynamoDB's precedence needs. Read back by the grammar AWS
// documents (not by an emulator's parser), every rendered text must decide every item as the tree it
// came from: NOT before a function or an IN, NOT NOT, OR inside AND, one-member groups.
import { describe, expect, it } from 'vitest';
import { renderWrite } from '../../../../lambdas/adapters/dynamo-expression';
import { holds, type StoredItem } from '../../../../lambdas/core/lifecycle/evaluate';
import {
  all,
  any,
  beginsWith,
  type Condition,
  contains,
  eq,
  exists,
  isIn,
  lt,
  missing,
  not,
  sizeIs,
} from '../../../../lambdas/core/lifecycle/expression';
import { readCondition } from '../../../support/dynamo-condition-grammar';
import { Rng } from '../../../support/rng';

const SEED = 24_024;

function atom(rng: Rng): Condition {
  const path = rng.pick(['a', 'b', 'c']);
  return rng.pick([
    () => missing(path),
    () => exists(path),
    () => eq(path, rng.int(2)),
    () => lt(path, 1),
    () => isIn(path, rng.chance(0.5) ? [0] : [0, 1]),
    () => contains('list', 'x'),
    () => beginsWith('text', 'ab'),
    () => sizeIs('list', rng.int(2)),
  ])();
}

function tree(rng: Rng, depth: number): Condition {
  if (depth === 0 || rng.chance(0.2)) return atom(rng);
  const kind = rng.int(3);
  if (kind === 2) return not(tree(rng, depth - 1));
  const members = Array.from({ length: 1 + rng.int(3) }, () => tree(rng, depth - 1));
  return kind === 0 ? all(...members) : any(...members);
}

function item(rng: Rng): StoredItem {
  const stored: Record<string, string | number | string[]> = {};
  for (const path of ['a', 'b', 'c']) if (rng.chance(0.8)) stored[path] = rng.int(2);
  if (rng.chance(0.7)) stored.list = rng.chance(0.5) ? ['x'] : [];
  if (rng.chance(0.7)) stored.text = rng.pick(['abc', 'b']);
  return stored;
}

describe('rendered conditions, read by the documented precedence', () => {
  it('decide every item as the tree they were rendered from', () => {
    const rng = new Rng(SEED);
    const disagreements: string[] = [];
    for (let n = 0; n < 3_000; n++) {
      const condition = tree(rng, 5);
      const rendered = renderWrite({ condition });
      const text = rendered.ConditionExpression as string;
      const read = readCondition(
        text,
        rendered.ExpressionAttributeNames ?? {},
        rendered.ExpressionAttributeValues ?? {},
      );
      for (let k = 0; k < 8; k++) {
        const stored = item(rng);
        if (holds(read, stored) !== holds(condition, stored))
          disagreements.push(`${text} on ${JSON.stringify(stored)}`);
      }
    }
    expect(disagreements.slice(0, 3)).toEqual([]);
  });

  it('reads the parentheses it needs, and only those', () => {
    const rendered = renderWrite({
      condition: all(any(eq('a', 1), eq('b', 1)), not(not(exists('c'))), not(isIn('a', [0, 1]))),
    });
    expect(rendered.ConditionExpression).toBe(
      '(#n0 = :v0 OR #n1 = :v1) AND NOT (NOT attribute_exists(#n2)) AND NOT #n0 IN (:v2, :v3)',
    );
  });
});
