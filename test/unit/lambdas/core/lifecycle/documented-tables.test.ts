// The state and transition tables of docs/how-it-works.md are the lifecycle's own, generated from it.
import { describe, expect, it } from 'vitest';
import { statusTable, transitionTable } from '../../../../../lambdas/core/lifecycle/transitions';
import { readDoc } from '../../../../support/docs';

/** The tables' cells, row by row: a formatter may pad the columns. */
function cells(markdown: string): string[][] {
  return markdown
    .split('\n')
    .filter((line) => line.startsWith('|'))
    .map((line) => line.split('|').map((cell) => cell.trim().replace(/^-+$/, '---')));
}

describe("the docs' lifecycle tables", () => {
  it('are exactly the tables generated from core/lifecycle/transitions.ts', () => {
    const page = readDoc('docs/how-it-works.md');
    const between = /<!-- lifecycle:start -->\n([\s\S]*?)\n<!-- lifecycle:end -->/.exec(page);
    expect(cells(between?.[1] ?? '')).toEqual(cells(`${statusTable()}\n\n${transitionTable()}`));
  });
});
