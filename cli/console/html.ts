// HTML building blocks for the console's server-rendered pages. Every value from the inbox (keys, event
// types, error details) goes through `esc`: a delivery's fields are written by whoever sent the webhook.
// Every link, form and asset is relative: the console is served under a random path per launch
// (security.ts), and a relative link stays under it.
import { formatAge, INBOX_COLOURS } from '../shared/output';

const ENTITIES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
};

export function esc(value: unknown): string {
  return String(value ?? '').replace(/[&<>"']/g, (c) => ENTITIES[c] as string);
}

/** A query string from the defined, non-empty values. */
export function query(values: Record<string, string | undefined>): string {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(values)) if (value) params.set(name, value);
  const text = params.toString();
  return text ? `?${text}` : '';
}

/** The status as a badge in the CLI's colour for it (cli/shared/output.ts INBOX_COLOURS). */
export function statusBadge(status: string): string {
  return `<span class="badge badge-${INBOX_COLOURS[status] ?? 'plain'}">${esc(status)}</span>`;
}

/**
 * Escaped, with a line-break opportunity after each `.`, `_`, `-` and `/`: an event type or an error code
 * in a narrow column wraps between its parts rather than mid-word or past the window's edge.
 */
export function breakable(value: unknown): string {
  return esc(value).replace(/([._/-])/g, '$1<wbr>');
}

export function dash(value: unknown): string {
  return value === undefined || value === '' ? '<span class="dim">-</span>' : esc(value);
}

/** `2026-11-30 12:00:05` and its age, for a table cell. */
export function time(iso: string | undefined, nowMs = Date.now()): string {
  if (!iso) return dash(undefined);
  const ms = Date.parse(iso);
  if (Number.isNaN(ms)) return esc(iso);
  return `<time datetime="${esc(iso)}">${esc(iso.slice(0, 19).replace('T', ' '))}</time> <span class="dim age">${esc(formatAge(nowMs - ms))} ago</span>`;
}

export function deliveryLink(provider: string, dedupKey: string, text = dedupKey): string {
  return `<a class="mono" href="delivery${esc(query({ provider, key: dedupKey }))}">${esc(text)}</a>`;
}

export function table(head: string[], rows: string[][], empty: string, attrs = ''): string {
  if (rows.length === 0) return `<p class="empty">${esc(empty)}</p>`;
  return `<table${attrs}><thead><tr>${head.map((h) => `<th>${h}</th>`).join('')}</tr></thead><tbody>${rows
    .map((r) => `<tr>${r.map((c) => `<td>${c}</td>`).join('')}</tr>`)
    .join('')}</tbody></table>`;
}

export function details(pairs: readonly (readonly [string, string])[]): string {
  return `<dl class="details">${pairs.map(([k, v]) => `<dt>${esc(k)}</dt><dd>${v}</dd>`).join('')}</dl>`;
}

export interface Frame {
  /** The target, for the header: `local instance at ...` or `stack my-inbox (eu-west-1)`. */
  target: string;
  token: string;
  readOnly: boolean;
}

const NAV = [
  ['deliveries', 'deliveries', 'Deliveries'],
  ['dead-letters', 'dead-letters', 'Dead letters'],
  ['providers', 'providers', 'Providers'],
] as const;

export function layout(frame: Frame, active: string, title: string, body: string): string {
  const nav = NAV.map(
    ([id, href, label]) =>
      `<a href="${href}"${id === active ? ' class="active" aria-current="page"' : ''}>${label}</a>`,
  ).join('');
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="console-token" content="${esc(frame.token)}">
<meta name="console-read-only" content="${frame.readOnly ? '1' : '0'}">
<title>${esc(title)} · webhook-inbox</title>
<link rel="stylesheet" href="assets/console.css">
<link rel="icon" href="favicon.ico">
<script src="assets/console.js" defer></script>
</head><body>
<header><span class="brand">webhook-inbox</span><nav>${nav}</nav>
<span class="target">${esc(frame.target)}${frame.readOnly ? ' <span class="badge badge-dim">read-only</span>' : ''}</span></header>
<main><h1>${esc(title)}</h1><div id="notice" role="status" hidden></div>${body}</main>
</body></html>`;
}
