// Previous and next for the Deliveries list. The listing's cursor only goes one way, to older records, so
// each link carries the cursors of the pages before it (`prev`): going back pops the last one. The stack
// lives in the address, so a page is a plain link that can be reloaded, bookmarked or opened twice.

/** Between two cursors in `prev`: a cursor is base64url, which never holds a dot. */
const SEPARATOR = '.';
/** Stands first in `prev` when older pages were dropped: there is no Previous before it, only the newest. */
export const FORGOTTEN = '*';
/**
 * The longest `prev` kept. A request line and its headers must fit Node's 16 KB header limit; a cursor is
 * about 100 characters (up to a few hundred for a long dedup key), so this keeps a few dozen pages.
 */
export const MAX_PREV_CHARS = 4_000;

export interface PagePosition {
  /** This page's cursor; the first page has none. */
  cursor?: string;
  /** The cursors of the pages between the first and this one, joined with SEPARATOR. */
  prev?: string;
}

export interface PageLinks {
  /** Undefined on the first page, and where the pages before were dropped. */
  previous?: PagePosition;
  /** Undefined on the last page. */
  next?: PagePosition;
}

function stack(prev: string | undefined): string[] {
  return prev ? prev.split(SEPARATOR).filter((entry) => entry !== '') : [];
}

/** Keeps the newest cursors within MAX_PREV_CHARS, and marks the stack when older ones were dropped. */
function bounded(entries: string[]): string | undefined {
  let kept = entries;
  while (kept.length > 0 && kept.join(SEPARATOR).length > MAX_PREV_CHARS) {
    kept = [FORGOTTEN, ...kept.slice(kept[0] === FORGOTTEN ? 2 : 1)];
    if (kept.length === 1) break;
  }
  return kept.length === 0 ? undefined : kept.join(SEPARATOR);
}

export function pageLinks(current: PagePosition, nextCursor: string | undefined): PageLinks {
  const before = stack(current.prev);
  const links: PageLinks = {};
  if (current.cursor !== undefined) {
    const last = before.at(-1);
    if (last === undefined) links.previous = {};
    else if (last !== FORGOTTEN) {
      const rest = bounded(before.slice(0, -1));
      links.previous = { cursor: last, ...(rest === undefined ? {} : { prev: rest }) };
    }
  }
  if (nextCursor !== undefined) {
    const prev = current.cursor === undefined ? undefined : bounded([...before, current.cursor]);
    links.next = { cursor: nextCursor, ...(prev === undefined ? {} : { prev }) };
  }
  return links;
}
