// The README's state and transition tables are the lifecycle's own, generated from it.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { statusTable, transitionTable } from '../../../../../lambdas/core/lifecycle/transitions';

describe("the README's lifecycle tables", () => {
  it('are exactly the tables generated from core/lifecycle/transitions.ts', () => {
    const readme = readFileSync(join(__dirname, '../../../../../README.md'), 'utf8');
    const between = /<!-- lifecycle:start -->\n([\s\S]*?)\n<!-- lifecycle:end -->/.exec(readme);
    expect(between?.[1]).toBe(`${statusTable()}\n\n${transitionTable()}`);
  });
});
