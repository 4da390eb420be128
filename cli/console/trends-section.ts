// The Deliveries page's trends section: the window switch, the charts (svg-chart.ts) and tables of
// computeTrends (trends.ts), the duplicates a stack's metric counts, what the reads cost, and what the
// data cannot say. Links only: the switch is a query parameter, so the section needs no script.
import { formatAge } from '../shared/output';
import { esc, query, table } from './html';
import { type BarChart, type ChartSeries, stackedBarChart } from './svg-chart';
import {
  COPY_OUTCOMES,
  costPerThousandViews,
  type DuplicateTrend,
  OUTCOMES,
  TREND_READ_CAP,
  TREND_WINDOWS,
  type TrendPart,
  type Trends,
  type TrendWindow,
  USD_PER_METRIC_REQUEST,
  USD_PER_READ_UNIT,
} from './trends';

/** What a view read to draw the trends (ListPage's own counts), with what it drew. */
export interface TrendsRead {
  trends: Trends;
  itemsRead: number;
  readUnits: number;
}

export type TrendsView = TrendsRead | { window: TrendWindow; error: string };

/** The outcomes in the console's badge colours (assets.ts), darker where a thin bar must still read. */
const OUTCOME_COLOURS: Record<string, string> = {
  processed: '#1a7f37',
  delivered: '#1a7f37',
  failed: '#bf8700',
  retrying: '#bf8700',
  'dead-lettered': '#cf222e',
  'in progress': '#0969da',
  pending: '#0969da',
};
/** One colour per provider or destination, by its place in the sorted names. */
const PALETTE = ['#0969da', '#8250df', '#bf3989', '#0a6b7c', '#953800', '#6e7781', '#1b7c83', '#5a32a3'];

const iso = (ms: number) => new Date(ms).toISOString();
const hhmm = (ms: number) => iso(ms).slice(11, 16);

function axis(trends: Trends) {
  const daily = trends.window === '7d';
  const xLabels = trends.bucketStarts.map((start) => {
    const date = new Date(start);
    if (daily) return date.getUTCHours() === 0 ? iso(start).slice(5, 10) : undefined;
    return date.getUTCHours() % 3 === 0 ? hhmm(start) : undefined;
  });
  const bucketTitles = trends.bucketStarts.map((start, i) => {
    const end = start + trends.bucketMs;
    const last = i === trends.bucketStarts.length - 1;
    return `${iso(start).slice(0, 10)} ${hhmm(start)}–${last ? 'now' : hhmm(end)} UTC`;
  });
  // The unread part of the window, in bars (fractional): from its start to where the read stopped.
  const unread =
    trends.unreadBeforeMs === undefined
      ? undefined
      : {
          bars: (trends.unreadBeforeMs - trends.sinceMs) / trends.bucketMs,
          title: `not read: the read stopped at ${TREND_READ_CAP.toLocaleString('en-US')} deliveries, at ${iso(trends.unreadBeforeMs).slice(0, 16).replace('T', ' ')} UTC`,
        };
  return { xLabels, bucketTitles, ...(unread ? { unread } : {}) };
}

function chart(
  trends: Trends,
  id: string,
  title: string,
  unit: string,
  series: ChartSeries[],
  emptyText: string,
  fromInboxRead = true,
) {
  // A chart drawn from elsewhere than the inbox read has no part the read's cap left out.
  const { unread, ...rest } = axis(trends);
  const spec: BarChart = {
    id,
    title,
    unit,
    series,
    emptyText,
    ...rest,
    ...(fromInboxRead && unread ? { unread } : {}),
  };
  return `<figure class="trend"><figcaption>${esc(title)}</figcaption>${stackedBarChart(spec)}</figure>`;
}

function byName(failures: Map<string, number[]>, names: readonly string[]): ChartSeries[] {
  return [...failures].map(([name, values]) => ({
    name,
    colour: PALETTE[Math.max(0, names.indexOf(name)) % PALETTE.length] as string,
    values,
  }));
}

function rowsTable<O extends string>(
  part: TrendPart<O>,
  outcomes: readonly O[],
  head: readonly [string, string],
  nowMs: number,
  link?: (name: string) => string,
): string {
  const rows = part.rows.map((row) => [
    link ? `<a href="${esc(link(row.name))}">${esc(row.name)}</a>` : esc(row.name),
    `<span class="num">${esc(outcomes.reduce((sum, o) => sum + row.counts[o], 0))}</span>`,
    ...outcomes.map((o) => `<span class="num">${esc(row.counts[o])}</span>`),
    `<span class="num">${esc(row.failedAttempts)}</span>`,
    row.oldestPendingMs === undefined
      ? '<span class="dim">none</span>'
      : esc(formatAge(nowMs - row.oldestPendingMs)),
  ]);
  return table([...head, ...outcomes, 'Failed attempts', 'Oldest pending'], rows, '', ' class="trend-table"');
}

const DUPLICATE_COLOUR = '#6e7781';

/**
 * Duplicates: a chart from the metric on a stack, with where the figure comes from; a sentence locally;
 * one line when the metric could not be read.
 */
function duplicatesPart(
  trends: Trends,
  duplicates: DuplicateTrend,
  provider: string | undefined,
): { chart: string; note: string } {
  const per = TREND_WINDOWS[trends.window].per;
  if (duplicates.source === 'none') {
    return {
      chart: '',
      note: `<p class="dim" id="trends-duplicates">Duplicates are not counted locally: a provider's retry of a delivery is answered from its record without a write, so the inbox table holds no count of them, and local mode publishes no metrics. On a stack they are drawn here from the verify function's DeliveryDuplicate metric.</p>`,
    };
  }
  if ('error' in duplicates) {
    return {
      chart: '',
      note: `<p class="error" id="trends-duplicates">duplicates not available: ${esc(duplicates.error)}</p>`,
    };
  }
  return {
    chart: chart(
      trends,
      'trend-duplicates',
      `Duplicates ${per} (all providers)`,
      `duplicates ${per}`,
      [{ name: 'duplicate', colour: DUPLICATE_COLOUR, values: duplicates.values }],
      'no duplicates',
      false,
    ),
    note: `<p class="dim" id="trends-duplicates">Duplicates are a provider's retries of deliveries already received, answered without a write: the inbox table holds no count of them, so they come from the verify function's DeliveryDuplicate metric in CloudWatch, which counts all providers together${provider ? `, not ${esc(provider)} alone` : ''}.</p>`,
  };
}

/** One stacked series per outcome, in the outcome's colour. */
function stacked<O extends string>(outcomes: readonly O[], received: Record<O, number[]>) {
  return outcomes.map((o) => ({ name: o, colour: OUTCOME_COLOURS[o] as string, values: received[o] }));
}

export function trendsSection(
  view: TrendsView,
  form: Record<string, string | undefined>,
  duplicates: DuplicateTrend = { source: 'none' },
): string {
  const window = 'error' in view ? view.window : view.trends.window;
  const switchLinks = (Object.keys(TREND_WINDOWS) as TrendWindow[])
    .map((w) =>
      w === window
        ? `<strong aria-current="true">${esc(TREND_WINDOWS[w].label)}</strong>`
        : `<a href="deliveries${esc(query({ ...form, cursor: undefined, trend: w }))}">${esc(TREND_WINDOWS[w].label)}</a>`,
    )
    .join(' · ');
  const head = `<h2>Trends, last ${esc(TREND_WINDOWS[window].label)} <span class="trend-switch">${switchLinks}</span></h2>`;
  if ('error' in view) {
    return `<section class="trends" id="trends">${head}<p class="error">trends not available: ${esc(view.error)}</p></section>`;
  }
  const { trends } = view;
  const per = TREND_WINDOWS[window].per;
  const providers = trends.deliveries.rows.map((r) => r.name);
  const destinations = trends.destinations.rows.map((r) => r.name);
  const received = chart(
    trends,
    'trend-received',
    `Deliveries received ${per}, by outcome`,
    `deliveries ${per}`,
    stacked(OUTCOMES, trends.deliveries.received),
    'no deliveries in this window',
  );
  const failures = chart(
    trends,
    'trend-failures',
    `Failed attempts ${per}, by provider`,
    `failed attempts ${per}`,
    byName(trends.deliveries.failures, providers),
    'no failed attempts',
  );
  const dupes = duplicatesPart(trends, duplicates, form.provider);
  const cap =
    trends.unreadBeforeMs === undefined
      ? ''
      : `<p class="note" id="trends-cap">The read stopped at ${esc(TREND_READ_CAP.toLocaleString('en-US'))} deliveries: those received before ${esc(iso(trends.unreadBeforeMs).slice(0, 16).replace('T', ' '))} UTC are not counted (the grey band).</p>`;
  const destinationPart =
    destinations.length === 0
      ? '<p class="empty">No delivery in this window was forwarded to a destination.</p>'
      : `<div class="trend-charts">${chart(
          trends,
          'trend-copies',
          `Copies for destinations ${per}, by state`,
          `copies ${per}`,
          stacked(COPY_OUTCOMES, trends.destinations.received),
          'no copies in this window',
        )}${chart(
          trends,
          'trend-destination-failures',
          `Failed attempts ${per}, by destination`,
          `failed attempts ${per}`,
          byName(trends.destinations.failures, destinations),
          'no failed attempts',
        )}</div>
${rowsTable(trends.destinations, COPY_OUTCOMES, ['Destination', 'Copies'], trends.nowMs)}
<p class="dim">A copy counts in the hour its delivery was received. Its record keeps the time of its last attempt only, so all its failed attempts are drawn there.</p>`;
  const units = Math.round(view.readUnits * 10) / 10;
  const metricRequests = duplicates.source === 'metric' && !('error' in duplicates) ? 1 : 0;
  const cost = costPerThousandViews(view.readUnits, metricRequests);
  const read = `This view read ${esc(view.itemsRead.toLocaleString('en-US'))} index entries and records, ${esc(units)} read units as DynamoDB reported them`;
  const price = `about $${esc(cost.toFixed(cost < 0.01 ? 4 : 2))} per 1,000 views`;
  // The prices the cost was computed with, so the sentence cannot drift from the figure.
  const perMillionReads = `$${+(USD_PER_READ_UNIT * 1_000_000).toFixed(4)}`;
  const perThousandRequests = `$${+(USD_PER_METRIC_REQUEST * 1_000).toFixed(4)}`;
  const readText =
    metricRequests === 0
      ? `${read}: ${price} at on-demand prices (${perMillionReads} per million read units, us-east-1).`
      : `${read}, and made one CloudWatch GetMetricStatistics request for the duplicates: ${price} at list prices (${perMillionReads} per million read units; ${perThousandRequests} per 1,000 CloudWatch requests past the free tier's million a month; us-east-1).`;
  return `<section class="trends" id="trends">${head}
<p class="dim">${esc(trends.counted)} deliveries received since ${esc(iso(trends.sinceMs).slice(0, 16).replace('T', ' '))} UTC${form.provider ? ` from ${esc(form.provider)}` : ''}, by their status now; failed attempts of those deliveries, when they failed.</p>
${cap}
<div id="provider-trends"><div class="trend-charts">${received}${failures}${dupes.chart}</div>
${rowsTable(trends.deliveries, OUTCOMES, ['Provider', 'Received'], trends.nowMs, (p) => `deliveries${query({ provider: p, trend: window })}`)}
${dupes.note}</div>
<div id="destination-trends"><h2>By destination</h2>
${destinationPart}</div>
<p class="dim" id="trends-cost">${readText}</p>
</section>`;
}
