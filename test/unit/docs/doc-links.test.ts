// The link checker itself, on samples: it must report what GitHub would render as a dead link, and only that.
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { anchorsOf, brokenLinks, headingSlug } from '../../support/doc-links';

function sampleRepo(files: Record<string, string>): string {
  const root = mkdtempSync(join(tmpdir(), 'doc-links-'));
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(join(root, path, '..'), { recursive: true });
    writeFileSync(join(root, path), text);
  }
  return root;
}

describe('headingSlug', () => {
  it.each([
    ['Retries: the schedule and what follows from it', 'retries-the-schedule-and-what-follows-from-it'],
    ['Check a deployed stack: `doctor`', 'check-a-deployed-stack-doctor'],
    ['The `webhook-inbox` command: operations runbook', 'the-webhook-inbox-command-operations-runbook'],
    ['Listing, and write hot spots', 'listing-and-write-hot-spots'],
    [
      'List cost (`npm run bench -- --only list-cost`, 2026-12-01, 17:18 UTC, load average 3.6)',
      'list-cost-npm-run-bench------only-list-cost-2026-12-01-1718-utc-load-average-36',
    ],
    ['Load average 4.7–6.9', 'load-average-4769'],
    ['`snake_case` and _emphasis_', 'snake_case-and-emphasis'],
    ['[A link](https://example.com) here', 'a-link-here'],
  ])('%s -> %s', (heading, slug) => {
    expect(headingSlug(heading)).toBe(slug);
  });
});

describe('anchorsOf', () => {
  it('numbers repeated headings as GitHub does and ignores headings inside code blocks', () => {
    const anchors = anchorsOf('# Title\n\n## Usage\n\n```sh\n# not a heading\n```\n\n## Usage\n');
    expect([...anchors]).toEqual(['title', 'usage', 'usage-1']);
  });
});

describe('brokenLinks', () => {
  const root = sampleRepo({
    'README.md': [
      '# Front',
      '## Start here',
      '[ok](docs/guide.md) [ok anchor](docs/guide.md#set-up-the-thing) [self](#start-here)',
      '![picture](docs/images/shot.png) [web](https://example.com/missing) [mail](mailto:a@example.com)',
      '[gone](docs/missing.md) [bad anchor](docs/guide.md#no-such-part) [bad self](#nowhere)',
      '![no picture](docs/images/none.png)',
      '`[in code](docs/absent.md)`',
      '```md',
      '[in a fence](docs/absent.md)',
      '```',
      '[ref]: docs/also-missing.md',
    ].join('\n'),
    'docs/guide.md': '# Guide\n\n## Set up the thing\n\n[back](../README.md#start-here) [up](../../x.md)\n',
    'docs/images/shot.png': 'png',
  });

  it('reports a missing page, a missing anchor, a missing image and a link out of the repository', () => {
    const found = brokenLinks(root, ['README.md', 'docs/guide.md']).map(
      ({ file, line, target, reason }) => `${file}:${line} ${target}: ${reason}`,
    );
    expect(found).toEqual([
      'README.md:5 docs/missing.md: no such file',
      'README.md:5 docs/guide.md#no-such-part: no heading #no-such-part',
      'README.md:5 #nowhere: no heading #nowhere',
      'README.md:6 docs/images/none.png: no such file',
      'README.md:11 docs/also-missing.md: no such file',
      'docs/guide.md:5 ../../x.md: points outside the repository',
    ]);
  });

  it('finds nothing wrong in a page whose links all resolve', () => {
    expect(brokenLinks(root, ['docs/guide.md']).filter((l) => !l.target.startsWith('../../'))).toEqual([]);
  });
});
