// Previous and next on the Deliveries list: walking forward and back through the pages lands on the same
// cursors, the first page has no Previous, and the stack of earlier cursors stays within its bound.
import { describe, expect, it } from 'vitest';
import { FORGOTTEN, MAX_PREV_CHARS, type PagePosition, pageLinks } from '../../../../cli/console/pager';

/** A cursor as the listing makes one: base64url JSON, about 100 characters. */
const cursor = (n: number) =>
  Buffer.from(
    JSON.stringify({
      v: 1,
      before: `2026-12-01T10:00:${String(n).padStart(2, '0')}.000Z$github#${'k'.repeat(40)}${n}`,
    }),
  ).toString('base64url');

describe('console pager', () => {
  it('offers Next but no Previous on the first page, and nothing on a single page', () => {
    expect(pageLinks({}, cursor(1))).toEqual({ next: { cursor: cursor(1) } });
    expect(pageLinks({}, undefined)).toEqual({});
  });

  it('walks forward three pages and back to the first, through the same cursors', () => {
    const pages: PagePosition[] = [{}];
    for (let n = 1; n <= 3; n++) {
      const next = pageLinks(pages.at(-1) as PagePosition, cursor(n)).next;
      expect(next?.cursor).toBe(cursor(n));
      pages.push(next as PagePosition);
    }
    let at = pages.at(-1) as PagePosition;
    for (let back = pages.length - 2; back >= 0; back--) {
      const previous = pageLinks(at, cursor(99)).previous;
      expect(previous).toEqual(pages[back]);
      at = previous as PagePosition;
    }
    expect(pageLinks(at, cursor(1)).previous).toBeUndefined();
  });

  it('keeps the earlier cursors within the bound, and then offers no Previous past what it dropped', () => {
    let at: PagePosition = {};
    let pagesForward = 0;
    for (let n = 1; n <= 200; n++) {
      at = pageLinks(at, cursor(n)).next as PagePosition;
      pagesForward++;
      expect((at.prev ?? '').length).toBeLessThanOrEqual(MAX_PREV_CHARS);
    }
    expect(at.prev?.startsWith(`${FORGOTTEN}.`)).toBe(true);
    let back = 0;
    for (;;) {
      const previous = pageLinks(at, undefined).previous;
      if (!previous) break;
      expect(previous.cursor).toBe(cursor(pagesForward - back - 1));
      at = previous;
      back++;
    }
    expect(back).toBeGreaterThan(10);
    expect(back).toBeLessThan(pagesForward);
  });
});
