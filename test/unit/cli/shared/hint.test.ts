// Every command the CLI tells someone to run names what runs in the project folder, `npx webhook-inbox
// <command>`: the shell has no `webhook-inbox` on its PATH. Read from the sources' string literals (not
// their comments), so a new hint written by hand is caught here.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { buildProgram } from '../../../../cli/program';
import { CLI, cliHint } from '../../../../cli/shared/hint';

const ROOT = join(import.meta.dirname, '../../../..');

/** Literal text naming the program itself, not a command to type: a page title and alarm-history reasons. */
const NOT_HINTS = new Set([
  'cli/console/run.ts: webhook-inbox console',
  'cli/commands/doctor/checks/alarm.ts: webhook-inbox doctor: checking that this alarm can notify (put back at once)',
  'cli/commands/doctor/checks/alarm.ts: webhook-inbox doctor: put back after the notification check',
]);

function sourceFiles(dir: string): string[] {
  return readdirSync(join(ROOT, dir), { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

/** The text of every string and template literal in a file, comments left out. */
function literals(path: string): string[] {
  const file = ts.createSourceFile(
    path,
    readFileSync(join(ROOT, path), 'utf8'),
    ts.ScriptTarget.Latest,
    true,
  );
  const found: string[] = [];
  const visit = (node: ts.Node) => {
    if (ts.isStringLiteralLike(node) || ts.isTemplateLiteralToken(node)) found.push(node.text);
    node.forEachChild(visit);
  };
  visit(file);
  return found;
}

function firstHintLine(text: string): string | undefined {
  return text
    .split('\n')
    .find((line) => bareHint.test(line))
    ?.trim();
}

const subcommands = buildProgram().commands.map((command) => command.name());
const bareHint = new RegExp(`(?<!npx )webhook-inbox (?:${subcommands.join('|')}|<command>)(?![\\w-])`);

describe('command hints', () => {
  it('name `npx webhook-inbox`, what runs inside the project', () => {
    expect(cliHint('dlq list')).toBe('npx webhook-inbox dlq list');
    expect(CLI).toBe('npx webhook-inbox');
  });

  it('no string in cli/, local/ or lambdas/ tells the user to run a bare `webhook-inbox <command>`', () => {
    const files = ['cli', 'local', 'lambdas'].flatMap(sourceFiles);
    expect(files.length).toBeGreaterThan(50);
    const bare = files.flatMap((path) =>
      literals(path)
        .filter((text) => bareHint.test(text))
        .map((text) => `${path}: ${firstHintLine(text)}`)
        .filter((line) => !NOT_HINTS.has(line)),
    );
    expect(bare).toEqual([]);
  });
});
