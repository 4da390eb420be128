// The console's pages, rendered on the server from the inbox index. Mutations are buttons the client
// script turns into POSTs with the token header; in read-only mode they are not rendered at all.

import { attemptEntries } from '../../lambdas/core/attempt-log';
import { forwardStatesOf } from '../../lambdas/core/destinations/forward-state';
import { INBOX_STATUSES, type InboxRecord } from '../../lambdas/core/inbox';
import { formatAge } from '../shared/output';
import type { DeadLetterGroup, ProviderView } from './console-operations';
import { type DeliveryPage, type DeliveryQuery, INDEX_LAG_NOTE, MIN_PREFIX } from './deliveries-source';
import {
  breakable,
  dash,
  deliveryLink,
  details,
  esc,
  type Frame,
  layout,
  query,
  statusBadge,
  table,
  time,
} from './html';
import { type PagePosition, pageLinks } from './pager';

/** A record field the inbox type may not name yet (lastErrorDetail, written by the processor's newer code). */
function field(record: InboxRecord, name: string): string | number | undefined {
  const value = (record as unknown as Record<string, unknown>)[name];
  return typeof value === 'string' || typeof value === 'number' ? value : undefined;
}

const breakableOrDash = (value: string | undefined) => (value ? breakable(value) : dash(undefined));

/**
 * A listing's event type: the sender chooses it, up to 246 characters that may hold no `.` or `_` to
 * break after, so it may also break anywhere (`.long-value`) rather than widen its column past the window.
 */
const eventTypeCell = (value: string | undefined) =>
  value ? `<span class="long-value">${breakable(value)}</span>` : dash(undefined);

const epochText = (seconds: number) => new Date(seconds * 1000).toISOString().slice(0, 19).replace('T', ' ');

export const RANGES = [
  ['15m', '15 minutes', 900_000],
  ['1h', '1 hour', 3_600_000],
  ['24h', '24 hours', 86_400_000],
  ['7d', '7 days', 604_800_000],
  ['30d', '30 days', 2_592_000_000],
] as const;

export interface DeliveriesForm {
  provider?: string;
  status?: string;
  range?: string;
  until?: string;
  q?: string;
  cursor?: string;
  /** The cursors of the pages before this one (pager.ts). */
  prev?: string;
}

/** The search as it is looked up: trimmed, without the ellipsis a shortened key is shown with. */
function searched(form: DeliveriesForm): string {
  return (form.q ?? '').trim().replace(/…$/, '');
}

function select(
  name: string,
  label: string,
  options: readonly (readonly [string, string])[],
  value?: string,
) {
  return `<label>${esc(label)} <select name="${name}"><option value="">any</option>${options
    .map(([v, text]) => `<option value="${esc(v)}"${v === value ? ' selected' : ''}>${esc(text)}</option>`)
    .join('')}</select></label>`;
}

export function deliveriesPage(
  frame: Frame,
  providers: readonly string[],
  form: DeliveriesForm,
  page: DeliveryPage,
  limit: DeliveryQuery['limit'],
  /** The trends section (trends-section.ts), drawn between the filters and the listing. */
  trends = '',
): string {
  const filters = `<form class="filters" method="get" action="deliveries">
${select(
  'provider',
  'Provider',
  providers.map((p) => [p, p] as const),
  form.provider,
)}
${select(
  'status',
  'Status',
  INBOX_STATUSES.map((s) => [s, s] as const),
  form.status,
)}
${select(
  'range',
  'Received within',
  RANGES.map(([v, text]) => [v, text] as const),
  form.range,
)}
<label>Before (UTC) <input type="datetime-local" name="until" value="${esc(form.until)}"></label>
<label class="grow">Search <input type="search" name="q" value="${esc(form.q)}" placeholder="dedup key, key prefix (6+) or delivery id"></label>
<button type="submit">Filter</button> <a class="button secondary" href="deliveries">Clear</a>
</form>`;
  const rows = page.records.map((r) => [
    time(r.receivedAt),
    breakable(r.provider),
    eventTypeCell(r.eventType),
    statusBadge(r.status),
    `<span class="num">${esc(r.attempts ?? 0)}</span>`,
    breakableOrDash(r.lastErrorCode),
    deliveryLink(r.provider, r.dedupKey, r.dedupKey.length > 32 ? `${r.dedupKey.slice(0, 31)}…` : r.dedupKey),
  ]);
  const links = pageLinks(form, page.cursor);
  // Relative, so the links keep whatever path the console is served under.
  const pageHref = (at: PagePosition | undefined) =>
    `deliveries${esc(query({ ...form, cursor: at?.cursor, prev: at?.prev }))}`;
  const next = links.next
    ? `<a class="button secondary" rel="next" href="${pageHref(links.next)}">Next ${limit} →</a>`
    : '';
  const previous = links.previous
    ? `<a class="button secondary" rel="prev" href="${pageHref(links.previous)}">← Previous</a>`
    : '';
  // The newest page, unless Previous leads there already.
  const first =
    form.cursor && (links.previous === undefined || links.previous.cursor !== undefined)
      ? `<a class="button secondary" href="${pageHref(undefined)}">⇤ Newest</a>`
      : '';
  return layout(
    frame,
    'deliveries',
    'Deliveries',
    `${filters}
${trends}
${table(
  ['Received (UTC)', 'Provider', 'Event', 'Status', 'Failed attempts', 'Last error', 'Dedup key'],
  rows,
  // A search shorter than a prefix may be (6) matched only a whole key or a delivery id: say so.
  searched(form).length > 0 && searched(form).length < MIN_PREFIX
    ? `No deliveries match. A key prefix needs at least ${MIN_PREFIX} characters; this search has ${esc(searched(form).length)}.`
    : 'No deliveries match.',
  ' id="deliveries"',
)}
<div class="pager"><span class="dim">${page.records.length} shown, newest first</span> ${first} ${previous} ${next}</div>
${page.note ? `<p class="dim" id="index-note">Note: ${esc(page.note)}.</p>` : ''}`,
  );
}

interface TimelineEntry {
  at: string;
  what: string;
  note?: string;
}

/**
 * What the record's times say happened, in order: each processing attempt from the attempt log, or, for a
 * record written before the log, the count and the last error of its failed attempts.
 */
export function timeline(record: InboxRecord): TimelineEntry[] {
  const entries: TimelineEntry[] = [];
  const add = (at: string | number | undefined, what: string, note?: string) => {
    if (typeof at === 'string') entries.push({ at, what, ...(note ? { note } : {}) });
  };
  add(record.receivedAt, 'received', record.deliveryId ? `delivery id ${record.deliveryId}` : undefined);
  add(record.enqueuedAt, 'enqueued', record.messageId ? `message ${record.messageId}` : undefined);
  const detail = field(record, 'lastErrorDetail');
  const attempts = attemptEntries(record.attemptLog);
  const last = attempts.at(-1);
  for (const attempt of attempts) {
    const receive = attempt.receiveCount === undefined ? '' : `, receive ${attempt.receiveCount}`;
    const shownDetail =
      attempt === last && attempt.errorCode === record.lastErrorCode && detail ? `: ${detail}` : '';
    add(
      attempt.at,
      attempt.outcome === 'failed' ? 'attempt failed' : 'dead-lettered',
      `${attempt.errorCode}${receive}${attempt.outcome === 'failed' ? ', retried' : ''}${shownDetail}`,
    );
  }
  const failures = record.attempts ?? 0;
  if (attempts.length === 0 && failures > 0) {
    const note = `${failures} failed attempt${failures === 1 ? '' : 's'}; last error ${record.lastErrorCode ?? 'unknown'}${detail ? `: ${detail}` : ''}`;
    // The last failure is at the give-up when there was one; otherwise the record does not say when.
    add(record.deadLetteredAt ?? record.failedAt ?? record.receivedAt, 'attempts failed', note);
  }
  if (!attempts.some((a) => a.outcome === 'dead-lettered' && a.at === record.deadLetteredAt))
    add(record.deadLetteredAt, 'dead-lettered', record.lastErrorCode);
  add(record.redrivenAt, 'redriven', 'moved back from the DLQ');
  const replays = record.replays ?? 1;
  add(
    record.lastReplayedAt,
    'replayed',
    `${replays} replay${replays === 1 ? '' : 's'}${record.lastReplayedBy ? `, last by ${record.lastReplayedBy}` : ''}`,
  );
  add(record.forwardedAt, 'queued for destinations', "copies on the destinations' queues");
  add(record.processedAt, 'processed');
  return entries.sort((a, b) => (a.at < b.at ? -1 : a.at > b.at ? 1 : 0));
}

/** What the replay dialog says happens: the bytes go back on the queue, and on to these destinations. */
function replayDialog(record: InboxRecord, destinations: readonly string[]): string {
  const where =
    destinations.length === 0
      ? "No destination's filter matches it now: the processor marks it processed and sends it nowhere."
      : `The processor runs it again and sends it to ${destinations.map((d) => `<strong>${esc(d)}</strong>`).join(', ')}, including any that had it already.`;
  return `<dialog id="replay-confirm" aria-labelledby="replay-title">
<h2 id="replay-title">Replay this delivery?</h2>
<p>The archived body of ${esc(record.provider)} delivery <span class="mono">${esc(record.dedupKey)}</span>${record.eventType ? ` (${esc(record.eventType)})` : ''} goes back on the main queue with the same dedup key and delivery id.</p>
<p>${where}</p>
<div class="actions"><button class="secondary" data-close="cancel" autofocus>Cancel</button><button data-close="confirm">Replay</button></div>
</dialog>`;
}

/** `replayTo`: where a replay of it goes now (replay-destinations.ts), for the confirmation. */
export function deliveryPage(frame: Frame, record: InboxRecord, replayTo: readonly string[] = []): string {
  const key = { provider: record.provider, key: record.dedupKey };
  const archived = record.archiveBody !== undefined || record.archiveRef !== undefined;
  const actions = frame.readOnly
    ? ''
    : `<div class="actions">
<button data-action="replay" data-provider="${esc(record.provider)}" data-key="${esc(record.dedupKey)}"${archived ? '' : ' disabled title="not archived: nothing to replay"'}>Replay</button>
${
  // Only a dead letter's message is in the DLQ; a failed one's waits on the main queue for its retry.
  record.status === 'dead-lettered'
    ? `<button data-action="redrive" data-keys="${esc(record.pk)}">Redrive</button>`
    : ''
}
<span class="job" hidden><progress max="1" value="0"></progress> <span class="job-text"></span></span>
</div>
${archived ? replayDialog(record, replayTo) : ''}
<div id="replay-result" class="result" role="status" hidden></div>`;
  const detail = field(record, 'lastErrorDetail');
  const recordPairs: [string, string][] = [
    ['provider', esc(record.provider)],
    ['dedup key', `<span class="mono">${esc(record.dedupKey)}</span>`],
    ['status', statusBadge(record.status)],
    ['event type', dash(record.eventType)],
    ['delivery id', dash(record.deliveryId)],
    ['failed attempts', esc(record.attempts ?? 0)],
    ['last error', dash(record.lastErrorCode)],
    ...(detail ? [['error detail', `<span class="mono">${esc(detail)}</span>`] as [string, string]] : []),
    ['received', time(record.receivedAt)],
    ['processed', time(record.processedAt)],
    ['message id', dash(record.messageId)],
    ['replays', dash(record.replays)],
    [
      'last replay',
      record.lastReplayedAt
        ? `${time(record.lastReplayedAt)} ${record.lastReplayedBy ? `by ${esc(record.lastReplayedBy)}` : ''}`
        : dash(undefined),
    ],
    ['dedup window ends', esc(epochText(record.dedupUntil ?? record.expiresAt))],
    ['record expires', esc(epochText(record.expiresAt))],
    ['archived', record.archivedAt ? time(record.archivedAt) : dash(undefined)],
  ];
  const events = timeline(record).map((e) => [time(e.at), `<strong>${esc(e.what)}</strong>`, dash(e.note)]);
  const destinations = forwardStatesOf(record).map((s) => [
    esc(s.destination),
    esc(s.state),
    esc(s.attempts),
    s.lastStatus === undefined
      ? dash(s.lastErrorCode)
      : `${esc(s.lastStatus)}${s.lastErrorCode ? ` (${esc(s.lastErrorCode)})` : ''}`,
    time(s.lastAttemptAt),
    s.state === 'retrying' ? time(s.nextAttemptAt) : dash(undefined),
  ]);
  const payload = `<section class="payload" data-provider="${esc(record.provider)}" data-key="${esc(record.dedupKey)}">
<h2>Payload</h2>
<p class="dim">sha256 <span class="mono">${esc(record.payloadSha256)}</span>${archived ? ` · archived ${esc(record.archivedAt?.slice(0, 19).replace('T', ' ') ?? '')}` : ' · not archived: there are no bytes to show or replay'}</p>
<div class="masked" id="payload-masked">${archived ? '●●●●●●●● masked: payloads may hold personal data <button data-action="reveal">Reveal</button>' : 'no archived bytes'}</div>
<div id="payload-shown" hidden>
<div class="tabs"><button data-view="json">JSON</button><button data-view="text">Text</button><button data-view="hex">Hex</button> <span class="dim payload-size"></span></div>
<pre id="payload-body"></pre></div>
</section>`;
  return layout(
    frame,
    'deliveries',
    `${record.provider} delivery`,
    `<p class="subtitle mono">${esc(record.dedupKey)} ${statusBadge(record.status)}</p>
${actions}
<div class="columns"><section><h2>Record</h2>${details(recordPairs)}</section>
<section><h2>Timeline</h2>${table(['When (UTC)', 'What', ''], events, 'No times recorded.', ' id="timeline"')}</section></div>
${
  destinations.length > 0
    ? `<section><h2>Destinations</h2>${table(['Destination', 'State', 'Attempts', 'Last answer', 'Last attempt', 'Next attempt'], destinations, '')}</section>`
    : ''
}
${payload}
<p><a href="deliveries${esc(query({ provider: key.provider }))}">← ${esc(record.provider)} deliveries</a></p>`,
  );
}

export function deadLettersPage(
  frame: Frame,
  groups: readonly DeadLetterGroup[],
  dlq: { name: string; visible: number; inFlight: number },
  nowMs = Date.now(),
): string {
  const all = groups.flatMap((g) => g.records);
  // Only stranded records come here other than dead-lettered ones (ConsoleOperations.deadLetterGroups).
  const stranded = all.filter((r) => r.status !== 'dead-lettered').length;
  const total = all.length - stranded;
  const ro = frame.readOnly;
  const groupRows = groups.map((g) => [
    breakable(g.provider),
    `<span class="mono">${breakable(g.errorCode)}</span>`,
    `<span class="num">${esc(g.count)}</span>`,
    esc(formatAge(nowMs - g.oldestMs)),
    ro
      ? ''
      : `<button class="small" data-action="redrive-group" data-provider="${esc(g.provider)}" data-error-code="${esc(g.errorCode)}">Redrive ${esc(g.count)}</button>`,
  ]);
  const records = all
    .sort((a, b) => (a.receivedAt < b.receivedAt ? 1 : -1))
    .map((r) => [
      ro
        ? ''
        : `<input type="checkbox" class="pick" value="${esc(r.pk)}" aria-label="select ${esc(r.dedupKey)}">`,
      time(r.deadLetteredAt ?? r.failedAt ?? r.receivedAt),
      r.status === 'dead-lettered'
        ? statusBadge(r.status)
        : `${statusBadge(r.status)} <span class="dim" title="given up without a mark: its message is in the DLQ or gone; redrive it, or open it to replay">stranded</span>`,
      breakable(r.provider),
      eventTypeCell(r.eventType),
      `<span class="mono">${breakable(r.lastErrorCode ?? 'unknown')}</span>`,
      deliveryLink(
        r.provider,
        r.dedupKey,
        r.dedupKey.length > 32 ? `${r.dedupKey.slice(0, 31)}…` : r.dedupKey,
      ),
    ]);
  const controls = ro
    ? ''
    : `<div class="actions">
<button data-action="redrive-selected" disabled>Redrive selected</button>
<button data-action="redrive-all">Redrive all in the DLQ</button>
<span class="job" hidden><progress max="1" value="0"></progress> <span class="job-text"></span></span>
</div>`;
  const purge = ro
    ? ''
    : `<section class="danger"><h2>Purge the DLQ</h2>
<p>Deletes every message in <span class="mono">${esc(dlq.name)}</span> for good; their deliveries can then come back only by replay from the archive. Type the queue's name or <span class="mono">purge</span> to confirm.</p>
<form class="purge"><input name="confirm" autocomplete="off" placeholder="${esc(dlq.name)}" data-expect="${esc(dlq.name)}" aria-label="confirmation">
<button class="destructive" data-action="purge" disabled>Purge</button></form></section>`;
  return layout(
    frame,
    'dead-letters',
    'Dead letters',
    `<p class="subtitle">${esc(total)} dead-lettered deliver${total === 1 ? 'y' : 'ies'} in the inbox index${stranded > 0 ? `, ${esc(stranded)} stranded (failed, given up without a mark)` : ''} · the DLQ holds about ${esc(dlq.visible)} visible, ${esc(dlq.inFlight)} in flight</p>
<p class="dim" id="index-note">Note: ${esc(INDEX_LAG_NOTE)}.</p>
<section><h2>By provider and error</h2>${table(['Provider', 'Error code', 'Count', 'Oldest', ''], groupRows, 'No dead letters.', ' id="groups"')}</section>
<section><h2>Deliveries</h2>${controls}${table([ro ? '' : '<input type="checkbox" class="pick-all" aria-label="select all">', 'Given up (UTC)', 'Status', 'Provider', 'Event', 'Error code', 'Dedup key'], records, 'Nothing to redrive.', ' id="dead-letters"')}</section>
${purge}`,
  );
}

/** The provider's id, and its signing scheme where that is not the same word. */
function providerName(p: ProviderView): string {
  return `<strong>${esc(p.id)}</strong>${p.scheme === p.id ? '' : `<div class="dim small">scheme ${esc(p.scheme)}</div>`}`;
}

function providerSecrets(p: ProviderView, nowMs: number, shared: SharedNotes): string {
  if (p.error) return `<p class="error">${esc(p.error)}</p>`;
  const versions =
    p.secrets.length === 0
      ? '<div class="error-text">No secret: every delivery fails closed.</div>'
      : p.secrets
          .map(
            (s) =>
              `<div><span class="dim">${esc(s.label)}</span> <span class="mono">${esc(s.masked)}</span>${s.createdMs === undefined ? '' : ` <span class="dim">${esc(formatAge(nowMs - s.createdMs))} old</span>`}</div>`,
          )
          .join('');
  const use = p.previousUse.text === shared.previousUse ? '' : p.previousUse.text;
  return `${versions}${use ? `<div class="dim small">${esc(use)}</div>` : ''}${
    p.store !== undefined && p.store === shared.store
      ? ''
      : `<div class="dim small">in <span class="mono">${esc(p.location)}</span></div>`
  }${p.ageNote && p.ageNote !== shared.ageNote ? `<div class="dim small">${esc(p.ageNote)}</div>` : ''}`;
}

/** What every provider's row would say alike (local mode's one secrets file), said once above the table. */
const sentence = (text: string) => `${text.charAt(0).toUpperCase()}${text.slice(1)}.`;

interface SharedNotes {
  store?: string;
  ageNote?: string;
  /** How much the previous secrets are used: one figure for every provider on a stack (the metric's). */
  previousUse?: string;
}

function sharedNotes(providers: readonly ProviderView[]): SharedNotes {
  const only = <T>(values: T[]) => (new Set(values).size === 1 ? values[0] : undefined);
  const store = only(providers.map((p) => p.store));
  const ageNote = only(providers.map((p) => p.ageNote));
  const withPrevious = providers.filter((p) => p.secrets.length > 1);
  const previousUse = withPrevious.length > 1 ? only(withPrevious.map((p) => p.previousUse.text)) : undefined;
  return {
    ...(store === undefined ? {} : { store }),
    ...(ageNote === undefined ? {} : { ageNote }),
    ...(previousUse ? { previousUse } : {}),
  };
}

/** One row a provider: its endpoint and where to register it, its secrets, and the rotate form. */
export function providersPage(frame: Frame, providers: readonly ProviderView[], nowMs = Date.now()): string {
  const shared = sharedNotes(providers);
  const rows = providers.map((p) => {
    const cells = [
      `<span id="provider-${esc(p.id)}">${providerName(p)}</span>`,
      `<code class="copy">${esc(p.url)}</code><div class="small">${esc(p.where)}</div>`,
      providerSecrets(p, nowMs, shared),
    ];
    if (!frame.readOnly) {
      cells.push(`<form class="rotate" data-provider="${esc(p.id)}"><input type="password" name="value" autocomplete="off" placeholder="${p.issuer === 'provider' ? 'the secret the provider issued' : 'empty: a random one'}" aria-label="new ${esc(p.id)} secret">
<button data-action="rotate">Rotate</button></form>`);
    }
    return cells;
  });
  return layout(
    frame,
    'providers',
    'Providers',
    `${shared.store ? `<p class="subtitle">Secrets are kept in <span class="mono">${esc(shared.store)}</span>, under each provider's id.</p>` : ''}
${shared.ageNote ? `<p class="subtitle">${esc(sentence(shared.ageNote))}</p>` : ''}
${shared.previousUse ? `<p class="subtitle">Previous secrets: ${esc(shared.previousUse)}.</p>` : ''}
${table(
  [
    'Provider',
    'Endpoint URL, and where to register it',
    'Secrets',
    ...(frame.readOnly ? [] : ['Rotate the secret']),
  ],
  rows,
  'No providers configured.',
  ' id="providers" class="stack"',
)}`,
  );
}

export function messagePage(frame: Frame, title: string, text: string): string {
  return layout(frame, '', title, `<p>${esc(text)}</p><p><a href="deliveries">Deliveries</a></p>`);
}
