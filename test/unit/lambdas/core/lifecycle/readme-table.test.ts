// The README's state and transition tables are the lifecycle's own, generated from it.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { statusTable, transitionTable } from '../../../../../lambdas/core/lifecycle/transitions';

/** The tables' cells, row by row: a formatter may pad the columns. */
function cells(markdown: string): string[][] {
  return markdown
    .split('\n')
    .filter((line) => line.startsWith('|'))
    .map((line) => line.split('|').map((cell) => cell.trim().replace(/^-+$/, '---')));
}

describe("the README's lifecycle tables", () => {
  it('are exactly the tables generated from core/lifecycle/transitions.ts', () => {
    const readme = readFileSync(join(__dirname, '../../../../../README.md'), 'utf8');
    const between = /<!-- lifecycle:start -->\n([\s\S]*?)\n<!-- lifecycle:end -->/.exec(readme);
    expect(cells(between?.[1] ?? '')).toEqual(cells(`${statusTable()}\n\n${transitionTable()}`));
  });
});
