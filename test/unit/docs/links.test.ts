// The README is the front page and docs/ holds one page per subject: every relative link and anchor among
// them resolves, the front page stays short, and its first code block is the two commands to run.
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { brokenLinks } from '../../support/doc-links';

const ROOT = join(import.meta.dirname, '../../..');

function markdownUnder(dir: string): string[] {
  return readdirSync(join(ROOT, dir), { recursive: true, encoding: 'utf8' })
    .filter((name) => name.endsWith('.md'))
    .map((name) => relative(ROOT, join(ROOT, dir, name)))
    .sort();
}

const PAGES = ['README.md', ...markdownUnder('docs')];
const README = readFileSync(join(ROOT, 'README.md'), 'utf8');

describe('README.md and docs/', () => {
  it('has pages in docs/', () => {
    expect(PAGES.length).toBeGreaterThan(5);
  });

  it('every relative link, image and #anchor resolves', () => {
    const broken = brokenLinks(ROOT, PAGES).map(
      ({ file, line, target, reason }) => `${file}:${line} ${target}: ${reason}`,
    );
    expect(broken).toEqual([]);
  });

  it('the README is a front page of at most 250 lines', () => {
    expect(README.trimEnd().split('\n').length).toBeLessThanOrEqual(250);
  });

  it("the README's first code block is the two commands: set up and start, and test", () => {
    const first = /```[a-z]*\n([\s\S]*?)\n```/.exec(README)?.[1] ?? '';
    const commands = first.split('\n').map((line) => line.replace(/#.*$/, '').trim());
    expect(commands.filter(Boolean)).toEqual(['npm ci && npm start', 'npm test']);
  });

  it('cites no design seeds a reader cannot open', () => {
    const citing = PAGES.filter((page) => /\bseeds? 00\d/i.test(readFileSync(join(ROOT, page), 'utf8')));
    expect(citing).toEqual([]);
  });
});
