// Relative links in the project's Markdown, checked the way GitHub renders them: a link's file must exist,
// and its #anchor must be one of the target page's heading slugs. Links with a scheme (https:, mailto:)
// are not followed.
import { existsSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

export interface DocLink {
  /** The file the link is in, relative to the root. */
  file: string;
  line: number;
  target: string;
}

export interface BrokenLink extends DocLink {
  reason: string;
}

/** GitHub's heading slug: lowercase, punctuation dropped (`-` and `_` kept), each space a dash. */
export function headingSlug(heading: string): string {
  return plainText(heading)
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\p{N}\p{Pc}\- ]/gu, '')
    .replace(/ /g, '-');
}

/** A heading's rendered text: link text for links, code spans without their backticks, no emphasis marks. */
function plainText(markdown: string): string {
  return markdown
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/<[^>]+>/g, '')
    .replace(/`/g, '')
    .replace(/(\*+|(?<![\p{L}\p{N}])_+|_+(?![\p{L}\p{N}]))/gu, '')
    .trim();
}

/** The lines outside fenced code blocks, with their 1-based numbers. */
function proseLines(markdown: string): { text: string; line: number }[] {
  const lines: { text: string; line: number }[] = [];
  let fence: string | undefined;
  markdown.split('\n').forEach((text, index) => {
    const opener = /^\s*(`{3,}|~{3,})/.exec(text)?.[1];
    if (fence) {
      if (opener && opener[0] === fence[0] && opener.length >= fence.length) fence = undefined;
      return;
    }
    if (opener) {
      fence = opener;
      return;
    }
    lines.push({ text, line: index + 1 });
  });
  return lines;
}

/** Every anchor a page offers: its headings' slugs (repeats numbered as GitHub does) and explicit ids. */
export function anchorsOf(markdown: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  for (const { text } of proseLines(markdown)) {
    const heading = /^ {0,3}#{1,6}\s+(.*?)\s*#*\s*$/.exec(text)?.[1];
    if (heading !== undefined) {
      const slug = headingSlug(heading);
      const count = seen.get(slug) ?? 0;
      seen.set(slug, count + 1);
      anchors.add(count === 0 ? slug : `${slug}-${count}`);
    }
    for (const m of text.matchAll(/<a\s[^>]*(?:name|id)="([^"]+)"/g)) anchors.add(m[1] as string);
  }
  return anchors;
}

/** The link targets of a page: inline links and images, and reference definitions; not inside code. */
export function linksOf(markdown: string, file: string): DocLink[] {
  const links: DocLink[] = [];
  for (const { text, line } of proseLines(markdown)) {
    const prose = text.replace(/(`+)[\s\S]*?\1/g, '');
    for (const m of prose.matchAll(/\]\(\s*(<[^>]*>|[^)\s]+)(?:\s+"[^"]*")?\s*\)/g)) {
      links.push({ file, line, target: (m[1] as string).replace(/^<|>$/g, '') });
    }
    const definition = /^ {0,3}\[[^\]]+\]:\s*(\S+)/.exec(prose)?.[1];
    if (definition) links.push({ file, line, target: definition.replace(/^<|>$/g, '') });
  }
  return links;
}

/**
 * The broken relative links of `files` (paths relative to `root`): a missing file or directory, or an
 * anchor that is not one of the target page's headings.
 */
export function brokenLinks(root: string, files: readonly string[]): BrokenLink[] {
  const broken: BrokenLink[] = [];
  const anchorCache = new Map<string, Set<string>>();
  const anchorsAt = (path: string) => {
    let anchors = anchorCache.get(path);
    if (!anchors) {
      anchors = anchorsOf(readFileSync(path, 'utf8'));
      anchorCache.set(path, anchors);
    }
    return anchors;
  };
  for (const file of files) {
    const source = join(root, file);
    for (const link of linksOf(readFileSync(source, 'utf8'), file)) {
      if (/^[a-z][a-z0-9+.-]*:/i.test(link.target)) continue;
      const hash = link.target.indexOf('#');
      const pathPart = decodeURI(hash < 0 ? link.target : link.target.slice(0, hash));
      const anchor = hash < 0 ? undefined : decodeURIComponent(link.target.slice(hash + 1));
      const target = pathPart === '' ? source : resolve(dirname(source), pathPart);
      if (relative(root, target).startsWith('..')) {
        broken.push({ ...link, reason: 'points outside the repository' });
        continue;
      }
      if (!existsSync(target)) {
        broken.push({ ...link, reason: 'no such file' });
        continue;
      }
      if (anchor === undefined) continue;
      if (statSync(target).isDirectory() || !target.endsWith('.md')) {
        broken.push({ ...link, reason: 'an anchor on a file that is not a Markdown page' });
        continue;
      }
      if (!anchorsAt(target).has(anchor)) broken.push({ ...link, reason: `no heading #${anchor}` });
    }
  }
  return broken;
}
