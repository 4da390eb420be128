import { describe, expect, it } from 'vitest';
import { type Line, lineList, mergeRows, total, usd } from '../../../bench/lib/cost-lines';

const GROUPS = ['a', 'b'] as const;
const NAMES = { a: 'Door A', b: 'Door B' };

function lines(entries: [key: string, usdPerMillion: number][]): Line[] {
  const list = lineList();
  for (const [key, value] of entries) list.add(key, `Item ${key}`, '$1 / M', 'basis', 1, value / 1e6);
  return list.lines;
}

describe('lineList', () => {
  it('makes per-million dollars of units times their price', () => {
    const list = lineList();
    list.add('x', 'X', '$0.40 / M', '1.4 requests', 1.4, 0.4e-6);
    expect(list.lines[0]?.usdPerMillion).toBeCloseTo(0.56, 9);
    expect(total([...list.lines, ...list.lines])).toBeCloseTo(1.12, 9);
  });
});

describe('mergeRows', () => {
  it('makes one row of a line every group has alike, and one per group where they differ', () => {
    const small = {
      a: lines([
        ['same', 1],
        ['differs', 2],
      ]),
      b: lines([
        ['same', 1],
        ['differs', 3],
      ]),
    };
    const rows = mergeRows(GROUPS, NAMES, ['same', 'differs'], small, { a: [], b: [] });
    expect(rows.map((r) => [r.item, r.group])).toEqual([
      ['Item same', 'all'],
      ['Item differs (Door A)', 'a'],
      ['Item differs (Door B)', 'b'],
    ]);
  });

  it("names a line only one group has as that group's only, in the given order first", () => {
    const rows = mergeRows(
      GROUPS,
      NAMES,
      ['late'],
      {
        a: lines([
          ['early', 1],
          ['late', 1],
        ]),
        b: [],
      },
      {
        a: [],
        b: [],
      },
    );
    expect(rows.map((r) => r.item)).toEqual(['Item late (Door A only)', 'Item early (Door A only)']);
  });

  it('keeps the large column apart from the small one', () => {
    const rows = mergeRows(
      GROUPS,
      NAMES,
      [],
      { a: lines([['x', 1]]), b: lines([['x', 1]]) },
      {
        a: lines([['x', 5]]),
        b: [],
      },
    );
    expect(rows).toHaveLength(2);
    expect(rows[0]).toMatchObject({ group: 'a', small: { usdPerMillion: 1 }, large: { usdPerMillion: 5 } });
    expect(rows[1]).toMatchObject({ group: 'b', large: null });
  });
});

describe('usd', () => {
  it('prints cents above ten cents and two significant digits below', () => {
    expect([usd(0), usd(0.56), usd(0.013), usd(123.4), usd(null)]).toEqual([
      '$0',
      '$0.56',
      '$0.013',
      '$123',
      '-',
    ]);
  });
});
