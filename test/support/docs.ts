// The project's documentation as the tests read it: the README is the front page, and each subject's
// tables live on its page under docs/.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

const ROOT = join(import.meta.dirname, '../..');

/** A page by its path from the project root: `README.md`, `docs/configuration.md`. */
export function readDoc(page: string): string {
  return readFileSync(join(ROOT, page), 'utf8');
}

/**
 * The text under a heading (given with its hashes, `## Answers`), up to the next heading of the same or a
 * higher level; headings inside code blocks do not count. Throws when the page has no such heading, so a
 * renamed section fails the test that reads it rather than passing on an empty table.
 */
export function docSection(page: string, heading: string): string {
  const lines = readDoc(page).split('\n');
  const start = lines.indexOf(heading);
  if (start < 0) throw new Error(`${page} has no "${heading}" heading`);
  const level = /^#+/.exec(heading)?.[0].length ?? 1;
  let fenced = false;
  let end = lines.length;
  for (let i = start + 1; i < lines.length; i++) {
    const line = lines[i] as string;
    if (/^\s*(```|~~~)/.test(line)) fenced = !fenced;
    const hashes = fenced ? undefined : /^(#{1,6}) /.exec(line)?.[1];
    if (hashes && hashes.length <= level) {
      end = i;
      break;
    }
  }
  return lines.slice(start, end).join('\n');
}
